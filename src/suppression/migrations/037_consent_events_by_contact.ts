import type { Kysely } from 'kysely';

/**
 * Migration 037, suppression's part (issue #42): consent_events by (`account_id`, `contact_id`, `occurred_at`, `id`).
 * A deleted contact's id keeps answering its consent record (GET /api/v1/contacts/{id}/consent): with the contacts
 * row gone, the number is the one its latest event names. Without this index that look-up — and every 404 of an
 * unknown contact id — read every event of the account.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('consent_events_contact').on('consent_events').columns(['account_id', 'contact_id', 'occurred_at', 'id']).execute();
}
