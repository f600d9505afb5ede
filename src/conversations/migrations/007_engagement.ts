import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 007 (engagement), conversations' part: conversation windows. Then inbound (interactions), then suppression (opt-outs). See docs/storage.md "Engagement". */
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
}
