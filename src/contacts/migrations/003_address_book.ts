import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 003 (address book), contacts' part: contacts. Runs first of 003: custom field values and group members reference contacts. */
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
}
