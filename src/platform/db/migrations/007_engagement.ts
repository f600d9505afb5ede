import type { Kysely } from 'kysely';
import { intType } from '../dialect.js';

/** Conversation windows, interactions (taps and replies) and opt-outs. See docs/storage.md "Engagement". */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('sender_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('country', 'text')
    .addColumn('opened_message_id', 'text', (c) => c.notNull())
    .addColumn('started_at', INT, (c) => c.notNull())
    .addColumn('expires_at', INT, (c) => c.notNull())
    .addColumn('user_replied_at', INT)
    .addColumn('last_activity_at', INT, (c) => c.notNull())
    .addColumn('outbound_count', INT, (c) => c.notNull().defaultTo(1))
    .addColumn('inbound_count', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('conversations_lookup').on('conversations').columns(['account_id', 'phone', 'sender_id', 'expires_at']).execute();
  await db.schema.createIndex('conversations_activity').on('conversations').columns(['account_id', 'last_activity_at', 'id']).execute();

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

  await db.schema
    .createTable('opt_outs')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('keyword', 'text')
    .addColumn('sender_id', 'text')
    .addColumn('message_id', 'text')
    .addColumn('created_at', INT, (c) => c.notNull())
    .addPrimaryKeyConstraint('opt_outs_pk', ['account_id', 'phone'])
    .execute();
}
