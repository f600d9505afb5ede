import type { Kysely } from 'kysely';

/**
 * messages (account_id, phone) → (account_id, phone, created_at). The per-recipient throttle, the
 * conversation windows and the log's phone filter all ask for one number's messages in a time
 * range; with created_at in the index they read only that range instead of the number's whole
 * history (an account sending to the same list every day read a year of rows per recipient).
 * See docs/storage.md "messages".
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('messages_account_phone_created').on('messages').columns(['account_id', 'phone', 'created_at']).execute();
  await db.schema.dropIndex('messages_account_phone').execute();
}

