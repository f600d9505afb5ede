import { sql, type Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * Caps on opt-in forms' confirmation SMS (issue #27); migration 025, the forms' part, after the accounts' part
 * (the four limits on accounts).
 *
 * - forms.confirmation_limit_hit: JSON {limit, max, at} of the last submission a cap held back; the console warns
 *   on the form for 24 hours after it.
 * - form_submissions.confirmation_sent_at: when the submission's confirmation SMS was accepted (null: none was),
 *   filled in for existing rows from submitted_at. Counted per form and per account over the last hour and day in
 *   every double opt-in submission's transaction; two partial indexes keep that count to the rows with an SMS.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema.alterTable('forms').addColumn('confirmation_limit_hit', 'text').execute();
  await db.schema.alterTable('form_submissions').addColumn('confirmation_sent_at', INT).execute();
  await sql`update form_submissions set confirmation_sent_at = submitted_at where confirmation_message_id is not null`.execute(db);
  await sql`create index form_submissions_form_confirmations on form_submissions (form_id, confirmation_sent_at) where confirmation_sent_at is not null`.execute(db);
  await sql`create index form_submissions_account_confirmations on form_submissions (account_id, confirmation_sent_at) where confirmation_sent_at is not null`.execute(db);
}
