import { describe } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type OpenDb } from '../../src/platform/db/database.js';
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
