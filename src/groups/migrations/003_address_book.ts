import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 003 (address book), groups' part: contact groups and membership. After fields, before templates. */
// Migrations take Kysely<any>: they describe past shapes, not the current Database type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
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
}
