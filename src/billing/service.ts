import { sql } from 'kysely';
import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import { inTransaction, type Db, type DbOrTx } from '../platform/db/database.js';
import type { CreditLedgerTable } from './tables.js';
import { AppError, notFound } from '../platform/errors.js';
import { assertId } from '../platform/ids.js';
import { keysetPage } from '../platform/pagination.js';
import { appendEntries, setBalance } from './ledger.js';
import { creditsToMilli, milliToCredits } from './pricing.js';
import { LEDGER_KINDS, type Balance, type DailyUsage, type LedgerEntry, type LedgerKind, type LedgerPage, type LedgerQuerySchema } from './schemas.js';
import type { z } from 'zod';

const DAY = 86_400_000;
/** Kinds whose sum is what sending cost (refunds and re-pricing count against the debits). */
const SPENDING_KINDS: readonly LedgerKind[] = ['debit', 'refund', 'reprice'];

export type ParsedLedgerQuery = z.output<typeof LedgerQuerySchema>;

const toEntry = (r: Pick<CreditLedgerTable, 'id' | 'kind' | 'amount_milli' | 'reason' | 'message_id' | 'job_id' | 'created_at'>): LedgerEntry => ({
  id: r.id,
  kind: r.kind as LedgerKind,
  amount: milliToCredits(Number(r.amount_milli)),
  reason: r.reason,
  messageId: r.message_id,
  jobId: r.job_id,
  createdAt: toIso(Number(r.created_at))!,
});

function invalid(path: string, code: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', `${path}: ${message}`, { details: [{ path, code, message }] });
}

export interface BillingDeps {
  db: Db;
  clock: Clock;
}

/**
 * Balances and the credit ledger (issue #18): the reads of the REST routes, rcs_limits and the
 * Credits page, and the writes that are not part of a send (a new account's credits, an
 * operator's adjustment). Sends, the dispatcher and cancels write through ./ledger.ts in their own
 * transactions.
 */
export class BillingService {
  constructor(private readonly d: BillingDeps) {}

  async balance(accountId: string): Promise<Balance> {
    const row = await this.d.db.selectFrom('accounts').select('credits_milli').where('id', '=', accountId).executeTakeFirst();
    if (!row) throw notFound('Account');
    return { success: true, accountId, credits: milliToCredits(Number(row.credits_milli)), asOf: toIso(this.d.clock.now())! };
  }

  /** A new account's starting credits, in the transaction that creates it. */
  async openAccount(tx: DbOrTx, accountId: string, credits: number): Promise<void> {
    await appendEntries(tx, [{ accountId, kind: 'topup', amountMilli: creditsToMilli(credits), reason: 'Starting credits of the new account' }], this.d.clock.now());
  }

  /** An operator sets the balance (`credits:set`): recorded as an 'adjustment' of the difference, with the operator's reason. */
  async setCredits(accountId: string, credits: number, reason: string): Promise<{ credits: number; changedBy: number }> {
    if (!Number.isFinite(credits) || credits < 0) throw new AppError('VALIDATION_ERROR', 'Credits must be a non-negative number');
    const why = reason.trim();
    if (why === '') throw new AppError('VALIDATION_ERROR', 'A reason is required: say why the balance changes (--reason "…")');
    if (why.length > 500) throw new AppError('VALIDATION_ERROR', 'The reason is at most 500 characters');
    const diff = await inTransaction(this.d.db, (tx) => setBalance(tx, accountId, creditsToMilli(credits), why, this.d.clock.now()));
    if (diff === null) throw notFound('Account');
    return { credits: (await this.balance(accountId)).credits, changedBy: milliToCredits(diff) };
  }

  /** The history, newest first. A job or message id of another account (or none) is a 404. */
  async ledger(accountId: string, q: ParsedLedgerQuery): Promise<LedgerPage> {
    let qb = this.d.db.selectFrom('credit_ledger').select(['id', 'kind', 'amount_milli', 'reason', 'message_id', 'job_id', 'created_at']).where('account_id', '=', accountId);
    const start = q.startDate !== undefined ? Date.parse(q.startDate) : null;
    const end = q.endDate !== undefined ? Date.parse(q.endDate) : null;
    if (start !== null && end !== null && start > end) throw invalid('startDate', 'invalid_range', 'startDate is after endDate');
    if (start !== null) qb = qb.where('created_at', '>=', start);
    if (end !== null) qb = qb.where('created_at', '<=', end);
    if (q.kind !== undefined && q.kind.trim() !== '') {
      const kinds = q.kind.split(',').map((s) => s.trim().toLowerCase());
      for (const k of kinds) if (!(LEDGER_KINDS as readonly string[]).includes(k)) throw invalid('kind', 'invalid_enum', `unknown kind "${k}" (allowed: ${LEDGER_KINDS.join(', ')})`);
      qb = qb.where('kind', 'in', kinds);
    }
    if (q.jobId !== undefined) {
      assertId('job', q.jobId, 'jobId');
      const job = await this.d.db.selectFrom('jobs').select('id').where('id', '=', q.jobId).where('account_id', '=', accountId).executeTakeFirst();
      if (!job) throw new AppError('NOT_FOUND', 'Job not found');
      qb = qb.where('job_id', '=', q.jobId);
    }
    if (q.messageId !== undefined) {
      assertId('msg', q.messageId, 'messageId');
      // A cancelled scheduled message is removed (spec §3.1) but its entries stay: either proves it is this account's.
      const known =
        (await this.d.db.selectFrom('messages').select('id').where('id', '=', q.messageId).where('account_id', '=', accountId).executeTakeFirst()) ??
        (await this.d.db.selectFrom('credit_ledger').select('id').where('message_id', '=', q.messageId).where('account_id', '=', accountId).executeTakeFirst());
      if (!known) throw new AppError('NOT_FOUND', 'Message not found');
      qb = qb.where('message_id', '=', q.messageId);
    }
    const page = await keysetPage(qb, { scope: { kind: 'credit_ledger', sort: 'id', order: 'desc' }, sortExpr: sql.ref('id'), idExpr: sql.ref('id'), limit: q.limit, cursor: q.cursor });
    return { success: true, data: page.rows.map(toEntry), pagination: page.pagination };
  }

  /** The last `days` UTC days, oldest first: credits spent (net of refunds) and outbound messages by status. */
  async daily(accountId: string, days: number): Promise<DailyUsage[]> {
    const today = Math.floor(this.d.clock.now() / DAY);
    const from = (today - days + 1) * DAY;
    // A literal, so that both dialects divide integers (a bound JS number is a REAL in SQLite).
    const dayExpr = sql<number>`(created_at / ${sql.lit(DAY)})`;
    const spent = await this.d.db
      .selectFrom('credit_ledger')
      .select([dayExpr.as('day'), (eb) => eb.fn.sum<number>('amount_milli').as('milli')])
      .where('account_id', '=', accountId)
      .where('kind', 'in', SPENDING_KINDS)
      .where('created_at', '>=', from)
      .groupBy(dayExpr)
      .execute();
    const counts = await this.d.db
      .selectFrom('messages')
      .select([dayExpr.as('day'), 'status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', accountId)
      .where('direction', '=', 'OUTBOUND')
      .where('created_at', '>=', from)
      .groupBy([dayExpr, 'status'])
      .execute();
    const out: DailyUsage[] = [];
    const byDay = new Map<number, DailyUsage>();
    for (let d = today - days + 1; d <= today; d++) {
      const u: DailyUsage = { day: new Date(d * DAY).toISOString().slice(0, 10), spent: 0, messages: {} };
      byDay.set(d, u);
      out.push(u);
    }
    for (const s of spent) {
      const u = byDay.get(Math.floor(Number(s.day)));
      if (u) u.spent = milliToCredits(creditsToMilli(u.spent) - Number(s.milli));
    }
    for (const c of counts) {
      const u = byDay.get(Math.floor(Number(c.day)));
      if (u) u.messages[c.status] = (u.messages[c.status] ?? 0) + Number(c.n);
    }
    return out;
  }
}
