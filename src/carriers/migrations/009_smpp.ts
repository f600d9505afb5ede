import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * SMPP: which SMSC part ids belong to which of our messages, so delivery receipts map back after a
 * restart, and so a message already submitted is not submitted again. See docs/storage.md "SMPP".
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('smpp_messages')
    .addColumn('message_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('connection', 'text', (c) => c.notNull())
    .addColumn('to_phone', 'text', (c) => c.notNull())
    .addColumn('parts_total', INT, (c) => c.notNull())
    .addColumn('udh_ref', INT, (c) => c.notNull())
    .addColumn('encoding', 'text', (c) => c.notNull())
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('final_status', 'text')
    .addColumn('final_error', 'text')
    .addColumn('final_at', INT)
    .addColumn('reported', INT, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('smpp_messages_unreported').on('smpp_messages').columns(['reported', 'final_status']).execute();

  await db.schema
    .createTable('smpp_parts')
    .addColumn('message_id', 'text', (c) => c.notNull().references('smpp_messages.message_id').onDelete('cascade'))
    .addColumn('part_index', INT, (c) => c.notNull())
    .addColumn('connection', 'text', (c) => c.notNull())
    .addColumn('carrier_id', 'text')
    .addColumn('submitted_at', INT)
    .addColumn('stat', 'text')
    .addColumn('err', 'text')
    .addColumn('receipt_at', INT)
    .addPrimaryKeyConstraint('smpp_parts_pk', ['message_id', 'part_index'])
    .execute();
  await db.schema.createIndex('smpp_parts_carrier_id').on('smpp_parts').columns(['connection', 'carrier_id']).execute();
}
