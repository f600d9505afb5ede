import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 007 (engagement), inbound's part: interactions (taps and replies). After conversations, before suppression. See docs/storage.md "Engagement". */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('interactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('action_type', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text')
    .addColumn('sender_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('inbound_message_id', 'text')
    .addColumn('campaign_name', 'text')
    .addColumn('button_text', 'text')
    .addColumn('postback_data', 'text')
    .addColumn('text', 'text')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('occurred_at', INT, (c) => c.notNull())
    .addColumn('created_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('interactions_account_time').on('interactions').columns(['account_id', 'occurred_at', 'id']).execute();
  await db.schema.createIndex('interactions_account_phone').on('interactions').columns(['account_id', 'phone', 'occurred_at']).execute();
  await db.schema.createIndex('interactions_account_campaign').on('interactions').columns(['account_id', 'campaign_name', 'occurred_at']).execute();
}
