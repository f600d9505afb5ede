import type { Kysely } from 'kysely';

/**
 * Migration 035, messaging's part (issue #31): `status` leaves the two indexes that carried it beside their key,
 * (`job_id`, `status`) and (`contact_id`, `status`), which become (`job_id`) and (`contact_id`).
 *
 * Why: every message changes `status` two or three times (SENT, then DELIVERED and READ), and each change rewrote
 * an entry in both indexes. No query needs `status` there: a job's progress counts also read `pending` and
 * `credits_cost_milli` from the row, and the log's contact filter finds the rows by contact. Measured on 10,000
 * messages, SQLite: recording them SENT 37–39 → 26–27 ms, their receipts 33–36 → 22–23 ms; the SQLite batch bench
 * 3.05–3.11× → 2.86–2.94× its reference (bench/README.md "Session 16"). On PostgreSQL a receipt then changes no indexed
 * column and may be a heap-only update; a lower fillfactor to make room for that on every page was measured and not
 * kept (the batch's inserts and SENT records slowed by more than the receipts gained).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('messages_job').execute();
  await db.schema.createIndex('messages_job').on('messages').column('job_id').execute();
  await db.schema.dropIndex('messages_contact').execute();
  await db.schema.createIndex('messages_contact').on('messages').column('contact_id').execute();
}
