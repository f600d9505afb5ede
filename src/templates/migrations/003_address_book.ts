import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 003 (address book), templates' part: template groups and templates. Runs last of 003. */
// Migrations take Kysely<any>: they describe past shapes, not the current Database type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('template_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('updated_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('template_groups_account_name').on('template_groups').columns(['account_id', 'name_key']).unique().execute();

  await db.schema
    .createTable('templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('rcs_message_type', 'text')
    .addColumn('context', 'text', (c) => c.notNull().defaultTo('general'))
    .addColumn('is_default', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('template_group_id', 'text', (c) => c.references('template_groups.id').onDelete('set null'))
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('updated_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('templates_account_created').on('templates').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('templates_group').on('templates').columns(['account_id', 'template_group_id']).execute();
}
