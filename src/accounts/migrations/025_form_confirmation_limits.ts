import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * Caps on opt-in forms' confirmation SMS (issue #27): nobody approves these sends, so an account limits how many go
 * out per form and per account, per hour and per day (docs/decisions.md "Forms: caps on confirmation SMS").
 * Migration 025, accounts' part, before the forms' part.
 *
 * - accounts.form_confirmations_*: the four limits, account settings with defaults (30/h and 200/day per form,
 *   100/h and 1000/day per account).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  const limits: Array<[string, number]> = [
    ['form_confirmations_form_hour', 30],
    ['form_confirmations_form_day', 200],
    ['form_confirmations_account_hour', 100],
    ['form_confirmations_account_day', 1000],
  ];
  for (const [column, value] of limits) {
    await db.schema.alterTable('accounts').addColumn(column, INT, (c) => c.notNull().defaultTo(value)).execute();
  }
}
