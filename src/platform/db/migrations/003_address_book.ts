import type { Kysely } from 'kysely';
import { intType } from '../dialect.js';

/** Contacts, custom fields and values, contact groups and membership, templates and template groups. */
// Migrations take Kysely<any>: they describe past shapes, not the current Database type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('contacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('email', 'text')
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('disabled', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', INT)
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('updated_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('contacts_account_phone').on('contacts').columns(['account_id', 'phone']).unique().execute();
  await db.schema.createIndex('contacts_account_created').on('contacts').columns(['account_id', 'created_at', 'id']).execute();

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

  await db.schema
    .createTable('contact_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('updated_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('contact_groups_account_created').on('contact_groups').columns(['account_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('contact_group_members')
    .addColumn('group_id', 'text', (c) => c.notNull().references('contact_groups.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('created_at', INT, (c) => c.notNull())
    .addPrimaryKeyConstraint('contact_group_members_pk', ['group_id', 'contact_id'])
    .execute();
  await db.schema.createIndex('contact_group_members_contact').on('contact_group_members').column('contact_id').execute();

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
