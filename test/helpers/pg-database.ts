import pg from 'pg';
import { POSTGRES_ADMIN_URL, uniqueName } from './postgres.js';

/**
 * A whole PostgreSQL database of its own, for tests where several instances (pools, processes)
 * share one database exactly as deployed: no search_path in the URL, the migrations' bookkeeping
 * tables in `public` as in production. drop() forces out sessions a killed process left behind.
 */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function admin(statement: string): Promise<void> {
  const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end().catch(() => undefined);
  }
}

export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = uniqueName(label);
  await admin(`create database "${name}"`);
  const u = new URL(POSTGRES_ADMIN_URL);
  u.pathname = `/${name}`;
  let dropped = false;
  return {
    url: u.toString(),
    name,
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin(`drop database if exists "${name}" with (force)`);
    },
  };
}
