import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * Migration 036, messaging's part (issue #42): `messages.transactional`, 1 when the send was marked transactional
 * (one-time codes, replies in an open conversation). A consent review pauses marketing to a number at once: it cancels
 * the number's queued and scheduled messages that are not transactional, and leaves these to go. Rows written before
 * are 0 (marketing), the safe side: a pause cancels them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('transactional', intType(db), (c) => c.notNull().defaultTo(0)).execute();
}
