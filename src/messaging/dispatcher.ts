import type { AccountsService, PriceList } from '../accounts/service.js';
import type { Carriers, SendOutcome } from '../carriers/carrier.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { parseJson } from '../platform/db/sql.js';
import type { MessagesTable } from '../platform/db/tables/messaging.js';
import type { Logger } from '../platform/logger.js';
import { splitSms } from '../sms/index.js';
import { analyzeSms } from '../sms/index.js';
import type { MessageEvents } from './events.js';
import { smsPrice } from './pricing.js';

export interface DispatcherOptions {
  /** How long a claimed message belongs to this process; after a crash it is claimed again. */
  leaseMs: number;
  /** Messages claimed per round. */
  claimLimit: number;
  /** Per-sender ceiling, messages per second, so one big batch cannot starve other senders. */
  perSenderPerSecond: number;
  /** Pause when nothing is due. */
  idleMs: number;
  /** Attempts for temporary carrier errors before the message FAILS. */
  maxAttempts: number;
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = { leaseMs: 30_000, claimLimit: 1000, perSenderPerSecond: 20_000, idleMs: 200, maxAttempts: 8 };

interface Bucket {
  tokens: number;
  at: number;
}

type Update = Partial<MessagesTable> & { id: string };

/**
 * The durable queue: messages are rows with `pending = 1` and a `due_at`. A round claims due rows
 * by setting a lease, hands each to its carrier with the message id as idempotency key, and
 * records the outcome. Nothing lives only in memory: a crash leaves leased rows that are claimed
 * again when the lease runs out, and the carrier recognises ids it has already taken.
 */
export class Dispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private stopped = true;
  private round: Promise<void> | null = null;
  private wakeRequested = false;
  private readonly buckets = new Map<string, Bucket>();
  private readonly senderNames = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly carriers: Carriers,
    private readonly accounts: AccountsService,
    private readonly events: MessageEvents,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions = DEFAULT_DISPATCHER_OPTIONS,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.round;
  }

  /** New work was committed: look now instead of after the idle pause. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.round = this.runRound().finally(() => (this.round = null));
    }, ms);
    this.timer.unref?.();
  }

  private async runRound(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    let claimed = 0;
    try {
      claimed = await this.tick();
    } catch (err) {
      this.logger.error({ err }, 'dispatcher round failed');
    } finally {
      this.running = false;
    }
    const again = claimed > 0 || this.wakeRequested;
    this.wakeRequested = false;
    this.schedule(again ? 0 : await this.idleDelay());
  }

  /** Sleeps until the next due message, at most idleMs, so scheduled sends fire on time. */
  private async idleDelay(): Promise<number> {
    try {
      const next = await this.db.selectFrom('messages').select('due_at').where('pending', '=', 1).orderBy('due_at').limit(1).executeTakeFirst();
      if (!next) return this.options.idleMs;
      return Math.max(0, Math.min(this.options.idleMs, next.due_at - this.clock.now()));
    } catch {
      return this.options.idleMs;
    }
  }

  /** One round: claim what is due (within per-sender budgets), send, record. Returns how many were claimed. */
  async tick(): Promise<number> {
    const now = this.clock.now();
    const candidates = await this.db
      .selectFrom('messages')
      .select(['id', 'sendername_id'])
      .where('pending', '=', 1)
      .where('due_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('due_at')
      .limit(this.options.claimLimit)
      .execute();
    if (candidates.length === 0) return 0;
    const ids: string[] = [];
    const budget = new Map<string, number>();
    for (const c of candidates) {
      let left = budget.get(c.sendername_id);
      if (left === undefined) left = this.takeTokens(c.sendername_id, now);
      if (left <= 0) {
        budget.set(c.sendername_id, 0);
        continue;
      }
      budget.set(c.sendername_id, left - 1);
      ids.push(c.id);
    }
    this.refund(budget, now);
    if (ids.length === 0) return 0;
    const rows = await this.claim(ids, now);
    await this.process(rows);
    return rows.length;
  }

  /**
   * Sends one message right away (immediate single sends answer with the real outcome). Returns
   * the row after the attempt, or null when another worker holds it.
   */
  async dispatchNow(id: string): Promise<MessagesTable | null> {
    const now = this.clock.now();
    const row = await this.db.selectFrom('messages').select(['sendername_id', 'due_at', 'pending']).where('id', '=', id).executeTakeFirst();
    if (!row || row.pending !== 1 || row.due_at > now) return this.load(id);
    if (this.takeTokens(row.sendername_id, now, 1) < 1) {
      this.wake();
      return this.load(id);
    }
    const claimed = await this.claim([id], now);
    if (claimed.length === 0) return this.load(id);
    await this.process(claimed);
    return this.load(id);
  }

  private async load(id: string): Promise<MessagesTable | null> {
    return (await this.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  }

  private async claim(ids: string[], now: number): Promise<MessagesTable[]> {
    const out: MessagesTable[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500);
      // The conditions repeat the candidate query so that a row another worker claimed in between
      // is not claimed twice (on PostgreSQL this becomes FOR UPDATE SKIP LOCKED).
      const rows = await this.db
        .updateTable('messages')
        .set((eb) => ({ lease_until: now + this.options.leaseMs, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', part)
        .where('pending', '=', 1)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .returningAll()
        .execute();
      out.push(...rows);
    }
    return out;
  }

  private async process(rows: MessagesTable[]): Promise<void> {
    const updates: Update[] = [];
    const priceLists = new Map<string, PriceList>();
    for (const row of rows) {
      try {
        updates.push(await this.deliver(row, priceLists));
      } catch (err) {
        // A bug or an unexpected carrier failure must not lose the message: release it for a retry.
        this.logger.error({ err, messageId: row.id }, 'dispatch failed');
        updates.push(this.retryOrFail(row, { ok: false, retryable: true, code: 'INTERNAL', reason: 'Internal error while sending' }));
      }
    }
    await this.record(rows, updates);
  }

  private async deliver(row: MessagesTable, priceLists: Map<string, PriceList>): Promise<Update> {
    const to = `+${row.phone}`;
    const senderName = await this.senderName(row.sendername_id);
    if (row.type === 'SMS') {
      const parts = splitSms(row.text).map((p) => p.text);
      const outcome = await this.carriers.sms.send({ messageId: row.id, accountId: row.account_id, senderId: row.sendername_id, senderName, to, text: row.text, parts, encoding: (row.sms_encoding ?? 'GSM-7') as 'GSM-7' | 'Unicode' });
      return outcome.ok ? this.sent(row, outcome.carrierMessageId, 'SMS') : this.retryOrFail(row, outcome);
    }
    // RCS. Decided at accept time when the country has no RCS price (fallback_used already 1).
    if (row.fallback_used === 1) return this.sendFallback(row, row.fallback_reason ?? 'RCS_COUNTRY_NOT_SUPPORTED', priceLists);
    const cap = await this.carriers.rcs.capability(to, row.sendername_id);
    if (!cap.rcs) return this.sendFallback(row, cap.reason === 'UNREACHABLE' ? 'UNREACHABLE' : 'RCS_NOT_SUPPORTED', priceLists);
    const outcome = await this.carriers.rcs.send({
      messageId: row.id,
      accountId: row.account_id,
      senderId: row.sendername_id,
      senderName,
      to,
      messageType: row.message_type ?? 'text',
      content: parseJson<Record<string, unknown>>(row.content, {}),
    });
    if (outcome.ok) return this.sent(row, outcome.carrierMessageId, 'RCS');
    if (outcome.retryable && row.attempts < this.options.maxAttempts) return this.retryOrFail(row, outcome);
    return this.sendFallback(row, `RCS_FAILED: ${outcome.code}`, priceLists, outcome);
  }

  /** RCS could not be used: send the merged SMS fallback through its sender, or fail. */
  private async sendFallback(row: MessagesTable, reason: string, priceLists: Map<string, PriceList>, rcsOutcome?: SendOutcome): Promise<Update> {
    const fallback = parseJson<{ message: string; sendernameId: string } | null>(row.sms_fallback, null);
    if (!fallback || row.fallback_text === null) {
      const why = rcsOutcome && !rcsOutcome.ok ? `${rcsOutcome.code}: ${rcsOutcome.reason}` : reason === 'UNREACHABLE' ? 'The number is unreachable' : 'The number cannot receive RCS and no smsFallback was given';
      return this.failed(row, why);
    }
    const sms = analyzeSms(row.fallback_text);
    const outcome = await this.carriers.sms.send({
      messageId: row.id,
      accountId: row.account_id,
      senderId: fallback.sendernameId,
      senderName: await this.senderName(fallback.sendernameId),
      to: `+${row.phone}`,
      text: row.fallback_text,
      parts: splitSms(row.fallback_text).map((p) => p.text),
      encoding: sms.encoding,
    });
    const base: Update = { id: row.id, fallback_used: 1, fallback_reason: reason, sms_segments: sms.segments, sms_encoding: sms.encoding };
    if (!outcome.ok) {
      const u = outcome.retryable && row.attempts < this.options.maxAttempts ? this.retryOrFail(row, outcome) : this.failed(row, `${outcome.code}: ${outcome.reason}`);
      return { ...u, ...base, ...(u.pending === 1 ? { fallback_used: row.fallback_used } : {}) };
    }
    // The fallback is billed as SMS segments instead of the RCS price charged at accept time.
    let cost = row.credits_cost_milli ?? 0;
    if (cost > 0 && row.fallback_used !== 1) {
      let list = priceLists.get(row.account_id);
      if (!list) priceLists.set(row.account_id, (list = await this.accounts.priceList(row.account_id)));
      cost = smsPrice(list, row.country ?? '', sms.segments) ?? cost;
    }
    return { ...this.sent(row, outcome.carrierMessageId, 'SMS'), ...base, credits_cost_milli: cost };
  }

  private sent(row: MessagesTable, carrierMessageId: string, method: 'RCS' | 'SMS'): Update {
    const now = this.clock.now();
    return { id: row.id, status: 'SENT', method, sent_at: now, pending: 0, lease_until: null, carrier_message_id: carrierMessageId, error: null };
  }

  private failed(row: MessagesTable, error: string): Update {
    return { id: row.id, status: 'FAILED', failed_at: this.clock.now(), pending: 0, lease_until: null, error };
  }

  /** Temporary errors wait and try again (exponential backoff, up to maxAttempts). */
  private retryOrFail(row: MessagesTable, outcome: Extract<SendOutcome, { ok: false }>): Update {
    if (!outcome.retryable || row.attempts >= this.options.maxAttempts) return this.failed(row, `${outcome.code}: ${outcome.reason}`);
    const backoff = Math.min(10 * 60_000, 1000 * 2 ** (row.attempts - 1)) * (0.75 + Math.random() * 0.5);
    return { id: row.id, due_at: this.clock.now() + Math.round(backoff), lease_until: null, error: `${outcome.code}: ${outcome.reason} (will retry)` };
  }

  private async record(rows: MessagesTable[], updates: Update[]): Promise<void> {
    const byId = new Map(rows.map((r) => [r.id, r]));
    await this.db.transaction().execute(async (tx) => {
      for (const u of updates) {
        const { id, ...set } = u;
        const before = byId.get(id)!;
        // Only the lease holder records: a row whose lease was lost (a very slow carrier call) is left alone.
        await tx.updateTable('messages').set(set).where('id', '=', id).where('pending', '=', 1).execute();
        const after = { ...before, ...set } as MessagesTable;
        const costDelta = (after.credits_cost_milli ?? 0) - (before.credits_cost_milli ?? 0);
        const refund = after.status === 'FAILED' ? (after.credits_cost_milli ?? 0) : 0;
        // A message that never left is not charged; a fallback's price replaces the RCS price.
        if (refund > 0) {
          await tx.updateTable('accounts').set((eb) => ({ credits_milli: eb('credits_milli', '+', refund) })).where('id', '=', after.account_id).execute();
          await tx.updateTable('messages').set({ credits_cost_milli: 0 }).where('id', '=', id).execute();
          after.credits_cost_milli = 0;
        } else if (costDelta !== 0) {
          await tx.updateTable('accounts').set((eb) => ({ credits_milli: eb('credits_milli', '-', costDelta) })).where('id', '=', after.account_id).execute();
        }
        if (after.status !== before.status) await this.events.statusChanged(tx, after, before.status);
      }
    });
  }

  private async senderName(id: string): Promise<string> {
    let name = this.senderNames.get(id);
    if (name === undefined) {
      const row = await this.db.selectFrom('senders').select('name').where('id', '=', id).executeTakeFirst();
      name = row?.name ?? id;
      this.senderNames.set(id, name);
    }
    return name;
  }

  private takeTokens(senderId: string, now: number, want = Infinity): number {
    const rate = this.options.perSenderPerSecond;
    const b = this.buckets.get(senderId) ?? { tokens: rate, at: now };
    b.tokens = Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    const take = Math.floor(Math.min(b.tokens, want));
    b.tokens -= take;
    this.buckets.set(senderId, b);
    return take;
  }

  private refund(left: Map<string, number>, now: number): void {
    for (const [senderId, n] of left) {
      const b = this.buckets.get(senderId);
      if (b && n > 0) {
        b.tokens += n;
        b.at = now;
      }
    }
  }
}
