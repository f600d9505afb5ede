/**
 * The only code that writes balances (issue #18). Every function runs inside the caller's
 * transaction: it appends credit_ledger rows and moves accounts.credits_milli by the same amount,
 * so the cached balance is always the sum of the account's entries (test/billing/invariant.ts).
 */
import type { DbOrTx } from '../platform/db/database.js';
import type { CreditLedgerTable } from './tables.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { milliToCredits } from './pricing.js';
import type { LedgerKind } from './schemas.js';

export interface LedgerChange {
  accountId: string;
  kind: LedgerKind;
  /** Signed 1/1000 credits: negative takes from the balance. */
  amountMilli: number;
  reason: string;
  messageId?: string | null;
  jobId?: string | null;
}

/** Appends the entries and moves each balance by their sum: one INSERT and one UPDATE per account. Zero amounts are skipped. */
export async function appendEntries(tx: DbOrTx, changes: readonly LedgerChange[], at: number): Promise<void> {
  const rows: CreditLedgerTable[] = [];
  const perAccount = new Map<string, number>();
  for (const c of changes) {
    if (!Number.isInteger(c.amountMilli)) throw new Error(`ledger amount must be integer 1/1000 credits, got ${c.amountMilli}`);
    if (c.amountMilli === 0) continue;
    rows.push({ id: newId('led', at), account_id: c.accountId, kind: c.kind, amount_milli: c.amountMilli, reason: c.reason, message_id: c.messageId ?? null, job_id: c.jobId ?? null, created_at: at });
    perAccount.set(c.accountId, (perAccount.get(c.accountId) ?? 0) + c.amountMilli);
  }
  if (rows.length === 0) return;
  for (let i = 0; i < rows.length; i += 500) await tx.insertInto('credit_ledger').values(rows.slice(i, i + 500)).execute();
  // In id order: two instances' rounds that refund the same accounts lock their rows in one order
  // (PostgreSQL), so neither waits for a row the other holds while holding one it wants.
  for (const [accountId, milli] of [...perAccount].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (milli !== 0) await tx.updateTable('accounts').set((eb) => ({ credits_milli: eb('credits_milli', '+', milli) })).where('id', '=', accountId).execute();
  }
}

/**
 * Charges a send at accept: one 'debit' entry for the whole send (or job), only when the balance
 * covers it — otherwise 400 INSUFFICIENT_CREDITS and nothing is written. The check and the debit
 * are one conditional UPDATE, so two sends racing for the last credits cannot both pass.
 */
export async function debitSend(tx: DbOrTx, d: { accountId: string; amountMilli: number; reason: string; messageId?: string | null; jobId?: string | null }, at: number): Promise<void> {
  if (!Number.isInteger(d.amountMilli) || d.amountMilli < 0) throw new Error(`debit must be a non-negative integer, got ${d.amountMilli}`);
  const res = await tx
    .updateTable('accounts')
    .set((eb) => ({ credits_milli: eb('credits_milli', '-', d.amountMilli) }))
    .where('id', '=', d.accountId)
    .where('credits_milli', '>=', d.amountMilli)
    .executeTakeFirst();
  // A free send (test traffic, open windows) writes no entry but, as before the ledger, still needs a balance that is not negative.
  if (Number(res.numUpdatedRows) === 0) {
    const row = await tx.selectFrom('accounts').select('credits_milli').where('id', '=', d.accountId).executeTakeFirst();
    const available = milliToCredits(row?.credits_milli ?? 0);
    throw new AppError('INSUFFICIENT_CREDITS', `This send costs ${milliToCredits(d.amountMilli)} credits but the account has ${available}`, {
      extra: { creditsRequired: milliToCredits(d.amountMilli), creditsAvailable: available },
    });
  }
  if (d.amountMilli === 0) return;
  await tx
    .insertInto('credit_ledger')
    .values({ id: newId('led', at), account_id: d.accountId, kind: 'debit', amount_milli: -d.amountMilli, reason: d.reason, message_id: d.messageId ?? null, job_id: d.jobId ?? null, created_at: at })
    .execute();
}

/**
 * Sets a balance to `targetMilli` (an operator's `credits:set`): one 'adjustment' entry of the
 * difference, read and written in the caller's transaction. Returns the difference.
 */
export async function setBalance(tx: DbOrTx, accountId: string, targetMilli: number, reason: string, at: number): Promise<number | null> {
  const row = await tx.selectFrom('accounts').select('credits_milli').where('id', '=', accountId).executeTakeFirst();
  if (!row) return null;
  const diff = targetMilli - Number(row.credits_milli);
  await appendEntries(tx, [{ accountId, kind: 'adjustment', amountMilli: diff, reason }], at);
  return diff;
}

/**
 * A message's charge corrections after its outcome (the dispatcher's round, a cancel): one entry
 * per account, kind, reason and job, so a round of 10,000 messages writes a handful of rows. An
 * entry covering exactly one message names it.
 */
export class Corrections {
  private readonly groups = new Map<string, { change: LedgerChange; messages: number; lastMessage: string }>();

  add(c: { accountId: string; kind: 'refund' | 'reprice'; amountMilli: number; reason: string; messageId: string; jobId: string | null }): void {
    if (c.amountMilli === 0) return;
    const key = `${c.accountId}\u0000${c.kind}\u0000${c.reason}\u0000${c.jobId ?? ''}`;
    const g = this.groups.get(key);
    if (g) {
      g.change.amountMilli += c.amountMilli;
      g.messages++;
      g.lastMessage = c.messageId;
    } else {
      this.groups.set(key, { change: { accountId: c.accountId, kind: c.kind, amountMilli: c.amountMilli, reason: c.reason, jobId: c.jobId }, messages: 1, lastMessage: c.messageId });
    }
  }

  get size(): number {
    return this.groups.size;
  }

  /** Total of the corrections, 1/1000 credits. */
  total(): number {
    let t = 0;
    for (const g of this.groups.values()) t += g.change.amountMilli;
    return t;
  }

  async write(tx: DbOrTx, at: number): Promise<void> {
    if (this.groups.size === 0) return;
    const changes = [...this.groups.values()].map((g) => ({
      ...g.change,
      messageId: g.messages === 1 ? g.lastMessage : null,
      reason: g.messages === 1 ? g.change.reason : `${g.change.reason} (${g.messages} messages)`,
    }));
    await appendEntries(tx, changes, at);
  }
}
