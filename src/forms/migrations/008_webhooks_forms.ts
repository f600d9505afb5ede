import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 008, forms' part: opt-in forms and submissions. Runs after the webhooks' part. See docs/storage.md "Webhooks and forms". */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('forms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('title', 'text')
    .addColumn('description', 'text')
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('group_ids', 'text', (c) => c.notNull())
    .addColumn('double_opt_in', INT, (c) => c.notNull().defaultTo(1))
    .addColumn('sender_id', 'text')
    .addColumn('confirmation_message', 'text')
    .addColumn('apply_data', INT, (c) => c.notNull().defaultTo(1))
    .addColumn('consent_text', 'text')
    .addColumn('webhook_id', 'text', (c) => c.references('webhook_endpoints.id').onDelete('set null'))
    .addColumn('active', INT, (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('updated_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('forms_account_time').on('forms').columns(['account_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('form_submissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text', (c) => c.notNull())
    .addColumn('contact_action', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.unique())
    .addColumn('token_expires_at', INT)
    .addColumn('confirmation_sent', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('confirmation_message_id', 'text')
    .addColumn('confirmation_note', 'text')
    .addColumn('data_applied', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('submitted_at', INT, (c) => c.notNull())
    .addColumn('confirmed_at', INT)
    .execute();
  await db.schema.createIndex('form_submissions_form_phone').on('form_submissions').columns(['form_id', 'phone', 'submitted_at']).execute();
  await db.schema.createIndex('form_submissions_form_time').on('form_submissions').columns(['form_id', 'submitted_at', 'id']).execute();
}
