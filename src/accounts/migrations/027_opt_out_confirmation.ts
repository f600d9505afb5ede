import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * The confirmation of an opt-out by keyword or chip (issue #28, docs/decisions.md "Consent words"): one message
 * "You are unsubscribed from …" when a number opts out, an account setting.
 *
 * - accounts.opt_out_confirmation: 1 (default) sends it, 0 does not.
 * - accounts.opt_out_confirmation_text: the account's own text, {{company_name}} replaced; null: the default text
 *   (OPT_OUT_CONFIRMATION_DEFAULT in src/accounts/schemas.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema.alterTable('accounts').addColumn('opt_out_confirmation', INT, (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('accounts').addColumn('opt_out_confirmation_text', 'text').execute();
}
