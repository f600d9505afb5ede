import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { describe } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase } from '../../src/bootstrap/database.js';
import { type OpenDb } from '../../src/platform/db/database.js';
import { dialectOf } from '../../src/platform/db/dialect.js';
import { connectPostgres } from '../../src/platform/db/postgres.js';
import type { Database } from '../../src/platform/db/schema.js';
import { createTestSchema, onPostgres, type TestSchema } from './postgres.js';

export { onPostgres };

/**
 * The database a test opens follows TEST_DATABASE: unset, an in-memory (or the server's file)
 * SQLite as always; `postgres`, a schema of its own on the test PostgreSQL server, dropped again
 * when the test closes it. Connections per pool are few: vitest runs files in parallel and the
 * server's max_connections is shared with every other suite on the machine.
 */
export const TEST_POOL_MAX = '4';

/** Environment for loadConfig / a child server: DATABASE_URL of a fresh schema on PostgreSQL, nothing on SQLite. */
export async function testDatabaseEnv(label: string): Promise<{ env: Record<string, string>; schema: TestSchema | null }> {
  if (!onPostgres) return { env: {}, schema: null };
  const schema = await createTestSchema(label);
  return { env: { DATABASE_URL: schema.url, DATABASE_POOL_MAX: TEST_POOL_MAX }, schema };
}

/** A migrated, empty database: SQLite in memory, or a fresh PostgreSQL schema. close() drops the schema too. */
export async function openTestDatabase(label = 'db'): Promise<OpenDb> {
  if (!onPostgres) return openDatabase(':memory:');
  const { env, schema } = await testDatabaseEnv(label);
  const config = loadConfig(env);
  const database = await openDatabase(config.postgres!);
  const close = database.close.bind(database);
  return {
    ...database,
    async close() {
      await close();
      await schema!.drop();
    },
  };
}

/**
 * `describe` for tests that are about SQLite itself (its file, WAL, modes, schema text): skipped
 * on PostgreSQL with the reason in the title. docs/scaling.md lists every such file.
 */
export function describeSqliteOnly(reason: string): (name: string, fn: () => void) => void {
  return (name, fn) => describe.skipIf(onPostgres)(`${name} (SQLite only: ${reason})`, fn);
}

/**
 * A second connection to a server's database, as the admin CLI or another instance would write:
 * not the server's own handle or pool, so nothing the server caches can see the write coming.
 */
export async function withOtherConnection<T>(config: Config, fn: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const db = config.postgres
    ? connectPostgres({ ...config.postgres, poolMax: 1 }, () => undefined).db
    : new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(config.databaseFile) }) });
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

/** The tables of the database the server uses (its own schema on PostgreSQL), Kysely's bookkeeping included. */
export async function tableNames(db: Kysely<Database>): Promise<string[]> {
  const { rows } =
    dialectOf(db) === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db);
  return rows.map((r) => r.name).sort();
}
