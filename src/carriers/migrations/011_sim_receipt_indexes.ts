import { sql, type Kysely } from 'kysely';

/**
 * The simulated carrier's receipt indexes become partial, each holding only the rows its query
 * looks for: (deliver_due) the messages still waiting for a delivery receipt, (read_due) the
 * delivered ones waiting for a read receipt. With full indexes the read query ("deliver_due is
 * null and read_due <= now") was planned on the delivery index's NULL entries — every message
 * ever delivered — and each receipt tick cost ~2 ms during a 10,000-message batch, growing with
 * the history. See docs/storage.md "sim_messages".
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('sim_messages_deliver').execute();
  await db.schema.dropIndex('sim_messages_read').execute();
  await sql`create index sim_messages_deliver_pending on sim_messages (deliver_due) where deliver_due is not null`.execute(db);
  await sql`create index sim_messages_read_pending on sim_messages (read_due) where deliver_due is null and delivered_at is not null`.execute(db);
}
