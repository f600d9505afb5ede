import { jsonList, selectRowsViaJson } from '../../platform/db/sql.js';
import type { Clock } from '../../platform/clock.js';
import { sql } from 'kysely';
import { insertRowsAsJson } from '../../platform/db/bulk.js';
import { inClaim, lockedForClaim } from '../../platform/db/claim.js';
import type { Db, DbOrTx } from '../../platform/db/database.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/logger.js';
import type { SimMessagesTable } from '../tables.js';
import type { Capability, CarrierEvent, CarrierEventSink, Carriers, OutboundRcs, OutboundSms, RcsCarrier, SendOutcome, SmsCarrier } from '../carrier.js';
import type { LinkTokens } from '../../platform/link-tokens.js';
import { simBehaviour } from './numbers.js';

export interface SimulatedOptions {
  deliveryDelayMs: number;
  readDelayMs: number;
  /** How often due receipts are looked for. */
  tickMs?: number;
  /**
   * The store is in our database, so link tokens the handset received are masked again there and
   * the virtual phone reveals them when it shows the message (src/platform/link-tokens.ts).
   */
  links?: LinkTokens | null;
}

/**
 * A carrier network in the database: what each number received (for the virtual phone), with
 * delivery and read receipts that fire after the configured delays — also after a restart,
 * because their due times are stored, not held in timers.
 */
export class SimulatedNetwork implements Carriers {
  readonly rcs: RcsCarrier;
  readonly sms: SmsCarrier;
  private timer: NodeJS.Timeout | null = null;
  /** When the timer fires (this.clock's ms), Infinity without one. */
  private timerAt = Infinity;
  private sink: CarrierEventSink | null = null;
  private tickInFlight: Promise<void> | null = null;
  /** A wake-up asked for while a tick ran: look again right after it. */
  private kickAgain = false;
  /** The shortest spacing of two ticks (receipts come in batches). */
  private readonly pollMs: number;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: SimulatedOptions,
  ) {
    // Half the shorter delay, 20–250 ms; without delays 25 ms, so receipts come in batches (a
    // receipt can only be applied once the engine has recorded the hand-over anyway).
    const shortest = Math.min(options.deliveryDelayMs, options.readDelayMs);
    this.pollMs = options.tickMs ?? (shortest === 0 ? 25 : Math.max(20, Math.min(250, Math.floor(shortest / 2))));
    const links = options.links ?? null;
    // JSON escapes nothing in a link path or token, so masking the JSON text masks the content.
    const rcsPayload = (m: OutboundRcs) => {
      const json = JSON.stringify({ messageType: m.messageType, content: m.content });
      return links ? links.mask(json, m.messageId) : json;
    };
    const smsPayload = (m: OutboundSms) => {
      const text = links ? links.mask(m.text, m.messageId) : m.text;
      // A mask is as long as the token, so the parts are cut at the same places (a token may straddle two).
      let at = 0;
      const parts = text === m.text ? m.parts : m.parts.map((p) => text.slice(at, (at += p.length)));
      return JSON.stringify({ text, parts, encoding: m.encoding });
    };
    this.rcs = {
      name: 'simulated',
      capability: async (to) => this.capability(to),
      send: async (m) => (await this.accept('RCS', [m], rcsPayload))[0]!,
      sendMany: (ms) => this.accept('RCS', ms, rcsPayload),
    };
    this.sms = {
      name: 'simulated',
      send: async (m) => (await this.accept('SMS', [m], smsPayload))[0]!,
      sendMany: (ms) => this.accept('SMS', ms, smsPayload),
    };
  }

  private capability(to: string): Capability {
    const b = simBehaviour(to);
    if (b === 'no_rcs') return { rcs: false, reason: 'RCS_NOT_SUPPORTED' };
    if (b === 'unreachable') return { rcs: false, reason: 'UNREACHABLE' };
    return { rcs: true };
  }

  /** Whether the network takes the message; null when it does, else the refusal. */
  private refusal(channel: 'RCS' | 'SMS', to: string): SendOutcome | null {
    const behaviour = simBehaviour(to);
    if (behaviour === 'unreachable') return { ok: false, retryable: false, code: 'SIM_UNREACHABLE', reason: 'The number is not reachable' };
    if (channel === 'RCS' && behaviour === 'rcs_fails') return { ok: false, retryable: false, code: 'SIM_RCS_DELIVERY_FAILED', reason: 'RCS delivery failed at the carrier' };
    if (channel === 'RCS' && behaviour === 'no_rcs') return { ok: false, retryable: false, code: 'SIM_RCS_NOT_SUPPORTED', reason: 'The device does not support RCS' };
    return null;
  }

  /**
   * Stores the messages the network takes, one statement per 1,000. The message id is
   * unique here: a second hand-over of the same message (after a crash) is answered with the first
   * one's carrier id and nothing is delivered again. The no-op DO UPDATE makes RETURNING yield the
   * existing row on a conflict (SQLite ≥ 3.35 and PostgreSQL both support this form).
   */
  private async accept<M extends OutboundRcs | OutboundSms>(channel: 'RCS' | 'SMS', messages: readonly M[], payloadOf: (m: M) => string): Promise<SendOutcome[]> {
    const outcomes = new Array<SendOutcome>(messages.length);
    const now = this.clock.now();
    const rows: SimMessagesTable[] = [];
    const index = new Map<string, number[]>();
    messages.forEach((m, i) => {
      const refused = this.refusal(channel, m.to);
      if (refused) {
        outcomes[i] = refused;
        return;
      }
      const seen = index.get(m.messageId);
      if (seen) {
        seen.push(i);
        return;
      }
      index.set(m.messageId, [i]);
      const behaviour = simBehaviour(m.to);
      rows.push({
        id: newId('sub', now).replace('sub_', 'sim_'),
        message_id: m.messageId,
        account_id: m.accountId,
        channel,
        sender_id: m.senderId,
        sender_name: m.senderName,
        to_phone: m.to,
        payload: payloadOf(m),
        created_at: now,
        deliver_due: now + this.options.deliveryDelayMs,
        read_due: behaviour === 'never_read' || behaviour === 'delivery_fails' ? null : now + this.options.deliveryDelayMs + this.options.readDelayMs,
        delivered_at: null,
        read_at: null,
        failed_at: null,
      });
    });
    const stored = await insertRowsAsJson<SimMessagesTable, { id: string; message_id: string }>(this.db, 'sim_messages', rows, { suffix: ACCEPT_UPSERT });
    if (rows.length > 0) this.wakeAt(Math.max(now + this.options.deliveryDelayMs, this.clock.now() + this.pollMs));
    for (const r of stored) for (const k of index.get(r.message_id) ?? []) outcomes[k] = { ok: true, carrierMessageId: r.id };
    for (let i = 0; i < outcomes.length; i++) {
      outcomes[i] ??= { ok: false, retryable: true, code: 'SIM_INTERNAL', reason: 'The simulated network did not confirm the message' };
    }
    return outcomes;
  }

  /**
   * The virtual phone: the person at `from` (E.164) writes to one of our senders. Raised through
   * the sink exactly as a real network raises an incoming message (kind `inbound`).
   */
  async userReply(input: { from: string; senderId: string; channel: 'RCS' | 'SMS'; text: string; unsubscribeChip?: boolean }): Promise<void> {
    const sink = this.requireSink();
    const now = this.clock.now();
    await sink([
      {
        kind: 'inbound',
        channel: input.channel,
        from: input.from,
        senderId: input.senderId,
        text: input.text,
        at: now,
        carrierMessageId: newId('sub', now).replace('sub_', 'sim_'),
        ...(input.unsubscribeChip ? { unsubscribeChip: true } : {}),
      },
    ]);
  }

  /**
   * The virtual phone: the person taps a reply chip, a card postback button or an action of the
   * message `messageId` (our msg_… id). Raised as a carrier event of kind `interaction`.
   */
  async userTap(input: { messageId: string; from: string; senderId: string; type: 'reply' | 'postback' | 'action'; buttonText: string; postbackData: string | null }): Promise<void> {
    const sink = this.requireSink();
    await sink([{ kind: 'interaction', ...input, at: this.clock.now() }]);
  }

  private requireSink(): CarrierEventSink {
    if (!this.sink) throw new Error('The simulated network is not running (workers not started)');
    return this.sink;
  }

  /**
   * Receipts fire when they are due, not on a fixed beat: after each tick the network looks up
   * the next due time (two index look-ups) and sleeps until then, at least pollMs and at most
   * IDLE_MS; a hand-over in this process wakes it for its own receipts. An idle instance so sends
   * a couple of statements a second instead of six transactions' worth every 25 ms, and on a
   * shared database the instance that handed a message over fires its receipts while the others
   * only look once a second (they take over the receipts of one that stopped).
   */
  async start(sink: CarrierEventSink): Promise<void> {
    this.sink = sink;
    // Receipts may be due from before a restart.
    this.wakeAt(this.clock.now());
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    this.sink = null;
    await this.tickInFlight;
  }

  /** Ticks at `at` (this.clock's ms) unless a tick is set for earlier already. */
  private wakeAt(at: number): void {
    if (!this.sink) return;
    if (this.tickInFlight) {
      if (at <= this.clock.now() + this.pollMs) this.kickAgain = true;
      else if (at < this.timerAt) this.setTimer(at);
      return;
    }
    if (at < this.timerAt) this.setTimer(at);
  }

  private setTimer(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.kick();
    }, Math.max(0, at - this.clock.now()));
    this.timer.unref();
  }

  private kick(): void {
    if (!this.sink) return;
    // The timer fired during a tick (set for receipts stored meanwhile): look again after it.
    if (this.tickInFlight) {
      this.kickAgain = true;
      return;
    }
    this.kickAgain = false;
    this.tickInFlight = this.tick()
      .catch((err: unknown) => {
        this.logger.error({ err }, 'simulated network tick failed');
        return this.clock.now() + IDLE_MS;
      })
      .then((next) => {
        this.tickInFlight = null;
        const soonest = this.clock.now() + this.pollMs;
        this.wakeAt(this.kickAgain ? soonest : Math.max(soonest, next));
      });
  }

  /** One tick: fires what is due; returns when to look next. */
  private async tick(): Promise<number> {
    const fired = await this.processDue();
    const now = this.clock.now();
    // A full batch: more may be due already.
    if (fired >= BATCH) return now;
    return Math.min(now + IDLE_MS, await this.nextDue());
  }

  /** The earliest due receipt (a delivery, or the read of a delivered message); Infinity when none. */
  private async nextDue(): Promise<number> {
    const row = await this.db
      .selectNoFrom((eb) => [
        eb.selectFrom('sim_messages').select((e) => e.fn.min('deliver_due').as('d')).where('deliver_due', 'is not', null).as('delivery'),
        eb
          .selectFrom('sim_messages')
          .select((e) => e.fn.min('read_due').as('r'))
          .where('deliver_due', 'is', null)
          .where('delivered_at', 'is not', null)
          .as('read'),
      ])
      .executeTakeFirst();
    const due = [row?.delivery, row?.read].filter((v): v is number => v !== null && v !== undefined).map(Number);
    return due.length === 0 ? Infinity : Math.min(...due);
  }

  /**
   * Fires receipts that are due, in batches: delivery (or its failure) first, then reads of
   * delivered messages. A receipt the engine could not apply yet stays due for a later tick.
   * Every instance on a shared database runs this tick: each batch is claimed (inClaim, rows
   * locked SKIP LOCKED until marked), so a receipt is fired by one of them, not by all.
   * Exposed for tests that drive time with a fake clock.
   */
  async processDue(): Promise<number> {
    const sink = this.sink;
    if (!sink) return 0;
    const now = this.clock.now();
    const fired = await inClaim(this.db, (q) => this.fireDeliveries(q, sink, now));
    return fired + (await inClaim(this.db, (q) => this.fireReads(q, sink, now)));
  }

  private async fireDeliveries(q: DbOrTx, sink: CarrierEventSink, now: number): Promise<number> {
    let fired = 0;
    // Up to BATCH receipts per tick, read as one JSON value (selectRowsViaJson: cheaper than driver rows).
    const deliveries = await selectRowsViaJson<[string, string, string, number | null]>(
      q,
      lockedForClaim(q, q.selectFrom('sim_messages').select(DELIVERY_FIELDS).where('deliver_due', '<=', now).orderBy('deliver_due').limit(BATCH)),
      DELIVERY_FIELDS,
    );
    if (deliveries.length > 0) {
      // A read that is due as well (no read delay) travels with its delivery receipt.
      const events: CarrierEvent[] = [];
      const plan = deliveries.map(([id, messageId, toPhone, readDue]) => {
        const fails = simBehaviour(toPhone) === 'delivery_fails';
        const at = events.length;
        events.push(
          fails
            ? { kind: 'status', messageId, status: 'FAILED', at: now, error: 'SIM_DELIVERY_FAILED: the handset did not acknowledge', carrierMessageId: id }
            : { kind: 'status', messageId, status: 'DELIVERED', at: now, carrierMessageId: id },
        );
        const withRead = !fails && readDue !== null && readDue <= now;
        if (withRead) events.push({ kind: 'status', messageId, status: 'READ', at: now, carrierMessageId: id });
        return { id, fails, at, withRead };
      });
      // Sink first, mark after: a crash in between repeats receipts (harmless), never loses them.
      const applied = await sink(events);
      const failed: string[] = [];
      const delivered: string[] = [];
      const deliveredAndRead: string[] = [];
      for (const p of plan) {
        if (applied[p.at] === false) continue; // not applied yet: stays due for a later tick
        if (p.fails) failed.push(p.id);
        else if (p.withRead && applied[p.at + 1] !== false) deliveredAndRead.push(p.id);
        else delivered.push(p.id);
      }
      await this.mark(q, failed, { deliver_due: null, failed_at: now });
      await this.mark(q, delivered, { deliver_due: null, delivered_at: now });
      await this.mark(q, deliveredAndRead, { deliver_due: null, delivered_at: now, read_due: null, read_at: now });
      fired += failed.length + delivered.length + 2 * deliveredAndRead.length;
    }
    return fired;
  }

  private async fireReads(q: DbOrTx, sink: CarrierEventSink, now: number): Promise<number> {
    const reads = await lockedForClaim(
      q,
      q
        .selectFrom('sim_messages')
        .select(['id', 'message_id'])
        .where('read_due', '<=', now)
        .where('deliver_due', 'is', null)
        .where('delivered_at', 'is not', null)
        .orderBy('read_due')
        .limit(BATCH),
    ).execute();
    if (reads.length === 0) return 0;
    const applied = await sink(reads.map((r): CarrierEvent => ({ kind: 'status', messageId: r.message_id, status: 'READ', at: now, carrierMessageId: r.id })));
    const read = reads.filter((_, i) => applied[i] !== false).map((r) => r.id);
    await this.mark(q, read, { read_due: null, read_at: now });
    return read.length;
  }

  private async mark(q: DbOrTx, ids: string[], set: Partial<SimMessagesTable>): Promise<void> {
    if (ids.length === 0) return;
    // The ids as one JSON parameter (jsonList): one statement, prepared once, for any number.
    await q.updateTable('sim_messages').set(set).where('id', 'in', jsonList(q, ids)).execute();
  }
}

/** A message id the network has seen answers with its first row (RETURNING yields it thanks to the no-op update). */
const ACCEPT_UPSERT = sql`on conflict (message_id) do update set message_id = excluded.message_id returning id, message_id`;
/** Receipts fired per kind and tick. */
const BATCH = 2000;
/** The longest a running network goes without looking for due receipts (ms). */
const IDLE_MS = 1000;
/** What a delivery receipt needs of a carrier row, in selectRowsViaJson's column order. */
const DELIVERY_FIELDS = ['id', 'message_id', 'to_phone', 'read_due'] as const;
