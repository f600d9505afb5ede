import { sql, type Kysely } from 'kysely';

/**
 * Limits that several instances on one database must count together (issue #19); migration 019, the forms' part,
 * after the platform's (rate_limit_hits).
 *
 * - form_submissions.dedupe_key: identical opt-in submissions (same form, number and data) while
 *   the first is pending and fresh are that first one (docs/decisions.md "Opt-in forms"); the
 *   database decides which is first. The key (SHA-256 of the data) is unique per form and number
 *   among PENDING rows; a submission outside the resend window clears the stale one's key. Rows
 *   from before keep a null key and are found by their data, as before.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('form_submissions').addColumn('dedupe_key', 'text').execute();
  await sql`create unique index form_submissions_pending_same on form_submissions (form_id, phone, dedupe_key) where status = 'PENDING'`.execute(db);
}
