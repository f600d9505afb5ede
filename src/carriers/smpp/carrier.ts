import { createHash } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { Logger } from '../../platform/logger.js';
import { sql } from 'kysely';
import { insertRowsAsJson } from '../../platform/db/bulk.js';
import { type CarrierEvent, type CarrierEventSink, type OutboundSms, type SendOutcome, type SmsCarrier } from '../carrier.js';
import type { SenderDirectory, SenderEntry } from '../sender-config.js';
import { ConnectionLostError, parseSmppUrl, SmppConnection, type SmppConnectionOptions, type SmppEndpoint, type SubmitResponse } from './connection.js';
import { decodeGsm7, decodeUcs2, sourceAddress, submitBodies, type SubmitBody } from './encoding.js';
import { type AssembledMo, DUE_PAGE, MoAssembly } from './mo-assembly.js';
import { PartRecorder } from './part-recorder.js';
import { DELIVERED_STAT, FAILED_STATS, parseReceipt, receiptIdVariants } from './receipt.js';
import { DATA_CODING, ESM_CLASS, SMPP_STATUS, smppStatusName, type Pdu, type PduOptions, type ShortMessage } from './smpp-lib.js';

/** SMPP_BIND_MODE: one transceiver bind per SMSC, or a transmitter (submits) beside a receiver (deliver_sm). */
export type SmppBindMode = 'transceiver' | 'transmitter_receiver';

export interface SmppCarrierOptions extends Omit<SmppConnectionOptions, 'window' | 'bindType'> {
  /** The default SMSC (SMPP_URL). */
  url: string;
  bindMode?: SmppBindMode;
  /** Outstanding submit_sm per bind (SMPP_WINDOW). */
  window: number;
  /** Longest a send waits for a window slot, throttling and quick reconnects before it answers "try later". */
  submitDeadlineMs?: number;
  /**
   * When the link drops under a send, how long it waits for the next bind before answering "not
   * ready" (the engine keeps the message queued). A send that finds no bind answers at once.
   */
  rebindGraceMs?: number;
  /** Throttling answers (ESME_RTHROTTLED, ESME_RMSGQFUL) taken per part before the send answers "try later". */
  maxThrottleRetries?: number;
  /** How often final statuses the engine could not apply yet are offered again. */
  reportIntervalMs?: number;
  /** How long the parts of a concatenated incoming message wait for their siblings. */
  moReassemblyMs?: number;
}

/** submit_sm answers worth another try later (besides throttling, which is retried at once). */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([SMPP_STATUS.ESME_RSYSERR, SMPP_STATUS.ESME_RX_T_APPN, SMPP_STATUS.ESME_RSUBMITFAIL, 0x00ff /* ESME_RUNKNOWNERR */, 0x00fe /* ESME_RDELIVERYFAILURE */]);
const THROTTLED: ReadonlySet<number> = new Set([SMPP_STATUS.ESME_RTHROTTLED, SMPP_STATUS.ESME_RMSGQFUL]);
/** Receipts whose part row is not committed yet (the receipt overtook our record of submit_sm_resp) are looked up again. */
const RECEIPT_LOOKUP_TRIES = 6;

/** One message of a round: its bind, the SMSC ids its parts have so far, its submit_sm bodies. */
interface SendPlan {
  index: number;
  m: OutboundSms;
  conn: SmppConnection;
  ids: (string | null)[];
  bodies: SubmitBody[];
  failed: SendOutcome | null;
  /** source_addr and destination_addr, worked out once per message rather than per part. */
  source: { addr: string; ton: number; npi: number };
  destination: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * SMS over SMPP 3.4 (`smpp` package): per SMSC (SMPP_URL, and one per distinct per-sender
 * override) one managed transceiver bind, or a transmitter bind for submits beside a receiver bind
 * for deliver_sm (SMPP_BIND_MODE); submit_sm per part with explicit data_coding and UDH
 * concatenation, delivery receipts combined per message, mobile-originated messages to the
 * inbound path. The smpp_messages / smpp_parts tables map SMSC ids to our messages (receipts after
 * a restart still find their message) and make a message id already submitted idempotent: only
 * parts without an SMSC id are (re)submitted.
 */
export class SmppCarrier implements SmsCarrier {
  readonly name = 'smpp';
  private sink: CarrierEventSink | null = null;
  /** The bind that submits, per SMSC key: the transceiver, or the transmitter. */
  private readonly connections = new Map<string, SmppConnection>();
  /** The receiver bind per SMSC key (transmitter_receiver mode only). */
  private readonly receivers = new Map<string, SmppConnection>();
  /** Which SMSC each sender went to at its last hand-over (isReady answers from it without a look-up). */
  private readonly senderConnection = new Map<string, string>();
  private reportTimer: NodeJS.Timeout | null = null;
  private reporting: Promise<void> | null = null;
  private moTimer: NodeJS.Timeout | null = null;
  private moSweeping: Promise<void> | null = null;
  private readonly moAssembly: MoAssembly;
  private started = false;
  private readonly recorder: PartRecorder;
  private readonly sources = new Map<string, { addr: string; ton: number; npi: number }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: SmppCarrierOptions,
    private readonly senders: SenderDirectory,
  ) {
    this.recorder = new PartRecorder(db);
    this.moAssembly = new MoAssembly(db, clock);
  }

  async start(sink: CarrierEventSink): Promise<void> {
    this.sink = sink;
    this.started = true;
    this.connection(this.options.url);
    // Senders with their own SMSC bind now too, so their receipts and incoming messages arrive.
    for (const s of await this.senders.all()) if (s.type === 'SMS' && s.config.smpp) this.connection(s.config.smpp.url);
    this.reportTimer = setInterval(() => this.kickReports(), this.options.reportIntervalMs ?? 1000);
    this.reportTimer.unref?.();
    // A quarter of the wait: an incomplete message goes on at most a quarter late.
    this.moTimer = setInterval(() => this.kickMoSweep(), Math.min(5000, Math.max(100, Math.floor(this.moReassemblyMs() / 4))));
    this.moTimer.unref?.();
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.reportTimer) clearInterval(this.reportTimer);
    this.reportTimer = null;
    if (this.moTimer) clearInterval(this.moTimer);
    this.moTimer = null;
    await Promise.all([...this.connections.values(), ...this.receivers.values()].map((c) => c.stop()));
    this.connections.clear();
    this.receivers.clear();
    await Promise.all([this.reporting, this.moSweeping]);
    this.sink = null;
  }

  /** Binds known so far (tests and health checks). */
  connectionKeys(): string[] {
    return [...this.connections.keys()];
  }

  /** Every bind of the SMSC (default: SMPP_URL) is up: the transceiver, or transmitter and receiver. */
  isBound(key?: string): boolean {
    const k = key ?? parseSmppUrl(this.options.url).key;
    const c = this.connections.get(k);
    if (!c?.isBound) return false;
    const rx = this.receivers.get(k);
    return rx ? rx.isBound : true;
  }

  /** The binds of one SMSC (tests and health checks). */
  binds(key?: string): SmppConnection[] {
    const k = key ?? parseSmppUrl(this.options.url).key;
    return [this.connections.get(k), this.receivers.get(k)].filter((c): c is SmppConnection => c !== undefined);
  }

  /**
   * Whether a message of this sender can be submitted now (its SMSC's submitting bind is up).
   * The dispatcher leaves the sender's messages queued while this is false. A sender not seen yet
   * counts as ready: its first hand-over finds out (and answers "not ready" at once).
   */
  isReady(senderId: string): boolean {
    if (!this.started) return false;
    const key = this.senderConnection.get(senderId);
    if (key === undefined) return true;
    return this.connections.get(key)?.canSubmit ?? true;
  }

  private connection(url: string): SmppConnection {
    const endpoint = parseSmppUrl(url);
    let c = this.connections.get(endpoint.key);
    if (!c) {
      const split = this.options.bindMode === 'transmitter_receiver';
      c = this.bind(endpoint, split ? 'transmitter' : 'transceiver');
      this.connections.set(endpoint.key, c);
      if (split) this.receivers.set(endpoint.key, this.bind(endpoint, 'receiver'));
    }
    return c;
  }

  private bind(endpoint: SmppEndpoint, bindType: 'transceiver' | 'transmitter' | 'receiver'): SmppConnection {
    const created: SmppConnection = new SmppConnection(endpoint, { ...this.options, window: this.options.window, bindType }, this.logger, (pdu) => this.onDeliver(created, pdu));
    if (this.started) created.start();
    return created;
  }

  private async connectionFor(senderId: string): Promise<SmppConnection> {
    const sender = await this.senders.get(senderId);
    const c = this.connection(sender?.config.smpp?.url ?? this.options.url);
    this.senderConnection.set(senderId, c.key);
    return c;
  }

  async send(m: OutboundSms): Promise<SendOutcome> {
    return (await this.sendMany([m]))[0]!;
  }

  /**
   * One dispatcher round. A message whose SMSC has no bind answers "not ready" at once (the
   * engine keeps it queued). The others are recorded (smpp_messages / smpp_parts, a few
   * statements for the whole round) and their parts fill the window of their bind, message after
   * message, parts of a message in order; acknowledged ids are group-committed and all committed
   * before this answers.
   */
  async sendMany(messages: readonly OutboundSms[]): Promise<SendOutcome[]> {
    const out = new Array<SendOutcome>(messages.length);
    if (!this.started) return out.fill({ ok: false, retryable: true, code: 'SMPP_NOT_STARTED', reason: 'The SMPP adapter is not running' });
    const deadline = Date.now() + (this.options.submitDeadlineMs ?? 20_000);
    const bySender = new Map<string, SmppConnection>();
    const ready: { index: number; m: OutboundSms; conn: SmppConnection }[] = [];
    for (const [index, m] of messages.entries()) {
      let conn = bySender.get(m.senderId);
      if (!conn) bySender.set(m.senderId, (conn = await this.connectionFor(m.senderId)));
      if (conn.canSubmit) ready.push({ index, m, conn });
      else out[index] = notReady(conn);
    }
    const plans = await this.prepare(ready);
    const jobs: { plan: SendPlan; body: SubmitBody }[] = [];
    for (const plan of plans) {
      if (!plan.conn.canSubmit) plan.failed = notReady(plan.conn);
      else for (const body of plan.bodies) if (!plan.ids[body.index]) jobs.push({ plan, body });
    }
    // Binds that went away during this round (after the grace for a quick reconnect): the rest of their messages stay queued.
    const down = new Set<string>();
    const binds = new Set(plans.map((p) => p.conn)).size;
    // `lanes` chains of submits, each taking the next part when its last one is answered: the
    // window stays full. An accepted part goes on from the response callback without a promise
    // (the common case, bench/smpp.ts); anything else — refusal, throttling, a lost link — takes
    // submitPart's careful path.
    let next = 0;
    await new Promise<void>((finish) => {
      let running = Math.min(jobs.length, Math.max(1, this.options.window) * binds);
      if (running === 0) return finish();
      const lane = (): void => {
        for (;;) {
          if (next >= jobs.length) {
            if (--running === 0) finish();
            return;
          }
          const { plan, body } = jobs[next++]!;
          if (plan.failed) continue; // an earlier part failed: the message is answered by that
          if (down.has(plan.conn.key)) {
            plan.failed = notReady(plan.conn);
            continue;
          }
          const pdu = submitPdu(plan, body);
          plan.conn.submitWith(pdu, deadline, (err, res) => {
            if (err === null && res!.status === SMPP_STATUS.ESME_ROK && res!.messageId) {
              plan.conn.noteSuccess();
              this.acknowledged(plan, body, res!.messageId);
              return lane();
            }
            void this.submitPart(plan.conn, plan.m, pdu, body, plan.bodies.length, deadline, { err, res })
              .then(
                (r) => {
                  if (r.ok) this.acknowledged(plan, body, r.carrierMessageId);
                  else {
                    plan.failed ??= r;
                    if (r.notReady) down.add(plan.conn.key);
                  }
                },
                (e: unknown) => {
                  plan.failed ??= { ok: false, retryable: true, code: 'SMPP_ERROR', reason: e instanceof Error ? e.message : String(e) };
                },
              )
              .then(lane);
          });
          return;
        }
      };
      for (let i = running; i > 0; i--) lane();
    });
    await this.recorder.flush();
    for (const plan of plans) out[plan.index] = plan.failed ?? { ok: true, carrierMessageId: plan.ids.join(',') };
    return out;
  }

  /**
   * The first hand-over records the message and its parts; a later one (retry, or a crash before
   * the engine recorded SENT) finds them and submits only the parts still without an id — on the
   * SMSC that has the others, or the handset cannot join them.
   */
  private async prepare(list: readonly { index: number; m: OutboundSms; conn: SmppConnection }[]): Promise<SendPlan[]> {
    if (list.length === 0) return [];
    const now = this.clock.now();
    const rows = list.map(({ m, conn }) => ({
      message_id: m.messageId,
      account_id: m.accountId,
      connection: conn.key,
      to_phone: m.to.charCodeAt(0) === 0x2b /* + */ ? m.to.slice(1) : m.to,
      parts_total: Math.max(1, m.parts.length),
      // Only has to differ between messages in flight to one handset; not a secret.
      udh_ref: Math.floor(Math.random() * 256),
      encoding: m.encoding,
      created_at: now,
      reported: 0,
    }));
    const inserted = await insertRowsAsJson<(typeof rows)[number], { message_id: string }>(this.db, 'smpp_messages', rows, {
      chunk: 500,
      suffix: sql`on conflict (message_id) do nothing returning message_id`,
    });
    const records = new Map<string, { connection: string; parts_total: number; udh_ref: number }>();
    const fresh = new Set(inserted.map((r) => r.message_id));
    for (const r of rows) if (fresh.has(r.message_id)) records.set(r.message_id, r);
    // Handed over before (a retry, or again after a crash): its first record and the parts acknowledged so far.
    const again = rows.filter((r) => !fresh.has(r.message_id)).map((r) => r.message_id);
    const known = new Map<string, (string | null)[]>();
    for (let i = 0; i < again.length; i += 500) {
      const chunk = again.slice(i, i + 500);
      for (const r of await this.db.selectFrom('smpp_messages').select(['message_id', 'connection', 'parts_total', 'udh_ref']).where('message_id', 'in', chunk).execute()) records.set(r.message_id, r);
      // Parts get their row when the SMSC acknowledges them (PartRecorder); a part without one is submitted.
      for (const r of await this.db.selectFrom('smpp_parts').select(['message_id', 'part_index', 'carrier_id']).where('message_id', 'in', chunk).execute()) {
        if (r.carrier_id === null) continue;
        let a = known.get(r.message_id);
        if (!a) known.set(r.message_id, (a = []));
        a[r.part_index] = r.carrier_id;
      }
    }
    return list.map(({ index, m, conn }, i) => {
      const r = records.get(m.messageId)!;
      const pinned = r.connection === conn.key ? conn : (this.connections.get(r.connection) ?? conn);
      const got = known.get(m.messageId);
      const ids = new Array<string | null>(r.parts_total);
      for (let k = 0; k < ids.length; k++) ids[k] = got?.[k] ?? null;
      return { index, m, conn: pinned, ids, bodies: submitBodies(m.parts, m.encoding, r.udh_ref), failed: null, source: this.sourceOf(m.senderName), destination: rows[i]!.to_phone };
    });
  }

  /** source_addr of a sender name, worked out once per name (a round has few senders and many messages). */
  private sourceOf(senderName: string): { addr: string; ton: number; npi: number } {
    let a = this.sources.get(senderName);
    if (!a) {
      if (this.sources.size >= 1000) this.sources.clear();
      this.sources.set(senderName, (a = sourceAddress(senderName)));
    }
    return a;
  }

  /** The part's SMSC id, kept for the message's outcome and group-committed (flush() before the round answers). */
  private acknowledged(plan: SendPlan, body: SubmitBody, carrierId: string): void {
    plan.ids[body.index] = carrierId;
    this.recorder.add({ message_id: plan.m.messageId, part_index: body.index, carrier_id: carrierId, connection: plan.conn.key, submitted_at: this.clock.now() });
  }

  /**
   * One part: retried through throttling and reconnects until the deadline. `first` is the answer
   * to a submit already made (sendMany's fast path), handled as if this had made it.
   */
  private async submitPart(conn: SmppConnection, m: OutboundSms, pdu: PduOptions, body: SubmitBody, total: number, deadline: number, first?: { err: Error | null; res: SubmitResponse | null }): Promise<SendOutcome> {
    let throttled = 0;
    let given = first;
    for (;;) {
      let res: SubmitResponse;
      try {
        if (given) {
          const g = given;
          given = undefined;
          if (g.err) throw g.err;
          res = g.res!;
        } else res = await conn.submit(pdu, deadline);
      } catch (err) {
        if (err instanceof ConnectionLostError && err.code !== 'SMPP_STOPPED') {
          // The link dropped under this send: a quick reconnect is worth a short wait (then the
          // part is submitted again); a longer outage leaves the message queued with the engine.
          const until = Math.min(deadline, Date.now() + (this.options.rebindGraceMs ?? 2_000));
          const back = await conn.waitBound(until).then(
            () => true,
            () => false,
          );
          if (back && conn.canSubmit) continue;
          return notReady(conn);
        }
        const code = err instanceof ConnectionLostError ? err.code : 'SMPP_ERROR';
        return { ok: false, retryable: true, code, reason: err instanceof Error ? err.message : String(err) };
      }
      if (res.status === SMPP_STATUS.ESME_ROK) {
        conn.noteSuccess();
        if (!res.messageId) this.logger.warn({ smsc: conn.key, messageId: m.messageId }, 'SMSC acknowledged without a message_id; receipts cannot be matched');
        return { ok: true, carrierMessageId: res.messageId ?? `${m.messageId}#${body.index + 1}` };
      }
      if (THROTTLED.has(res.status)) {
        conn.noteThrottle();
        if (++throttled > (this.options.maxThrottleRetries ?? 8) || Date.now() >= deadline) {
          return { ok: false, retryable: true, code: smppStatusName(res.status), reason: `the SMSC is throttling (part ${body.index + 1}/${total})` };
        }
        continue;
      }
      return { ok: false, retryable: RETRYABLE_STATUSES.has(res.status), code: smppStatusName(res.status), reason: `submit_sm refused (part ${body.index + 1}/${total})` };
    }
  }

  // ---- incoming: receipts and mobile-originated messages ----------------------------------------

  private async onDeliver(conn: SmppConnection, pdu: Pdu): Promise<number> {
    const type = (pdu.esm_class ?? 0) & ESM_CLASS.MESSAGE_TYPE_MASK;
    if (type === ESM_CLASS.DELIVERY_RECEIPT || type === ESM_CLASS.INTERMEDIATE_NOTIFICATION) return this.onReceipt(conn, pdu);
    if (type !== 0) return SMPP_STATUS.ESME_ROK; // SME/user acknowledgements: nothing to record
    return this.onMobileOriginated(conn, pdu);
  }

  private async onReceipt(conn: SmppConnection, pdu: Pdu): Promise<number> {
    const text = textOf(pdu.short_message, pdu.data_coding) || textOf(pdu.message_payload, pdu.data_coding);
    const receipt = parseReceipt({ text, receiptedMessageId: pdu.receipted_message_id, messageState: pdu.message_state });
    if (!receipt) {
      this.logger.warn({ smsc: conn.key }, 'SMPP receipt without id or stat ignored');
      return SMPP_STATUS.ESME_ROK;
    }
    const variants = receiptIdVariants(receipt.id);
    let part: { message_id: string; part_index: number } | undefined;
    for (let i = 0; i < RECEIPT_LOOKUP_TRIES && !part; i++) {
      if (i > 0) await sleep(100 * i);
      part = await this.db.selectFrom('smpp_parts').select(['message_id', 'part_index']).where('connection', '=', conn.key).where('carrier_id', 'in', variants).executeTakeFirst();
    }
    if (!part) {
      this.logger.warn({ smsc: conn.key, id: receipt.id }, 'SMPP receipt for an unknown message id ignored');
      return SMPP_STATUS.ESME_ROK;
    }
    const final = receipt.stat === DELIVERED_STAT || FAILED_STATS.has(receipt.stat);
    if (!final) return SMPP_STATUS.ESME_ROK; // ENROUTE, ACCEPTD: nothing to tell yet
    const now = this.clock.now();
    await this.db
      .updateTable('smpp_parts')
      .set({ stat: receipt.stat, err: receipt.err, receipt_at: now })
      .where('message_id', '=', part.message_id)
      .where('part_index', '=', part.part_index)
      .execute();
    await this.combine(part.message_id, now);
    this.kickReports();
    return SMPP_STATUS.ESME_ROK;
  }

  /**
   * All parts' receipts → one status: FAILED as soon as any part failed (its stat in `error`),
   * DELIVERED once every part was delivered. Recorded once; reported by the report loop.
   */
  private async combine(messageId: string, now: number): Promise<void> {
    const msg = await this.db.selectFrom('smpp_messages').select(['parts_total', 'final_status']).where('message_id', '=', messageId).executeTakeFirst();
    if (!msg || msg.final_status !== null) return;
    const parts = await this.db.selectFrom('smpp_parts').select(['part_index', 'stat', 'err']).where('message_id', '=', messageId).orderBy('part_index').execute();
    const failed = parts.find((p) => p.stat !== null && FAILED_STATS.has(p.stat));
    let status: 'DELIVERED' | 'FAILED' | null = null;
    let error: string | null = null;
    if (failed) {
      status = 'FAILED';
      error = `${failed.stat}: part ${failed.part_index + 1}/${msg.parts_total} not delivered${failed.err ? ` (err ${failed.err})` : ''}`;
    } else if (parts.length === msg.parts_total && parts.every((p) => p.stat === DELIVERED_STAT)) {
      status = 'DELIVERED';
    }
    if (!status) return;
    await this.db
      .updateTable('smpp_messages')
      .set({ final_status: status, final_error: error, final_at: now })
      .where('message_id', '=', messageId)
      .where('final_status', 'is', null)
      .execute();
  }

  private kickReports(): void {
    if (this.reporting || !this.sink) return;
    this.reporting = this.reportDue()
      .then(() => undefined)
      .catch((err: unknown) => this.logger.error({ err }, 'SMPP receipt report failed'))
      .finally(() => (this.reporting = null));
  }

  /** Hands final statuses to the engine; those it could not apply yet stay for the next round. */
  async reportDue(): Promise<number> {
    const sink = this.sink;
    if (!sink) return 0;
    const due = await this.db
      .selectFrom('smpp_messages')
      .select(['message_id', 'final_status', 'final_error', 'final_at'])
      // Literal 0, so SQLite can use the partial index (migration 017) — it does not match a bound parameter.
      .where('reported', '=', sql.lit(0))
      .where('final_status', 'is not', null)
      .limit(500)
      .execute();
    if (due.length === 0) return 0;
    const events: CarrierEvent[] = due.map((d) =>
      d.final_status === 'FAILED'
        ? { kind: 'status', messageId: d.message_id, status: 'FAILED', at: d.final_at ?? this.clock.now(), error: d.final_error ?? 'UNDELIV' }
        : { kind: 'status', messageId: d.message_id, status: 'DELIVERED', at: d.final_at ?? this.clock.now() },
    );
    const applied = await sink(events);
    const done = due.filter((_, i) => applied[i] !== false).map((d) => d.message_id);
    for (let i = 0; i < done.length; i += 500) await this.db.updateTable('smpp_messages').set({ reported: 1 }).where('message_id', 'in', done.slice(i, i + 500)).execute();
    return done.length;
  }

  /** A message from a person: reassembled when concatenated, then handed to the inbound path. */
  private async onMobileOriginated(conn: SmppConnection, pdu: Pdu): Promise<number> {
    if (!this.sink) return SMPP_STATUS.ESME_RX_T_APPN;
    const source = (pdu.source_addr ?? '').replace(/^\+/, '');
    const dest = (pdu.destination_addr ?? '').replace(/^\+/, '');
    if (!/^\d{6,20}$/.test(source)) {
      this.logger.warn({ smsc: conn.key }, 'SMPP message from a non-numeric address ignored');
      return SMPP_STATUS.ESME_ROK;
    }
    const sm = pdu.short_message ?? pdu.message_payload;
    const text = textOf(sm, pdu.data_coding);
    const concat = concatInfo(sm);
    if (!concat || concat.total <= 1) {
      await this.deliverMo({ smsc: conn.key, source, dest, text, at: this.clock.now(), partial: false });
      return SMPP_STATUS.ESME_ROK;
    }
    // Answered only once the part is stored: an SMSC that gets no deliver_sm_resp offers it again.
    const whole = await this.moAssembly.add({ smsc: conn.key, source, dest, ...concat, text });
    if (whole) await this.deliverAssembled(whole);
    return SMPP_STATUS.ESME_ROK;
  }

  private moReassemblyMs(): number {
    return this.options.moReassemblyMs ?? 60_000;
  }

  private kickMoSweep(): void {
    if (this.moSweeping || !this.sink) return;
    this.moSweeping = this.sweepMo()
      .then(() => undefined)
      .catch((err: unknown) => this.logger.error({ err }, 'SMPP concatenated message sweep failed'))
      .finally(() => (this.moSweeping = null));
  }

  /** Concatenated messages whose wait is over, wherever their parts came in: what came is handed on. */
  async sweepMo(): Promise<number> {
    let handed = 0;
    for (;;) {
      const due = await this.moAssembly.due(this.moReassemblyMs());
      for (const m of due) {
        if (!m.complete) this.logger.warn({ smsc: m.smsc, got: m.got, total: m.total }, 'SMPP concatenated message incomplete; delivering the parts received');
        await this.deliverAssembled(m);
      }
      handed += due.length;
      // A full page: more may be waiting (handed-on parts are gone, so the next page is new ones).
      if (due.length < DUE_PAGE || !this.started) return handed;
    }
  }

  private async deliverAssembled(m: AssembledMo): Promise<void> {
    await this.deliverMo({ smsc: m.smsc, source: m.source, dest: m.dest, text: m.text, at: m.firstAt, partial: !m.complete });
    await this.moAssembly.done(m);
  }

  /**
   * Hands an incoming message to the inbound path. SMPP gives incoming messages no id; this one is
   * the same for a redelivery of the same message (same number, text and 10-minute slot of when it
   * — or its first part — came) and for the same concatenated message put together twice (by two
   * instances, or again after a crash), so the inbound path records it once.
   */
  private async deliverMo(m: { smsc: string; source: string; dest: string; text: string; at: number; partial: boolean }): Promise<void> {
    const sink = this.sink;
    // Thrown rather than returned: the caller would forget the parts of a message nobody took.
    if (!sink) throw new Error('SMPP adapter stopped: incoming message not handed on');
    const sender = await this.senderFor(m.smsc, m.dest, m.source);
    if (!sender) {
      this.logger.warn({ smsc: m.smsc, to: m.dest }, 'SMPP message to an address without a sender ignored');
      return;
    }
    const name = `${m.smsc}|${m.source}|${m.dest}|${m.partial ? 'partial|' : ''}${m.text}|${Math.floor(m.at / 600_000)}`;
    const carrierMessageId = `smpp_mo_${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
    await sink([{ kind: 'inbound', channel: 'SMS', from: `+${m.source}`, senderId: sender.id, text: m.text, at: this.clock.now(), carrierMessageId }]);
  }

  /**
   * Our SMS sender an incoming message was addressed to: among the senders on this bind (with it as
   * override, or without an override when this is the default SMSC), the one whose name is the
   * destination address, else the one that last wrote to the person, else the default. When none
   * is named so, the senders are read again first: one created seconds ago (on any instance) is
   * not in the directory's cache yet.
   */
  private async senderFor(smsc: string, dest: string, sourceDigits: string): Promise<SenderEntry | null> {
    const defaultKey = parseSmppUrl(this.options.url).key;
    const norm = (v: string) => v.replace(/^\+/, '').toLowerCase();
    let named: SenderEntry[] = [];
    let candidates: SenderEntry[] = [];
    for (const fresh of [false, true]) {
      if (fresh) this.senders.invalidate();
      const sms = (await this.senders.all()).filter((s) => s.type === 'SMS');
      candidates = sms.filter((s) => (s.config.smpp ? parseSmppUrl(s.config.smpp.url).key === smsc : smsc === defaultKey));
      named = dest ? candidates.filter((s) => norm(s.name) === norm(dest)) : [];
      if (named.length > 0) break;
    }
    return this.senders.attribute(named.length > 0 ? named : candidates, sourceDigits);
  }
}

/** The submit_sm of one part of a message. */
function submitPdu(plan: SendPlan, body: SubmitBody): PduOptions {
  return {
    source_addr_ton: plan.source.ton,
    source_addr_npi: plan.source.npi,
    source_addr: plan.source.addr,
    dest_addr_ton: 1,
    dest_addr_npi: 1,
    destination_addr: plan.destination,
    esm_class: body.esmClass,
    registered_delivery: 1,
    data_coding: body.dataCoding,
    short_message: body.shortMessage,
  };
}

function notReady(conn: SmppConnection): SendOutcome {
  return { ok: false, retryable: true, notReady: true, code: 'SMPP_NOT_BOUND', reason: `no bind to ${conn.key}; queued until it is back` };
}

/** The text of a received short_message / message_payload, whatever form the package left it in. */
function textOf(sm: ShortMessage | Buffer | string | undefined, dataCoding: number | undefined): string {
  if (sm === undefined || sm === null) return '';
  if (typeof sm === 'string') return sm;
  if (Buffer.isBuffer(sm)) return decodeBytes(sm, dataCoding);
  const m = sm.message;
  if (typeof m === 'string') return m;
  return Buffer.isBuffer(m) ? decodeBytes(m, dataCoding) : '';
}

function decodeBytes(bytes: Buffer, dataCoding: number | undefined): string {
  const dc = (dataCoding ?? 0) & 0x0f;
  if (dc === DATA_CODING.UCS2) return decodeUcs2(bytes);
  if (dc === DATA_CODING.GSM7) return decodeGsm7(bytes);
  return bytes.toString('latin1');
}

/** IEI 0x00 (8-bit reference) or 0x08 (16-bit reference) of a received message's UDH. */
function concatInfo(sm: ShortMessage | Buffer | string | undefined): { ref: number; total: number; seq: number } | null {
  if (!sm || typeof sm === 'string' || Buffer.isBuffer(sm) || !sm.udh) return null;
  for (const ie of sm.udh) {
    const info =
      ie[0] === 0x00 && ie[1] === 3 && ie.length >= 5
        ? { ref: ie[2]!, total: ie[3]!, seq: ie[4]! }
        : ie[0] === 0x08 && ie[1] === 4 && ie.length >= 6
          ? { ref: (ie[2]! << 8) | ie[3]!, total: ie[4]!, seq: ie[5]! }
          : null;
    // A part numbered outside 1..total (3GPP TS 23.040 says ignore the element) is taken as a whole message.
    if (info) return info.seq >= 1 && info.seq <= info.total ? info : null;
  }
  return null;
}
