import { sql, type Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * Migration 036, suppression's part (issue #42, docs/consent.md "Review"): replies that may be a request to stop
 * ("Stop? I want these messages", "wrong number", a stop word inside a sentence) pause marketing to the number and
 * wait in `consent_reviews` for a person, who confirms the opt-out or releases the number. At most one open review per
 * number of an account (consent_reviews_open, a partial unique index both databases have): a second such reply adds to
 * it. Owned by src/suppression/reviews.ts, its only writer. The pause and the decision are also on the consent record.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('consent_reviews')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('keyword', 'text')
    .addColumn('received_text', 'text')
    .addColumn('sender_id', 'text')
    .addColumn('message_id', 'text')
    .addColumn('replies', INT, (c) => c.notNull().defaultTo(1))
    .addColumn('last_text', 'text')
    .addColumn('last_message_id', 'text')
    .addColumn('cancelled_messages', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('opened_at', INT, (c) => c.notNull())
    .addColumn('decided_at', INT)
    .addColumn('decided_by', 'text')
    .addColumn('decided_by_id', 'text')
    .addColumn('decided_via', 'text')
    .addColumn('note', 'text')
    .execute();
  await db.schema.createIndex('consent_reviews_open').unique().on('consent_reviews').columns(['account_id', 'phone']).where(sql.ref('status'), '=', 'open').execute();
  // The list (open first, newest first) and a number's reviews.
  await db.schema.createIndex('consent_reviews_account').on('consent_reviews').columns(['account_id', 'status', 'opened_at', 'id']).execute();
}
