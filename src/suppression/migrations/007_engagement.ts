import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 007 (engagement), suppression's part: opt-outs. Runs last of 007. See docs/storage.md "Engagement". */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
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
