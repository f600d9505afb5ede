import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * Budget holds (issue #42, src/billing/budgets.ts, docs/storage.md): an approved preview holds its estimated credits
 * and recipients against the daily budget of the credential that made it, until it is sent (the hold becomes the
 * send's charge), rejected or expires. One row per preview.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('budget_holds')
    .addColumn('preview_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('credits_milli', INT, (c) => c.notNull())
    .addColumn('recipients', INT, (c) => c.notNull())
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('expires_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('budget_holds_credential').on('budget_holds').columns(['account_id', 'credential_id', 'expires_at']).execute();
}
