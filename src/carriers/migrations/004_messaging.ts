import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 004, carriers' part: the simulated carrier's messages (sim_messages). Runs after messaging's part. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('sim_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('sender_id', 'text', (c) => c.notNull())
    .addColumn('sender_name', 'text', (c) => c.notNull())
    .addColumn('to_phone', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('deliver_due', INT)
    .addColumn('read_due', INT)
    .addColumn('delivered_at', INT)
    .addColumn('read_at', INT)
    .addColumn('failed_at', INT)
    .execute();
  await db.schema.createIndex('sim_messages_to').on('sim_messages').columns(['to_phone', 'created_at']).execute();
  await db.schema.createIndex('sim_messages_deliver').on('sim_messages').column('deliver_due').execute();
  await db.schema.createIndex('sim_messages_read').on('sim_messages').column('read_due').execute();
}
