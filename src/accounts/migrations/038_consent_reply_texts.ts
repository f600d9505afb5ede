import type { Kysely } from 'kysely';

/**
 * Confirmation and HELP replies in the language of the word that triggered them (issue #42, src/accounts/reply-texts.ts).
 *
 * - accounts.consent_reply_language: the language of replies to English words and the sender's own words (en, de, …);
 *   null: en.
 * - accounts.consent_reply_texts: JSON `{"confirmation": {"de": "…"}, "help": {"fr": "…"}}`, the account's own texts by
 *   language; null or a language missing: the default. The English confirmation stays in opt_out_confirmation_text
 *   (migration 027), so the setting of issue #28 keeps its meaning.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('consent_reply_language', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('consent_reply_texts', 'text').execute();
}
