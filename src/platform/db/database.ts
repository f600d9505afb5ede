import SQLite from 'better-sqlite3';
import type pg from 'pg';
import { DEFAULT_MIGRATION_TABLE as MIGRATION_TABLE, Kysely, Migrator, SqliteDialect, sql, type SqliteDialectConfig, type Transaction } from 'kysely';
import { dialectOf } from './dialect.js';
import { secureDatabaseFiles, type ModeChange } from '../data-dir.js';
import type { Database } from './schema.js';
import type { Migrations } from './migration-parts.js';
import { openCommitHook, type FirstCommitHook } from './commit-hook.js';
import { connectPostgres, postgresAnswers, postgresClientConfig, withMigrationLock, type PostgresConfig } from './postgres.js';
import { ChangeFeed } from './change-feed.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the database or an open transaction: services take this so they compose inside one tx. */
export type DbOrTx = Kysely<Database>;

interface OpenDbBase {
  db: Db;
  /** True when the database answers a trivial query: GET /health. */
  answers(): Promise<boolean>;
  close(): Promise<void>;
}

/** The embedded SQLite file (the default). */
export interface SqliteDb extends OpenDbBase {
  dialect: 'sqlite';
  /** The raw handle, for the change stamp, the WAL checkpointer and shutdown only; queries go through Kysely. */
  raw: SQLite.Database;
}

/** PostgreSQL (DATABASE_URL), pooled. */
export interface PostgresDb extends OpenDbBase {
  dialect: 'postgres';
  pool: pg.Pool;
  /** Notifications that cached rows changed (change-stamp.ts); its connection opens when a cache first asks. */
  changes: ChangeFeed;
}

export type OpenDb = SqliteDb | PostgresDb;

export interface OpenDbOptions {
  /** Called once with the files whose looser modes were tightened (empty list: nothing changed). SQLite only. */
  onModesTightened?: (changes: ModeChange[]) => void;
  /** Errors of idle pooled connections (PostgreSQL only); queries report their own. */
  onPoolError?: (err: Error) => void;
  /**
   * Called when a newer version has migrated the database beyond this one (the names of the
   * migrations this version does not know); this version then runs without migrating
   * (migrateToLatest).
   */
  onNewerSchema?: (newer: string[]) => void;
}

/** The SQLite handle of an open database; throws on PostgreSQL (tests and tools that inspect the file). */
export function sqliteHandle(open: OpenDb): SQLite.Database {
  if (open.dialect !== 'sqlite') throw new Error(`a SQLite handle was asked of a ${open.dialect} database`);
  return open.raw;
}

/**
 * Opens the database and brings its schema up to date with `migrations`: a file path (or ':memory:') is SQLite,
 * a PostgresConfig (DATABASE_URL) is PostgreSQL. The migrations are the areas' parts merged by the composition
 * layer (src/bootstrap/migrations.ts), which the platform does not import: the server and the tests open the
 * database through src/bootstrap/database.ts, which passes this version's list.
 */
export function openDatabaseWith(file: string, migrations: Migrations, options?: OpenDbOptions): Promise<SqliteDb>;
export function openDatabaseWith(target: PostgresConfig, migrations: Migrations, options?: OpenDbOptions): Promise<PostgresDb>;
export function openDatabaseWith(target: string | PostgresConfig, migrations: Migrations, options?: OpenDbOptions): Promise<OpenDb>;
export async function openDatabaseWith(target: string | PostgresConfig, migrations: Migrations, options: OpenDbOptions = {}): Promise<OpenDb> {
  return typeof target === 'string' ? openSqlite(target, migrations, options) : openPostgres(target, migrations, options);
}

async function openPostgres(config: PostgresConfig, migrations: Migrations, options: OpenDbOptions): Promise<PostgresDb> {
  const { db, pool } = connectPostgres(config, options.onPoolError ?? (() => undefined));
  try {
    await withMigrationLock(db, (conn) => migrateToLatest(conn, migrations, options.onNewerSchema));
  } catch (err) {
    await db.destroy();
    throw err;
  }
  let closed = false;
  const changes = new ChangeFeed(postgresClientConfig(config), { onError: options.onPoolError ?? (() => undefined) });
  return {
    dialect: 'postgres',
    db,
    pool,
    changes,
    answers: () => postgresAnswers(db),
    async close() {
      if (closed) return;
      closed = true;
      await changes.close();
      await db.destroy();
    },
  };
}

async function openSqlite(file: string, migrations: Migrations, options: OpenDbOptions): Promise<SqliteDb> {
  // Created 0600 before SQLite opens it; SQLite gives the -wal and -shm files the same mode.
  const tightened = secureDatabaseFiles(file);
  if (tightened.length > 0) options.onModesTightened?.(tightened);
  const raw = new SQLite(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('busy_timeout = 5000');
  // The default page cache (2 MiB) is smaller than the pages one 10,000-message batch touches
  // (messages, their indexes, the carrier's rows): pages were evicted and read back within the same
  // batch. 64 MiB at most, allocated only as pages are used.
  raw.pragma('cache_size = -65536');
  // Checkpoint every ~40 MiB of WAL instead of every ~4 MiB: a page rewritten by several
  // transactions (a message is written at accept, at hand-over and on its receipts) is copied
  // back to the database once instead of several times, and fewer commits pay for a checkpoint.
  // The WAL file is truncated back to 64 MiB after a checkpoint that let it grow beyond that.
  raw.pragma('wal_autocheckpoint = 10000');
  raw.pragma('journal_size_limit = 67108864');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(raw) }) });
  await migrateToLatest(db, migrations, options.onNewerSchema);
  let closed = false;
  return {
    dialect: 'sqlite',
    db,
    raw,
    answers: () => {
      try {
        return Promise.resolve(raw.prepare('SELECT 1 AS ok').get() !== undefined);
      } catch {
        return Promise.resolve(false);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query again; preparing costs more than running a small
 * statement (a 500-row INSERT of messages takes milliseconds to prepare). Statements are cached
 * by their SQL text (parameters are bound per run), least recently used out. A cached statement
 * that is still busy (a streamed query being iterated) is not shared: a fresh one is prepared.
 * SQLite-only, like the rest of this file; the PostgreSQL dialect has its own server-side plans.
 */
function withStatementCache(raw: SQLite.Database): SqliteDialectConfig['database'] {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => raw.close(),
    prepare(sqlText: string) {
      const hit = cache.get(sqlText);
      if (hit && !hit.busy) {
        cache.delete(sqlText);
        cache.set(sqlText, hit);
        return hit;
      }
      const stmt = raw.prepare(sqlText);
      if (!hit) {
        cache.set(sqlText, stmt);
        if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      return stmt;
    },
  };
}

/**
 * Brings the schema up to date. A database a newer version has migrated (during a rolling
 * upgrade, an instance of the previous version restarting after the first new one started) has
 * run every migration this version knows and some it does not: migrations are additive
 * (docs/deployment.md, "Rolling upgrades and migrations"), so this version runs on it as it is,
 * without migrating, and says so through onNewerSchema — where Kysely's Migrator would refuse to
 * start ("previously executed migration … is missing"). A database that misses some of this
 * version's migrations while holding unknown ones is not one of those, and is refused.
 */
export async function migrateToLatest(db: Db, migrations: Migrations, onNewerSchema?: (newer: string[]) => void): Promise<void> {
  const schema = dialectOf(db) === 'postgres' ? await currentSchema(db) : undefined;
  const executed = await executedMigrations(db, schema);
  const newer = executed.filter((name) => !(name in migrations));
  if (newer.length > 0) {
    const missing = Object.keys(migrations).filter((name) => !executed.includes(name));
    if (missing.length > 0) {
      throw new Error(`Database migration refused: the database has run migrations this version does not know (${newer.join(', ')}) but not this version's ${missing.join(', ')}; it was not migrated by a newer release of this server`);
    }
    onNewerSchema?.(newer);
    return;
  }
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, ...(schema ? { migrationTableSchema: schema } : {}) });
  let { error, results } = await migrator.migrateToLatest();
  // Kysely's Migrator looks for its tables by listing every table of every schema, resolving each
  // by name (pg_get_serial_sequence): a schema or table another session drops meanwhile — another
  // installation or test in the same database — fails that listing with 3F000, 42P01 or, for a
  // table whose columns were being dropped with it, 42703. Nothing ran then (no migration reports an
  // error, and pending migrations run in one transaction on PostgreSQL), so it is tried again; an
  // error of a migration itself is not.
  const listingFailed = () => isConcurrentDrop(error) && !results?.some((r) => r.status === 'Error');
  for (let retry = 0; retry < 5 && listingFailed(); retry++) ({ error, results } = await migrator.migrateToLatest());
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}

/** A catalog listing that met a schema or table dropped by another session (see migrateToLatest). */
function isConcurrentDrop(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === '3F000' || code === '42P01' || code === '42703';
}

/** The names in Kysely's migration table (in `schema` on PostgreSQL); none before the first migration. */
async function executedMigrations(db: Db, schema: string | undefined): Promise<string[]> {
  const table = schema
    ? (await sql<{ found: string | null }>`select to_regclass(quote_ident(${schema}) || '.' || ${MIGRATION_TABLE})::text as found`.execute(db)).rows[0]?.found
    : (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`.execute(db)).rows[0]?.name;
  if (!table) return [];
  const { rows } = schema
    ? await sql<{ name: string }>`select name from ${sql.table(`${schema}.${MIGRATION_TABLE}`)}`.execute(db)
    : await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
  return rows.map((r) => r.name);
}

/**
 * The schema unqualified names go to (the first existing one on search_path). Kysely's Migrator
 * looks for its bookkeeping tables in every schema unless told which: in a database whose other
 * schemas hold another installation (or another test's), it would find theirs and skip creating
 * its own.
 */
async function currentSchema(db: Db): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL: no schema of the search_path exists (create it, or fix search_path in DATABASE_URL)');
  return schema;
}

/**
 * Runs fn in one transaction; everything fn writes commits together or not at all. When the
 * request opened a first-commit hook (commit-hook.ts), the hook's write joins the first
 * transaction that commits.
 */
export async function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (!openCommitHook()) return db.transaction().execute(fn);
  let joined: FirstCommitHook | undefined;
  const result = await db.transaction().execute(async (tx) => {
    const out = await fn(tx);
    // Looked up again at the end: another transaction of the request may have committed meanwhile.
    joined = openCommitHook();
    if (joined) await joined.beforeCommit(tx);
    return out;
  });
  if (joined) {
    joined.committed = true;
    joined.closed = true;
  }
  return result;
}
