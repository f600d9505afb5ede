import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('previews')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('payload_hash', 'text', (c) => c.notNull())
    .addColumn('estimate', 'text', (c) => c.notNull())
    .addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('approval_required', INT, (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('expires_at', INT, (c) => c.notNull())
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', INT)
    .addColumn('send_started_at', INT)
    .addColumn('result', 'text')
    .execute();
  await db.schema.createIndex('previews_account_hash').on('previews').columns(['account_id', 'kind', 'payload_hash']).execute();
  await db.schema.createIndex('previews_account_status').on('previews').columns(['account_id', 'status', 'created_at']).execute();
}
