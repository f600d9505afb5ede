import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { DialectName } from '../../src/platform/db/dialect.js';
import { connectPostgres } from '../../src/platform/db/postgres.js';
import { createTestSchema, postgresUnreachable } from './postgres.js';

/**
 * An empty database of either dialect for tests of the SQL helpers in src/platform/db, which
 * create ad-hoc tables of their own (no migrations). PostgreSQL: a fresh schema through the
 * server's own pool settings (connectPostgres: int8 read as numbers).
 */
export interface Scratch {
  db: Kysely<any>;
  /** The integer column type the migrations use on this dialect. */
  intType: 'integer' | 'bigint';
  close(): Promise<void>;
}

const unreachable = await postgresUnreachable();

/**
 * SQLite, and PostgreSQL when it answers, or when REQUIRE_POSTGRES=1 (CI), so that a missing
 * server fails there instead of skipping.
 */
export const BOTH_DIALECTS: DialectName[] = unreachable === null || process.env.REQUIRE_POSTGRES === '1' ? ['sqlite', 'postgres'] : ['sqlite'];

export async function openScratch(dialect: DialectName): Promise<Scratch> {
  if (dialect === 'sqlite') {
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });
    return { db, intType: 'integer', close: () => db.destroy() };
  }
  const schema = await createTestSchema('scratch');
  const { db } = connectPostgres({ url: schema.url, poolMax: 2, ssl: null, sslCaFile: null }, () => undefined);
  return {
    db,
    intType: 'bigint',
    async close() {
      await db.destroy();
      await schema.drop();
    },
  };
}
