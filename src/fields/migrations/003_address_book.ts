import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 003 (address book), fields' part: custom fields and their values. After contacts, before groups. */
// Migrations take Kysely<any>: they describe past shapes, not the current Database type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('custom_fields')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('tag_key', 'text', (c) => c.notNull())
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('updated_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('custom_fields_account_tag').on('custom_fields').columns(['account_id', 'tag_key']).unique().execute();

  await db.schema
    .createTable('contact_field_values')
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('field_id', 'text', (c) => c.notNull().references('custom_fields.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', INT, (c) => c.notNull())
    .addPrimaryKeyConstraint('contact_field_values_pk', ['contact_id', 'field_id'])
    .execute();
  await db.schema.createIndex('contact_field_values_field').on('contact_field_values').column('field_id').execute();
}
