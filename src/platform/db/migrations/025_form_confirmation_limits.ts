import { sql, type Kysely } from 'kysely';
import { intType } from '../dialect.js';

/**
 * Caps on opt-in forms' confirmation SMS (issue #27): nobody approves these sends, so an account limits how many go
 * out per form and per account, per hour and per day (docs/decisions.md "Forms: caps on confirmation SMS").
 *
 * - accounts.form_confirmations_*: the four limits, account settings with defaults (30/h and 200/day per form,
 *   100/h and 1000/day per account).
 * - forms.confirmation_limit_hit: JSON {limit, max, at} of the last submission a cap held back; the console warns
 *   on the form for 24 hours after it.
 * - form_submissions.confirmation_sent_at: when the submission's confirmation SMS was accepted (null: none was),
 *   filled in for existing rows from submitted_at. Counted per form and per account over the last hour and day in
 *   every double opt-in submission's transaction; two partial indexes keep that count to the rows with an SMS.
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
  await db.schema.alterTable('forms').addColumn('confirmation_limit_hit', 'text').execute();
  await db.schema.alterTable('form_submissions').addColumn('confirmation_sent_at', INT).execute();
  await sql`update form_submissions set confirmation_sent_at = submitted_at where confirmation_message_id is not null`.execute(db);
  await sql`create index form_submissions_form_confirmations on form_submissions (form_id, confirmation_sent_at) where confirmation_sent_at is not null`.execute(db);
  await sql`create index form_submissions_account_confirmations on form_submissions (account_id, confirmation_sent_at) where confirmation_sent_at is not null`.execute(db);
}
