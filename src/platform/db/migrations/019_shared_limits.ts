import { sql, type Kysely } from 'kysely';
import { intType } from '../dialect.js';

/**
 * Limits that several instances on one database must count together (issue #19).
 *
 * - rate_limit_hits: the express-rate-limit limiters' counters (public form pages), one row per
 *   limiter and client, a fixed window; before, each process counted in its memory. See
 *   src/platform/http/rate-limit-store.ts and docs/storage.md "rate_limit_hits".
 * - form_submissions.dedupe_key: identical opt-in submissions (same form, number and data) while
 *   the first is pending and fresh are that first one (docs/decisions.md "Opt-in forms"); the
 *   database decides which is first. The key (SHA-256 of the data) is unique per form and number
 *   among PENDING rows; a submission outside the resend window clears the stale one's key. Rows
 *   from before keep a null key and are found by their data, as before.
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
  await db.schema.alterTable('form_submissions').addColumn('dedupe_key', 'text').execute();
  await sql`create unique index form_submissions_pending_same on form_submissions (form_id, phone, dedupe_key) where status = 'PENDING'`.execute(db);
}
