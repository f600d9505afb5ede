import pg from 'pg';

/**
 * PostgreSQL for tests: the server at POSTGRES_ADMIN_URL (default the local cluster, trust auth).
 * Every caller gets its own schema, named for this process and a counter, so vitest's parallel
 * files never share tables; the connection URL selects it with `options=-c search_path=…`.
 */
export const POSTGRES_ADMIN_URL = process.env.POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * How many backends of the current database are queued in PostgreSQL's lock manager for an advisory lock (column `n`):
 * the proof that a transaction is blocked, where a fixed sleep only shows it has not got there yet.
 */
export const ADVISORY_LOCK_WAITERS_SQL = "select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())";

/** True when the suite runs on PostgreSQL (`npm run test:pg`). */
export const onPostgres = process.env.TEST_DATABASE === 'postgres';

/** The run's own database (pg-global-setup.ts) when there is one, else the admin database itself. */
const RUN_URL = process.env.TEST_PG_RUN_URL ?? POSTGRES_ADMIN_URL;

async function admin<T>(fn: (c: pg.Client) => Promise<T>, url = RUN_URL): Promise<T> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Null when the server answers; else why not. */
export async function postgresUnreachable(): Promise<string | null> {
  try {
    await admin((c) => c.query('select 1'), POSTGRES_ADMIN_URL);
    return null;
  } catch (err) {
    return String(err);
  }
}

export interface TestSchema {
  /** A connection URL whose sessions see only this schema (search_path). */
  url: string;
  name: string;
  drop(): Promise<void>;
}

let made = 0;

/** A database or schema name no other test file or run uses: the label, this process, a counter and the time. */
export const uniqueName = (label: string): string => `${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}_${++made}_${Date.now().toString(36)}`;

/** A fresh, empty schema; drop() removes it with everything in it. */
export async function createTestSchema(label = 't'): Promise<TestSchema> {
  const name = uniqueName(label);
  await admin((c) => c.query(`create schema "${name}"`));
  const u = new URL(RUN_URL);
  u.searchParams.set('options', `-c search_path=${name}`);
  let dropped = false;
  return {
    url: u.toString(),
    name,
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin((c) => c.query(`drop schema if exists "${name}" cascade`));
    },
  };
}
