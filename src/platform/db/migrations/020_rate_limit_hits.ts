import type { Kysely } from 'kysely';
import { intType } from '../dialect.js';

/**
 * Hit counters of the express-rate-limit limiters (the public form pages), in the database
 * instead of each process's memory, so a limit holds across instances and restarts: one row per
 * limiter and client, a fixed window. See src/platform/http/rate-limit-store.ts and
 * docs/storage.md "rate_limit_hits".
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('rate_limit_hits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('hits', INT, (c) => c.notNull())
    .addColumn('reset_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limit_hits_reset').on('rate_limit_hits').column('reset_at').execute();
}
