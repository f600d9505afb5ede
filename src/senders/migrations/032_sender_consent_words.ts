import type { Kysely } from 'kysely';

/**
 * A sender's own consent words (issue #28, src/inbound/consent-words.ts SenderWords): JSON
 * {"optOut": [...], "optIn": [...], "help": [...]}, folded, added to the lists every sender has;
 * edited on the console's Senders page. '{}' (the default): none of its own.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('senders').addColumn('consent_words', 'text', (c) => c.notNull().defaultTo('{}')).execute();
}
