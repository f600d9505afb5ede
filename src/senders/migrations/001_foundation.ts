import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 001, senders' part: the senders table. Runs after the accounts part (senders reference accounts). */
// Migrations take Kysely<any>: they describe past shapes, not the current Database type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('senders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('is_default', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('is_test', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('supports_conversation_billing', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('rejection_reason', 'text')
    .addColumn('test_phones', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('stop_keyword', 'text', (c) => c.notNull().defaultTo('STOP'))
    .addColumn('carrier_config', 'text')
    .addColumn('created_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('senders_account').on('senders').columns(['account_id', 'type']).execute();
}
