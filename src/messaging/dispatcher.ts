import { setTimeout as sleep } from 'node:timers/promises';
import type { AccountsService, PriceList } from '../accounts/service.js';
import type { Carriers, SendOutcome } from '../carriers/carrier.js';
import type { Clock } from '../platform/clock.js';
import { sql, type ExpressionBuilder } from 'kysely';
import { updateRowsById, type RowPatch } from '../platform/db/bulk.js';
import { inClaim, lockedForClaim } from '../platform/db/claim.js';
import { statementsRunInParallel } from '../platform/db/concurrency.js';
import type { Db, DbOrTx } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import { parseJson } from '../platform/db/sql.js';
import { isTransactionConflict } from '../platform/db/sql-errors.js';
import type { MessagesTable } from './tables.js';
import type { Logger } from '../platform/logger.js';
import { PollingLoop } from '../platform/polling-loop.js';
import type { Released } from '../platform/instances/registry.js';
import { analyzeSms, splitSms } from '../sms/index.js';
import { statusListenerCheck, type MessageEvents } from './events.js';
import type { LinkTokens } from '../platform/link-tokens.js';
import { Corrections } from '../billing/ledger.js';
import { isTestTraffic, priceMessage } from '../billing/pricing.js';
import { SenderBudget } from './sender-budget.js';
import { decodePlace, deferUntil, type RecipientPlace } from '../schedule/quiet-hours.js';

/** How long an immediate send waits for another claimer's outcome, and how often it looks. */
const CLAIMED_ELSEWHERE_WAIT_MS = 2_000;
const CLAIMED_ELSEWHERE_POLL_MS = 20;

export interface DispatcherOptions {
  /** How long a claimed message belongs to this process; after a crash it is claimed again. */
  leaseMs: number;
  /** Messages claimed per round. */
  claimLimit: number;
  /**
   * Per-sender ceiling, messages per second over every instance (the budget is in the database),
   * so one big batch cannot starve other senders.
   */
  perSenderPerSecond: number;
  /** Pause when nothing is due. */
  idleMs: number;
  /** Attempts for temporary carrier errors before the message FAILS. */
  maxAttempts: number;
  /**
   * Puts link tokens back into the masked text of a message at hand-over (platform/link-tokens.ts). Absent:
   * the text goes out as stored.
   */
  links?: LinkTokens;
  /**
   * The instance this process claims under (src/platform/instances/): claims carry its id, so when its heartbeat
   * stops another instance gives them back at once instead of after the lease. Absent: claims carry none and
   * end with their lease.
   */
  claimer?: { readonly id: string };
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = { leaseMs: 30_000, claimLimit: 1000, perSenderPerSecond: 20_000, idleMs: 200, maxAttempts: 8 };

type Update = Partial<MessagesTable> & { id: string };

/** An SMS to hand over: a standalone one (fallbackReason null) or an RCS message's fallback. */
interface SmsJob {
  row: MessagesTable;
  fallbackReason: string | null;
  rcsOutcome?: SendOutcome;
}

/** An adopted row is sent from memory only while its lease has at least this long to run. */
const ADOPT_MARGIN_MS = 5_000;
/** Adopted rows held in memory at most (one full batch). */
const MAX_ADOPTED = 10_000;

/** A record aborted in a conflict (deadlock) runs again, up to this many times in all, after a short pause. */
const RECORD_ATTEMPTS = 4;
const RECORD_RETRY_MS = 20;

/** A message the carrier could not take ("not ready") is looked at again after this long at the earliest. */
const NOT_READY_RECHECK_MS = 1_000;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface DispatcherDeps {
  db: Db;
  clock: Clock;
  carriers: Carriers;
  /** Prices each message as it is handed over (the account's price list). */
  accounts: Pick<AccountsService, 'priceList'>;
  /** Hears of each status change inside the transaction that made it. */
  events: MessageEvents;
  logger: Logger;
  /** Timing, batch sizes and claims; context.ts starts from DEFAULT_DISPATCHER_OPTIONS. */
  options: DispatcherOptions;
}

/**
 * The durable queue: messages are rows with `pending = 1` and a `due_at`. A round claims due rows
 * by setting a lease, hands each to its carrier with the message id as idempotency key, and
 * records the outcome. Nothing lives only in memory: a crash leaves leased rows that are claimed
 * again when the lease runs out, and the carrier recognises ids it has already taken.
 */
export class Dispatcher {
  private readonly loop: PollingLoop;
  /** The last round left due messages behind because their sender's bucket was empty. */
  private throttled = false;
  private readonly budget: SenderBudget;
  private readonly senderNames = new Map<string, { name: string; isTest: boolean; testPhones: ReadonlySet<string> }>();
  /** Messages a send leased to this process when it committed them (see leaseForNewMessages). */
  private adopted: MessagesTable[] = [];
  /**
   * SMS senders whose carrier answered "not ready" (no link to the network), with when the hold
   * lapses for carriers that cannot say when they are ready again. Their SMS stay queued and are
   * not claimed meanwhile, so an outage costs no writes per message and no attempts.
   */
  private readonly held = new Map<string, number>();
  /**
   * The record of the last round, still running while the loop hands the next round over
   * (statementsRunInParallel: PostgreSQL only). One at a time, in round order; settled (never
   * rejected: a failed record is logged, and its messages are claimed again when the lease runs out).
   */
  private recording: Promise<void> = Promise.resolve();
  private readonly overlapRecords: boolean;
  /** The rows of the round being sent now (claimed or adopted, not recorded yet): their leases are renewed while it runs. */
  private inHand: MessagesTable[] = [];
  /** Decoded messages.quiet_place strings (few distinct ones: country, area code, contact zone, window). */
  private readonly quietPlaces = new Map<string, RecipientPlace | null>();

  constructor(private readonly d: DispatcherDeps) {
    this.budget = new SenderBudget(d.options.perSenderPerSecond);
    this.overlapRecords = statementsRunInParallel(d.db);
    this.loop = new PollingLoop(() => this.runRound(), (err) => this.d.logger.error({ err }, 'dispatcher round failed'), d.options.idleMs);
  }

  start(): void {
    this.loop.start();
  }

  /** Stops claiming and waits for the round in progress and for the record still running. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.recording;
    // Adopted messages not sent yet give their lease back, so a restart sends them at once
    // instead of after the lease. (After a crash nothing runs here: the lease simply runs out.)
    // Only where the lease is still the one adopted: a row whose lease ran out may belong to a
    // claim by now.
    const byLease = new Map<number, string[]>();
    for (const r of this.adopted) {
      const list = byLease.get(r.lease_until ?? 0) ?? [];
      list.push(r.id);
      byLease.set(r.lease_until ?? 0, list);
    }
    this.adopted = [];
    for (const [lease, ids] of byLease) {
      for (let i = 0; i < ids.length; i += 500) {
        await this.d.db
          .updateTable('messages')
          .set((eb) => ({ lease_until: null, claimed_by: null, attempts: eb('attempts', '-', 1) }))
          .where('id', 'in', ids.slice(i, i + 500))
          .where('pending', '=', 1)
          .where('lease_until', '=', lease)
          .execute();
      }
    }
  }

  /** New work was committed: look now instead of after the idle pause. */
  wake(): void {
    this.loop.wake();
  }

  /** The id claims are stamped with (null: none, the lease alone decides). */
  private get claimedBy(): string | null {
    return this.d.options.claimer?.id ?? null;
  }

  /**
   * ClaimHolder (platform/instances/registry.ts): the given instances are dead, so their pending claims become
   * claimable now. The attempt they counted stays counted: the dead instance may have handed the message over
   * (the carrier recognises its id).
   */
  async releaseClaimsOf(instances: readonly string[]): Promise<Released> {
    if (instances.length === 0) return { released: 0, left: 0 };
    const theirs = (eb: ExpressionBuilder<Database, 'messages'>) => eb.and([eb('pending', '=', 1), eb('lease_until', 'is not', null), eb('claimed_by', 'in', instances)]);
    // Rows another transaction holds right now (another survivor giving them back, a record) are skipped, not waited
    // for: the registry asks again at the next heartbeat while any are left (platform/instances/registry.ts Released).
    const released = await this.d.db
      .updateTable('messages')
      .set({ lease_until: null, claimed_by: null })
      .where('id', 'in', (eb) => lockedForClaim(this.d.db, eb.selectFrom('messages').select('id').where(theirs).orderBy('id')))
      .where('pending', '=', 1)
      .where('claimed_by', 'in', instances)
      .executeTakeFirst();
    const n = Number(released.numUpdatedRows);
    if (n > 0) this.wake();
    const left = await this.d.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where(theirs).executeTakeFirstOrThrow();
    return { released: n, left: Number(left.n) };
  }

  /**
   * ClaimHolder: extends the leases of the rows this process still works on — adopted ones waiting for their
   * sender's budget, the round in hand — once half their lease has gone, so a live but slow instance keeps them
   * (a dead one's are given back through its heartbeat instead). Only where the lease is still the one this
   * process holds.
   */
  async renewClaims(): Promise<void> {
    const now = this.d.clock.now();
    const due = now + this.d.options.leaseMs / 2;
    const byLease = new Map<number, MessagesTable[]>();
    for (const r of [...this.inHand, ...this.adopted]) {
      if (r.lease_until === null || r.lease_until > due) continue;
      const list = byLease.get(r.lease_until) ?? [];
      list.push(r);
      byLease.set(r.lease_until, list);
    }
    const until = now + this.d.options.leaseMs;
    for (const [lease, rows] of byLease) {
      for (let i = 0; i < rows.length; i += 500) {
        const part = rows.slice(i, i + 500);
        // Rows a transaction holds right now (this process's own record of them, usually) are skipped rather than
        // waited for: waiting inside a multi-row UPDATE while that record waits for rows this one holds is a deadlock.
        // A skipped row still pending is renewed at the next beat.
        const ids = part.map((r) => r.id);
        const renewed = await this.d.db
          .updateTable('messages')
          .set({ lease_until: until })
          .where('id', 'in', (eb) => lockedForClaim(this.d.db, eb.selectFrom('messages').select('id').where('id', 'in', ids).orderBy('id')))
          .where('pending', '=', 1)
          .where('lease_until', '=', lease)
          .returning('id')
          .execute();
        const done = new Set(renewed.map((r) => r.id));
        for (const r of part) if (done.has(r.id)) r.lease_until = until;
      }
    }
  }

  /** One loop round: at once again while there is work, else until the next due message. */
  private async runRound(): Promise<number> {
    const claimed = await this.round(this.overlapRecords);
    if (claimed > 0) return 0;
    // Due work held back by the per-sender buckets: wait for the next token instead of spinning.
    const throttled = this.throttled ? Math.min(this.d.options.idleMs, Math.max(1, Math.ceil(1000 / this.d.options.perSenderPerSecond))) : null;
    this.throttled = false;
    return throttled ?? (await this.idleDelay());
  }

  /**
   * Sleeps until the next claimable message is due, at most idleMs, so scheduled sends fire on
   * time. Leased rows are skipped (their lease, typically 30 s, is re-checked every idleMs), or a
   * restart after a crash would spin until the old leases run out.
   */
  private async idleDelay(): Promise<number> {
    try {
      const now = this.d.clock.now();
      const held = this.heldSenders(now);
      const next = await this.d.db
        .selectFrom('messages')
        .select('due_at')
        .where('pending', '=', 1)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .$if(held.length > 0, (q) => q.where((eb) => eb.or([eb('type', '!=', 'SMS'), eb('sendername_id', 'not in', held)])))
        .orderBy('due_at')
        .limit(1)
        .executeTakeFirst();
      if (!next) return this.d.options.idleMs;
      return Math.max(0, Math.min(this.d.options.idleMs, next.due_at - now));
    } catch {
      return this.d.options.idleMs;
    }
  }

  /**
   * A send that is about to commit messages due now asks for a lease on them, so this process can
   * send them from memory (adopt) instead of reading them back and claiming them with a second
   * write of every row. Returns the lease to store on the rows (lease_until, attempts 1) and how
   * many of them the sender's current budget covers; the rest are claimed from the table as usual.
   * The budget is read in the send's transaction (`db`) but nothing is taken from it yet: adopt()
   * takes it when it sends, so a send that rolls back or a slow commit holds no tokens (and, on
   * PostgreSQL, no lock on the sender's budget row for the length of the send).
   */
  async leaseForNewMessages(db: DbOrTx, senderId: string, count: number): Promise<{ count: number; leaseUntil: number; claimedBy: string | null }> {
    if (this.loop.isStopped || count <= 0) return { count: 0, leaseUntil: 0, claimedBy: null };
    const now = this.d.clock.now();
    const available = await this.budget.available(db, senderId, now);
    return { count: Math.max(0, Math.min(count, available, MAX_ADOPTED - this.adopted.length)), leaseUntil: now + this.d.options.leaseMs, claimedBy: this.claimedBy };
  }

  /**
   * Takes over committed messages that carry a lease from leaseForNewMessages. They are sent in
   * the next rounds; if this process dies first, their lease runs out and any worker claims them.
   */
  adopt(rows: readonly MessagesTable[]): void {
    if (rows.length === 0) return;
    this.adopted.push(...rows);
    this.wake();
  }

  /**
   * The next adopted rows to send, within the per-sender budgets. A row whose lease is about to
   * run out is dropped here: it will be claimed from the table like any other (and the carrier
   * recognises it by id if it was handed over already).
   */
  private async takeAdopted(now: number): Promise<MessagesTable[]> {
    if (this.adopted.length === 0) return [];
    const all = this.adopted;
    const known = all.length;
    const live = all.filter((row) => (row.lease_until ?? 0) >= now + ADOPT_MARGIN_MS);
    const round = live.slice(0, this.d.options.claimLimit);
    const budget = await this.budget.take(this.d.db, countBySender(round), now);
    const take: MessagesTable[] = [];
    const keep: MessagesTable[] = [];
    for (const row of round) {
      const left = budget.get(row.sendername_id)!;
      if (left <= 0) {
        keep.push(row);
        this.throttled = true;
        continue;
      }
      budget.set(row.sendername_id, left - 1);
      take.push(row);
    }
    // adopt() appends to the same array: rows adopted during the take wait for the next round.
    this.adopted = [...keep, ...live.slice(round.length), ...all.slice(known)];
    return take;
  }

  /** One round: adopted messages first, else claim what is due (within per-sender budgets); send, record. Returns how many were sent. */
  async tick(): Promise<number> {
    return this.round(false);
  }

  /**
   * A round; with `overlap` its record is left running (this.recording) when it returns, so the
   * loop's next round hands its messages over meanwhile, on another connection. A round's record
   * waits for the previous one's, so at most one record runs beside one hand-over.
   */
  private async round(overlap: boolean): Promise<number> {
    const now = this.d.clock.now();
    let rows = await this.takeAdopted(now);
    if (rows.length === 0) rows = await this.claimDue(now);
    if (rows.length === 0) return 0;
    this.inHand = rows;
    const updates = await this.send(rows);
    await this.recording;
    if (!overlap) {
      await this.record(rows, updates).finally(() => this.letGo(rows));
    } else {
      this.recording = this.record(rows, updates)
        .catch((err: unknown) => this.d.logger.error({ err, messages: rows.length }, 'dispatcher could not record a round (its messages are claimed again when their lease runs out)'))
        .finally(() => this.letGo(rows));
    }
    return rows.length;
  }

  /** The round's rows are recorded (or their record failed): their leases are no longer renewed. */
  private letGo(rows: MessagesTable[]): void {
    if (this.inHand === rows) this.inHand = [];
  }

  /**
   * Claims the oldest due messages within their senders' budgets: the candidates, the budget per
   * sender, the lease. On PostgreSQL in one transaction whose candidate SELECT locks its rows FOR
   * NO KEY UPDATE SKIP LOCKED, so instances claiming at the same moment take different rows and
   * candidates over a budget are unlocked at the commit; on SQLite statement by statement as
   * before, the lease UPDATE's own conditions keeping a row from being claimed twice
   * (platform/db/claim.ts).
   */
  private async claimDue(now: number): Promise<MessagesTable[]> {
    const held = this.heldSenders(now);
    return inClaim(this.d.db, async (tx) => {
      const candidates = await lockedForClaim(
        tx,
        tx
          .selectFrom('messages')
          .select(['id', 'sendername_id'])
          .where('pending', '=', 1)
          .where('due_at', '<=', now)
          .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
          .$if(held.length > 0, (q) => q.where((eb) => eb.or([eb('type', '!=', 'SMS'), eb('sendername_id', 'not in', held)])))
          .orderBy('due_at')
          .limit(this.d.options.claimLimit),
      ).execute();
      if (candidates.length === 0) return [];
      const budget = await this.budget.take(tx, countBySender(candidates), now);
      const ids: string[] = [];
      for (const c of candidates) {
        const left = budget.get(c.sendername_id)!;
        if (left <= 0) continue;
        budget.set(c.sendername_id, left - 1);
        ids.push(c.id);
      }
      if (ids.length < candidates.length) this.throttled = true;
      return ids.length === 0 ? [] : this.claim(tx, ids, now);
    });
  }

  /**
   * Sends one message right away (immediate single sends answer with the real outcome). Returns
   * the row after the attempt, or null when another worker holds it.
   */
  async dispatchNow(id: string): Promise<MessagesTable | null> {
    const now = this.d.clock.now();
    const row = await this.d.db.selectFrom('messages').select(['sendername_id', 'due_at', 'pending']).where('id', '=', id).executeTakeFirst();
    if (!row || row.pending !== 1 || row.due_at > now) return this.load(id);
    if ((await this.budget.take(this.d.db, new Map([[row.sendername_id, 1]]), now)).get(row.sendername_id)! < 1) {
      this.wake();
      return this.load(id);
    }
    const claimed = await this.claim(this.d.db, [id], now);
    if (claimed.length === 0) return this.awaitOtherClaim(id);
    await this.record(claimed, await this.send(claimed));
    return this.load(id);
  }

  /**
   * The row was claimed elsewhere between the send's commit and dispatchNow (this process's loop
   * woke, or another instance's): that claimer is handing it over right now, so the caller waits
   * for its outcome instead of answering "queued" for a message that is a moment from SENT. Real
   * time, bounded: a claimer that died holds its lease far longer, and then the honest answer is
   * the pending row.
   */
  private async awaitOtherClaim(id: string): Promise<MessagesTable | null> {
    const until = Date.now() + CLAIMED_ELSEWHERE_WAIT_MS;
    for (;;) {
      const row = await this.load(id);
      // A released lease (null, or run out) means that claimer has finished without sending
      // (deferred for a retry, or given back): the row is honestly queued now.
      if (!row || row.pending !== 1) return row;
      const released = row.lease_until === null || row.lease_until <= this.d.clock.now();
      if (released || Date.now() >= until) return row;
      await sleep(CLAIMED_ELSEWHERE_POLL_MS);
    }
  }

  private async load(id: string): Promise<MessagesTable | null> {
    return (await this.d.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  }

  /** Leases the given rows where they are still claimable (`db`: the claim's transaction, or the database for one row). */
  private async claim(db: DbOrTx, ids: string[], now: number): Promise<MessagesTable[]> {
    const out: MessagesTable[] = [];
    const claimable = (eb: ExpressionBuilder<Database, 'messages'>) => eb.and([eb('pending', '=', 1), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])]);
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500);
      // A claimed scheduled message is SENDING from now on: it can no longer be cancelled by id
      // (§3.1). Separate statement, so rows that are SENDING already do not rewrite their indexes.
      await db.updateTable('messages').set({ status: 'SENDING' }).where('id', 'in', part).where('status', '=', 'SCHEDULED').where(claimable).execute();
      // The conditions repeat the candidate query so that a row another worker claimed in between
      // is not claimed twice (dispatchNow claims without a locked candidate query).
      const rows = await db
        .updateTable('messages')
        .set((eb) => ({ lease_until: now + this.d.options.leaseMs, claimed_by: this.claimedBy, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', part)
        .where(claimable)
        .returningAll()
        .execute();
      out.push(...rows);
    }
    return out;
  }

  /**
   * Sends one claimed round: capability checks, then every RCS message in one hand-over, then
   * every SMS (standalone and fallbacks) in another; returns the outcomes for record(), which
   * stores them all in one transaction. The event loop gets a turn before the hand-over, so HTTP
   * requests are answered during a round; on SQLite, from the hand-over to the record it gets
   * none unless a carrier does I/O, so receipts of the simulated network (on this event loop)
   * find the outcome recorded instead of being deferred and read again.
   */
  private async send(rows: MessagesTable[]): Promise<Update[]> {
    const updates: Update[] = [];
    const priceLists = new Map<string, PriceList>();
    const rcs: MessagesTable[] = [];
    const sms: SmsJob[] = [];
    const now = this.d.clock.now();
    const quietOpenings = new Map<string, number | null>();
    for (const row of rows) {
      try {
        // Quiet hours (issue #28): judged at accept time for the planned time; a message that reaches the hand-over
        // after its recipient's window closed (a backlog, a carrier outage, retries) waits for the next opening.
        if (row.quiet_place !== null) {
          const opening = this.quietOpening(row.quiet_place, now, quietOpenings);
          if (opening !== null) {
            updates.push({ id: row.id, status: 'SCHEDULED', due_at: opening, scheduled_at: opening, lease_until: null, attempts: Math.max(0, row.attempts - 1) });
            continue;
          }
        }
        if (row.type === 'SMS') sms.push({ row, fallbackReason: null });
        // Decided at accept time when the country has no RCS price (fallback_used already 1).
        else if (row.fallback_used === 1) sms.push({ row, fallbackReason: row.fallback_reason ?? 'RCS_COUNTRY_NOT_SUPPORTED' });
        else {
          const cap = await this.d.carriers.rcs.capability(`+${row.phone}`, row.sendername_id);
          if (cap.rcs) rcs.push(row);
          else sms.push({ row, fallbackReason: cap.reason === 'UNREACHABLE' ? 'UNREACHABLE' : 'RCS_NOT_SUPPORTED' });
        }
      } catch (err) {
        updates.push(this.internalError(row, err));
      }
    }
    await yieldToEventLoop();

    if (rcs.length > 0) {
      const outcomes = await this.handOver(rcs, async (list) => {
        const names = await this.senderNamesOf(list.map((row) => row.sendername_id));
        return this.d.carriers.rcs.sendMany(
          list.map((row) => ({
            messageId: row.id,
            accountId: row.account_id,
            senderId: row.sendername_id,
            senderName: names.get(row.sendername_id)!,
            to: `+${row.phone}`,
            messageType: row.message_type ?? 'text',
            content: parseJson<Record<string, unknown>>(this.reveal(row.content, row.id), {}),
          })),
        );
      });
      rcs.forEach((row, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) updates.push(this.sent(row, outcome.carrierMessageId, 'RCS'));
        else if (outcome.notReady) updates.push(this.deferred(row, outcome));
        else if (outcome.retryable && row.attempts < this.d.options.maxAttempts) updates.push(this.retryOrFail(row, outcome));
        else sms.push({ row, fallbackReason: `RCS_FAILED: ${outcome.code}`, rcsOutcome: outcome });
      });
    }

    // SMS: standalone messages and fallbacks. A fallback without smsFallback fails here.
    const handOver: { job: SmsJob; fallback: { message: string; sendernameId: string } | null }[] = [];
    for (const job of sms) {
      if (job.fallbackReason === null) {
        handOver.push({ job, fallback: null });
        continue;
      }
      const fallback = parseJson<{ message: string; sendernameId: string } | null>(job.row.sms_fallback, null);
      if (!fallback || job.row.fallback_text === null) {
        const o = job.rcsOutcome;
        const why = o && !o.ok ? `${o.code}: ${o.reason}` : job.fallbackReason === 'UNREACHABLE' ? 'The number is unreachable' : 'The number cannot receive RCS and no smsFallback was given';
        updates.push(this.failed(job.row, why));
        continue;
      }
      handOver.push({ job, fallback });
    }
    if (handOver.length > 0) {
      const outcomes = await this.handOver(handOver, async (list) => {
        const senderOf = ({ job, fallback }: (typeof list)[number]) => (fallback ? fallback.sendernameId : job.row.sendername_id);
        const names = await this.senderNamesOf(list.map(senderOf));
        return this.d.carriers.sms.sendMany(
          list.map((item) => {
            const { job, fallback } = item;
            const text = this.reveal(fallback ? job.row.fallback_text! : job.row.text, job.row.id);
            const senderId = senderOf(item);
            return {
              messageId: job.row.id,
              accountId: job.row.account_id,
              senderId,
              senderName: names.get(senderId)!,
              to: `+${job.row.phone}`,
              text,
              parts: splitSms(text).map((p) => p.text),
              encoding: fallback ? analyzeSms(text).encoding : ((job.row.sms_encoding ?? 'GSM-7') as 'GSM-7' | 'Unicode'),
            };
          }),
        );
      });
      for (let i = 0; i < handOver.length; i++) {
        const { job, fallback } = handOver[i]!;
        const outcome = outcomes[i]!;
        const row = job.row;
        if (!outcome.ok && outcome.notReady) {
          // The SMS network cannot take it now: queued as it was (a fallback retries its whole route later).
          this.hold(fallback ? fallback.sendernameId : row.sendername_id);
          updates.push(this.deferred(row, outcome));
          continue;
        }
        if (!fallback) {
          updates.push(outcome.ok ? this.sent(row, outcome.carrierMessageId, 'SMS') : this.retryOrFail(row, outcome));
          continue;
        }
        const facts = analyzeSms(row.fallback_text!);
        const base: Update = { id: row.id, fallback_used: 1, fallback_reason: job.fallbackReason, sms_segments: facts.segments, sms_encoding: facts.encoding };
        if (!outcome.ok) {
          // A temporary failure retries the whole route later (capability, RCS, then fallback).
          updates.push(outcome.retryable && row.attempts < this.d.options.maxAttempts ? this.retryOrFail(row, outcome) : { ...this.failed(row, `${outcome.code}: ${outcome.reason}`), ...base, id: row.id });
          continue;
        }
        // The fallback is billed as SMS segments instead of the RCS price charged at accept time
        // (rows that were SMS-only from the start were priced as SMS already). That includes RCS
        // messages that were free in an open conversation window: windows cover RCS only. A test
        // sender's test phones stay free.
        let cost = row.credits_cost_milli ?? 0;
        if (row.fallback_used !== 1) {
          const list = priceLists.get(row.account_id) ?? (await this.d.accounts.priceList(row.account_id));
          priceLists.set(row.account_id, list);
          const testTraffic = isTestTraffic(await this.sender(row.sendername_id), row.phone);
          cost = priceMessage(list, { channel: 'SMS', country: row.country ?? '', segments: facts.segments, testTraffic, inOpenWindow: false, outcome: 'sent' }).milli ?? cost;
        }
        updates.push({ ...this.sent(row, outcome.carrierMessageId, 'SMS'), ...base, id: row.id, credits_cost_milli: cost });
      }
    }
    return updates;
  }

  /** When a message with this quiet_place may go out, null: now. Computed once per place and round (`now` is the round's). */
  private quietOpening(encoded: string, now: number, round: Map<string, number | null>): number | null {
    let opening = round.get(encoded);
    if (opening !== undefined) return opening;
    let place = this.quietPlaces.get(encoded);
    if (place === undefined) {
      place = decodePlace(encoded);
      if (this.quietPlaces.size < 10_000) this.quietPlaces.set(encoded, place);
    }
    opening = place ? deferUntil(place, now) : null;
    round.set(encoded, opening);
    return opening;
  }

  /** The text the recipient gets: masked link tokens filled in (only messages that carry one do any work). */
  private reveal<T extends string | null>(text: T, messageId: string): T {
    const links = this.d.options.links;
    return (text === null || !links ? text : links.reveal(text, messageId)) as T;
  }

  /** One carrier call for many messages; a thrown error makes every one of them retry later. */
  private async handOver<T>(items: T[], send: (items: T[]) => Promise<SendOutcome[]>): Promise<SendOutcome[]> {
    try {
      const outcomes = await send(items);
      if (outcomes.length !== items.length) throw new Error(`carrier answered ${outcomes.length} outcomes for ${items.length} messages`);
      return outcomes;
    } catch (err) {
      // A bug or an unexpected carrier failure must not lose the messages: release them for a retry.
      this.d.logger.error({ err, messages: items.length }, 'carrier hand-over failed');
      return items.map(() => ({ ok: false, retryable: true, code: 'INTERNAL', reason: 'Internal error while sending' }));
    }
  }

  private internalError(row: MessagesTable, err: unknown): Update {
    this.d.logger.error({ err, messageId: row.id }, 'dispatch failed');
    return this.retryOrFail(row, { ok: false, retryable: true, code: 'INTERNAL', reason: 'Internal error while sending' });
  }

  private sent(row: MessagesTable, carrierMessageId: string, method: 'RCS' | 'SMS'): Update {
    const now = this.d.clock.now();
    return { id: row.id, status: 'SENT', method, sent_at: now, pending: 0, lease_until: null, carrier_message_id: carrierMessageId, error: null };
  }

  private failed(row: MessagesTable, error: string): Update {
    return { id: row.id, status: 'FAILED', failed_at: this.d.clock.now(), pending: 0, lease_until: null, error };
  }

  /**
   * The carrier was not ready (no link to its network): the message stays queued as if this
   * round had not claimed it — the attempt is not counted, so an outage of any length fails
   * nothing — and is looked at again once its carrier is ready.
   */
  private deferred(row: MessagesTable, outcome: Extract<SendOutcome, { ok: false }>): Update {
    return { id: row.id, due_at: Math.max(row.due_at, this.d.clock.now() + NOT_READY_RECHECK_MS), lease_until: null, attempts: Math.max(0, row.attempts - 1), error: `${outcome.code}: ${outcome.reason}` };
  }

  private hold(senderId: string): void {
    this.held.set(senderId, this.d.clock.now() + NOT_READY_RECHECK_MS);
  }

  /** Senders still held: the carrier says not ready yet (or, without isReady, the hold has not lapsed). */
  private heldSenders(now: number): string[] {
    if (this.held.size === 0) return [];
    for (const [senderId, lapses] of this.held) {
      const ready = this.d.carriers.sms.isReady?.(senderId);
      if (ready === true || (ready === undefined && now >= lapses)) this.held.delete(senderId);
    }
    return [...this.held.keys()];
  }

  /** Temporary errors wait and try again (exponential backoff, up to maxAttempts). */
  private retryOrFail(row: MessagesTable, outcome: Extract<SendOutcome, { ok: false }>): Update {
    if (!outcome.retryable || row.attempts >= this.d.options.maxAttempts) return this.failed(row, `${outcome.code}: ${outcome.reason}`);
    const backoff = Math.min(10 * 60_000, 1000 * 2 ** (row.attempts - 1)) * (0.75 + Math.random() * 0.5);
    return { id: row.id, due_at: this.d.clock.now() + Math.round(backoff), lease_until: null, error: `${outcome.code}: ${outcome.reason} (will retry)` };
  }

  /**
   * Records a round in one transaction: the rows (grouped UPDATEs, only where still pending, so
   * a row recorded by another worker after a lost lease is not recorded twice), the credit
   * corrections per account (a FAILED message is refunded; a fallback's SMS price replaces the
   * RCS price), and the status events.
   */
  private async record(rows: MessagesTable[], updates: Update[]): Promise<void> {
    if (updates.length === 0) return;
    // A record the database aborted in a conflict (a deadlock with another instance's statement) kept nothing: it
    // runs again at once, rather than leaving messages the carrier has taken pending until their lease runs out.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.recordOnce(rows, updates);
      } catch (err) {
        if (!isTransactionConflict(err) || attempt >= RECORD_ATTEMPTS) throw err;
        this.d.logger.warn({ err, attempt, messages: rows.length }, 'dispatcher record met a conflict; recording again');
        await sleep(RECORD_RETRY_MS * attempt);
      }
    }
  }

  private async recordOnce(rows: MessagesTable[], updates: Update[]): Promise<void> {
    const byId = new Map(rows.map((r) => [r.id, r]));
    await this.d.db.transaction().execute(async (tx) => {
      const patchOf = new Map<string, Update>();
      for (const u of updates) {
        const before = byId.get(u.id)!;
        // A message that never left is not charged (priceMessage: outcome 'failed').
        patchOf.set(u.id, u.status === 'FAILED' && (before.credits_cost_milli ?? 0) !== 0 ? { ...u, credits_cost_milli: 0 } : u);
      }
      const updated = await updateRowsById(tx, 'messages', [...patchOf.values()] as RowPatch[], sql`pending = 1`);
      // Only rows this round recorded (still pending) move money: one ledger entry per account, kind and job.
      const corrections = new Corrections();
      for (const id of updated) {
        const before = byId.get(id)!;
        const patch = patchOf.get(id)!;
        const giveBack = patch.credits_cost_milli === undefined ? 0 : (before.credits_cost_milli ?? 0) - (patch.credits_cost_milli ?? 0);
        if (giveBack === 0) continue;
        const failed = patch.status === 'FAILED';
        corrections.add({
          accountId: before.account_id,
          kind: failed ? 'refund' : 'reprice',
          amountMilli: giveBack,
          reason: failed ? 'Refund: message failed' : 'Re-priced: sent by SMS fallback, billed by segments',
          messageId: id,
          jobId: before.job_id,
        });
      }
      await corrections.write(tx, this.d.clock.now());
      const listens = statusListenerCheck(this.d.events, tx);
      for (const id of updated) {
        const before = byId.get(id)!;
        const patch = patchOf.get(id)!;
        if (patch.status === undefined || patch.status === before.status) continue;
        if (await listens(before.account_id)) await this.d.events.statusChanged(tx, { ...before, ...patch }, before.status);
      }
    });
  }

  /** Display names of the senders of a round, looked up once per sender rather than once per message. */
  private async senderNamesOf(ids: readonly string[]): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    for (const id of ids) if (!names.has(id)) names.set(id, (await this.sender(id)).name);
    return names;
  }

  private async sender(id: string): Promise<{ name: string; isTest: boolean; testPhones: ReadonlySet<string> }> {
    let info = this.senderNames.get(id);
    if (info === undefined) {
      const row = await this.d.db.selectFrom('senders').select(['name', 'is_test', 'test_phones']).where('id', '=', id).executeTakeFirst();
      info = { name: row?.name ?? id, isTest: row?.is_test === 1, testPhones: new Set(row?.is_test === 1 ? parseJson<string[]>(row.test_phones, []) : []) };
      this.senderNames.set(id, info);
    }
    return info;
  }
}

/** How many of the rows each sender has. */
function countBySender(rows: readonly { sendername_id: string }[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const r of rows) n.set(r.sendername_id, (n.get(r.sendername_id) ?? 0) + 1);
  return n;
}
