import type { Kysely } from 'kysely';
import { intType } from '../dialect.js';

/**
 * Limits that several instances on one database must count together (issue #19); migration 019, the platform's
 * part, before the forms' part.
 *
 * - rate_limit_hits: the express-rate-limit limiters' counters (public form pages), one row per
 *   limiter and client, a fixed window; before, each process counted in its memory. See
 *   src/platform/http/rate-limit-store.ts and docs/storage.md "rate_limit_hits".
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
