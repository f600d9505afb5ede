import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * Budgets per credential (issue #29, src/billing/budgets.ts, docs/storage.md).
 *
 * - credential_limits: the limits a person set on one credential of an account — an API key (`key_…`) or a
 *   connected OAuth app (its client_id): credits per UTC day and recipients per send, each optional (null: no limit).
 * - credential_spend: one counter row per credential and UTC day (day = epoch ms / 86,400,000): the credits its sends
 *   were charged and the messages they made. Written in the transaction that debits the account, by a conditional
 *   UPDATE, so instances sharing a PostgreSQL database cannot both pass the last credit of a budget.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('credential_limits')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('daily_credits_milli', INT)
    .addColumn('max_recipients', INT)
    .addColumn('updated_at', INT, (c) => c.notNull())
    .addPrimaryKeyConstraint('credential_limits_pk', ['account_id', 'credential_id'])
    .execute();
  await db.schema
    .createTable('credential_spend')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('day', INT, (c) => c.notNull())
    .addColumn('spent_milli', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('messages', INT, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('credential_spend_pk', ['account_id', 'credential_id', 'day'])
    .execute();
}
