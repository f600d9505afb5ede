import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * The consent record (issue #28, docs/storage.md "consent_events"): one append-only row per change of a number's
 * consent — opt-in (form, API, console), opt-out (keyword, unsubscribe chip, unsubscribe link), resubscription
 * (START), and the business's own disable/enable of the number's contact — with the details that make it evidence.
 * Owned by src/suppression/consent.ts, its only writer, which only inserts. contact_id is a plain column (no foreign
 * key, no cascade): the record outlives the contact. Rows go only with their account.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('consent_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('received_text', 'text')
    .addColumn('keyword', 'text')
    .addColumn('form_id', 'text')
    .addColumn('form_name', 'text')
    .addColumn('submission_id', 'text')
    .addColumn('client_address', 'text')
    .addColumn('declared_source', 'text')
    .addColumn('actor', 'text')
    .addColumn('actor_id', 'text')
    .addColumn('sender_id', 'text')
    .addColumn('message_id', 'text')
    .addColumn('note', 'text')
    .addColumn('occurred_at', INT, (c) => c.notNull())
    .execute();
  // A number's history, newest first (REST, MCP, console); the account's whole record in order (CSV export).
  await db.schema.createIndex('consent_events_phone').on('consent_events').columns(['account_id', 'phone', 'occurred_at', 'id']).execute();
  await db.schema.createIndex('consent_events_account_time').on('consent_events').columns(['account_id', 'occurred_at', 'id']).execute();
}
