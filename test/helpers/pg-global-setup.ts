import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * With TEST_DATABASE=postgres, one database per test run holds every schema the test files make
 * (test/helpers/postgres.ts): dropped at the end of the run, so a schema a crashed or interrupted
 * test could not drop itself goes with it. Without the variable this does nothing.
 */
const ADMIN_URL = process.env.POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(query: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    await c.query(query);
  } finally {
    await c.end().catch(() => undefined);
  }
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE !== 'postgres') return undefined;
  // Each project of a run (unit, system) calls this: the random part keeps two in the same millisecond apart.
  const name = `rcs_test_run_${process.pid}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await admin(`create database "${name}"`);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  // Read by the test workers, which vitest starts after this.
  process.env.TEST_PG_RUN_URL = u.toString();
  return async () => {
    await admin(`drop database if exists "${name}" with (force)`);
  };
}
