import { sql, type Kysely } from 'kysely';

/**
 * The SMPP re-offer loop's index becomes partial: it holds only the messages whose final status
 * is known and not yet applied by the engine — what reportDue looks for. The full index on
 * (reported, final_status) took an entry for every message handed to an SMSC, one more B-tree
 * insert on the submit path (bench/smpp.ts). See docs/storage.md "smpp_messages".
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('smpp_messages_unreported').execute();
  await sql`create index smpp_messages_unreported_final on smpp_messages (final_at) where reported = 0 and final_status is not null`.execute(db);
}
