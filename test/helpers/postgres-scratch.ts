import pg from 'pg';

/**
 * Scratch PostgreSQL databases for tests that need a real server (POSTGRES_ADMIN_URL, default the
 * local cluster): `unreachable` says why there is none (null: there is one), `required` is
 * REQUIRE_POSTGRES=1 (set by .ci/run), where a missing server fails instead of skipping. Each
 * fresh database is dropped by dropScratchDatabases().
 */
export const ADMIN_URL = process.env.POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const required = process.env.REQUIRE_POSTGRES === '1';

async function reachable(): Promise<string | null> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
    return null;
  } catch (err) {
    return String(err);
  } finally {
    await c.end().catch(() => undefined);
  }
}

export const unreachable = await reachable();

export async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const made: string[] = [];

/** A new empty database named after `prefix`; returns its URL. */
export async function scratchDatabase(prefix: string): Promise<string> {
  const name = `${prefix}_${process.pid}_${made.length}_${Date.now()}`;
  await admin((c) => c.query(`create database "${name}"`));
  made.push(name);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function dropScratchDatabases(): Promise<void> {
  if (made.length === 0) return;
  await admin(async (c) => {
    for (const name of made.splice(0)) await c.query(`drop database if exists "${name}" with (force)`);
  });
}

/** The URL without its credentials, for messages. */
export const shownUrl = (url: string): string => url.replace(/\/\/[^@]*@/, '//…@');
