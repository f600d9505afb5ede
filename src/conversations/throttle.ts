import type { Clock } from '../platform/clock.js';
import type { Db, DbOrTx } from '../platform/db/database.js';
import { lockForTransaction } from '../platform/db/locks.js';
import { listRows } from '../platform/db/sql.js';
import type { RecipientThrottle } from '../messaging/recipients.js';

export interface ThrottleOptions {
  /** Messages one account may queue to one number within `windowMs`; 0 switches the throttle off. */
  max: number;
  windowMs: number;
}

export interface RateLimitState {
  enabled: boolean;
  limit: number;
  windowMs: number;
  /** Outbound messages of the account to the number accepted inside the current window. */
  used: number;
  remaining: number;
  limited: boolean;
  /** When the oldest counted message leaves the window (a slot frees); null when none is counted. */
  resetAt: number | null;
  /** Milliseconds until the next message would be accepted; 0 when one would be now. */
  retryAfterMs: number;
}

/** Up to this many numbers are looked up directly. */
const SMALL = 50;

export interface RecipientRateLimiterDeps {
  db: Db;
  clock: Clock;
  /** The limit (config.recipientRateLimit); max 0 turns it off. */
  options: ThrottleOptions;
}

/**
 * The per-recipient throttle (docs/decisions.md "Engagement"): at most `max` outbound messages of
 * one account to one number per rolling `windowMs`, counted at accept time (immediate and
 * scheduled alike; cancelled messages free their slot, failed ones do not). It guards people
 * against runaway loops — an assistant repeating a send, a misconfigured integration. Counted in
 * the database, so it holds across restarts and instances.
 */
export class RecipientRateLimiter implements RecipientThrottle {
  constructor(private readonly d: RecipientRateLimiterDeps) {}

  get enabled(): boolean {
    return this.d.options.max > 0;
  }

  /** Numbers of `phones` that may not get another message now (for the send path). */
  async limited(tx: DbOrTx, accountId: string, phones: readonly string[]): Promise<ReadonlyMap<string, { reason: string; retryAfterSeconds: number }>> {
    const out = new Map<string, { reason: string; retryAfterSeconds: number }>();
    if (!this.enabled || phones.length === 0) return out;
    await this.serialise(tx, accountId, phones);
    const now = this.d.clock.now();
    const since = now - this.d.options.windowMs;
    const full: string[] = [];
    // How many messages the account has in the window at all (an index-only count, both
    // directions: an upper bound). Fewer than the limit: nobody can be at it. Otherwise pick the
    // cheaper query: scan the account's recent messages (when they are fewer than the numbers
    // asked about — a big batch from a quiet account) or look the numbers up one chunk at a time.
    // (Single sends skip the count: their look-up is one small query anyway.)
    const recent =
      phones.length <= SMALL
        ? Infinity
        : Number((await tx.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).where('created_at', '>', since).executeTakeFirst())?.n ?? 0);
    if (recent < this.d.options.max) return out;
    if (recent <= phones.length) {
      const wanted = new Set(phones);
      const rows = await tx
        .selectFrom('messages')
        .select('phone')
        .where('account_id', '=', accountId)
        .where('created_at', '>', since)
        .where('direction', '=', 'OUTBOUND')
        .groupBy('phone')
        .having((eb) => eb.fn.countAll(), '>=', this.d.options.max)
        .execute();
      for (const r of rows) if (wanted.has(r.phone)) full.push(r.phone);
    } else {
      // One statement for any number of phones, driven by the list: a count per number through the
      // (account_id, phone, created_at) index reads only that number's messages in the window,
      // however long its history is. Driven by the list, not joined to it: on PostgreSQL a join's
      // plan follows the statistics of messages, which lag right after a big batch (an account
      // estimated at 54 rows in the window had 53,000, and the semi join chosen for 54 took 35 s).
      const rows = await tx
        .selectFrom(listRows(tx, phones).as('p'))
        .select('p.value as phone')
        .where(
          (eb) =>
            eb
              .selectFrom('messages')
              .select(eb.fn.countAll<number>().as('n'))
              .where('account_id', '=', accountId)
              .whereRef('messages.phone', '=', 'p.value')
              .where('direction', '=', 'OUTBOUND')
              .where('created_at', '>', since),
          '>=',
          this.d.options.max,
        )
        .execute();
      for (const r of rows) full.push(r.phone);
    }
    for (const phone of full) {
      const state = await this.state(accountId, phone, tx, now);
      const retryAfterSeconds = Math.max(1, Math.ceil(state.retryAfterMs / 1000));
      out.set(phone, {
        reason: `+${phone} already got ${state.used} message(s) from this account in the last ${minutes(this.d.options.windowMs)} (limit ${this.d.options.max} per recipient); try again in ${retryAfterSeconds} s`,
        retryAfterSeconds,
      });
    }
    return out;
  }

  /**
   * Counting and then inserting is safe only if no other transaction counts the same numbers in
   * between: on PostgreSQL two instances would both see the last free slot and both take it. The
   * accepting transaction (`tx`, which inserts the messages) holds a lock until it commits: a
   * small send locks the account shared and each of its numbers exclusively, so sends to other
   * numbers go on side by side; a bigger one locks the whole account exclusively rather than
   * thousands of numbers (PostgreSQL's lock table holds about 64 per connection). The count then
   * reads after the lock is granted, so it sees every message committed before.
   */
  private async serialise(tx: DbOrTx, accountId: string, phones: readonly string[]): Promise<void> {
    if (phones.length > SMALL) return lockForTransaction(tx, 'recipientThrottle', [accountId]);
    await lockForTransaction(tx, 'recipientThrottle', [accountId], 'shared');
    await lockForTransaction(tx, 'recipientThrottle', phones.map((p) => `${accountId}|${p}`));
  }

  /** The throttle's state for one number (GET /conversations/{phoneNumber}/rate-limit). */
  async state(accountId: string, phone: string, tx: DbOrTx = this.d.db, now = this.d.clock.now()): Promise<RateLimitState> {
    const { max, windowMs } = this.d.options;
    const times = (
      await tx
        .selectFrom('messages')
        .select('created_at')
        .where('account_id', '=', accountId)
        .where('phone', '=', phone)
        .where('direction', '=', 'OUTBOUND')
        .where('created_at', '>', now - windowMs)
        .orderBy('created_at')
        .execute()
    ).map((r) => r.created_at);
    const used = times.length;
    if (max === 0) return { enabled: false, limit: 0, windowMs, used, remaining: 0, limited: false, resetAt: null, retryAfterMs: 0 };
    const limited = used >= max;
    // A slot frees when enough of the oldest messages have left the window to get below max.
    const freeingAt = limited ? times[used - max]! + windowMs : null;
    return {
      enabled: true,
      limit: max,
      windowMs,
      used,
      remaining: Math.max(0, max - used),
      limited,
      resetAt: used > 0 ? times[0]! + windowMs : null,
      retryAfterMs: freeingAt === null ? 0 : Math.max(0, freeingAt - now),
    };
  }
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m === 60 ? 'hour' : `${m} minutes`;
}
