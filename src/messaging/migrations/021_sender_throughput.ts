import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * The per-sender throughput budget in the database (issue #19), so SENDER_MAX_PER_SECOND holds
 * across every instance instead of per process. One row per sender: a token bucket of
 * milli-tokens (integers, so the refill is the same integer arithmetic on SQLite and PostgreSQL),
 * refilled continuously up to one second's worth. `granted` is what the last take gave: the take
 * is one upsert that computes it from the old row, and RETURNING reads it back (neither database
 * returns a column's old value). See src/messaging/sender-budget.ts and docs/storage.md.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('sender_throughput')
    .addColumn('sender_id', 'text', (c) => c.primaryKey().references('senders.id').onDelete('cascade'))
    .addColumn('tokens_milli', INT, (c) => c.notNull())
    .addColumn('refilled_at', INT, (c) => c.notNull())
    .addColumn('granted', INT, (c) => c.notNull())
    .execute();
}
