import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';
import { newId } from '../../platform/ids.js';

/**
 * The credit ledger (issue #18): every change of an account's balance is one row, appended by
 * src/billing/ alone, and accounts.credits_milli is the cached sum of an account's rows. Each
 * existing account gets an 'opening' entry of its balance at migration time, so the sum holds
 * from the first row on. See docs/storage.md "credit_ledger".
 *
 * - amount_milli is signed: negative takes credits (debit), positive gives them (refund, top-up).
 * - message_id / job_id name what the entry is for when it is for one message or one job;
 *   aggregated entries of a dispatcher round covering several leave message_id null.
 * - (account_id, id): the history walks by id, which is a time-ordered ULID; the two other
 *   indexes serve the job and message filters.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_milli', INT, (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('job_id', 'text')
    .addColumn('created_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('credit_ledger_account').on('credit_ledger').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('credit_ledger_job').on('credit_ledger').columns(['account_id', 'job_id', 'id']).execute();
  await db.schema.createIndex('credit_ledger_message').on('credit_ledger').columns(['account_id', 'message_id', 'id']).execute();

  const now = Date.now();
  const accounts = (await db.selectFrom('accounts').select(['id', 'credits_milli']).orderBy('id').execute()) as { id: string; credits_milli: number }[];
  for (let i = 0; i < accounts.length; i += 500) {
    const rows = accounts.slice(i, i + 500).map((a) => ({
      id: newId('led', now),
      account_id: a.id,
      kind: 'opening',
      amount_milli: Number(a.credits_milli),
      reason: 'Opening balance when the credit ledger was introduced',
      message_id: null,
      job_id: null,
      created_at: now,
    }));
    if (rows.length > 0) await db.insertInto('credit_ledger').values(rows).execute();
  }
}
