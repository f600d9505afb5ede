import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/logger.js';
import type { Capability, CarrierEventSink, Carriers, OutboundRcs, OutboundSms, RcsCarrier, SendOutcome, SmsCarrier } from '../carrier.js';
import { simBehaviour } from './numbers.js';

export interface SimulatedOptions {
  deliveryDelayMs: number;
  readDelayMs: number;
  /** How often due receipts are looked for. */
  tickMs?: number;
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
  private sink: CarrierEventSink | null = null;
  private ticking = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: SimulatedOptions,
  ) {
    this.rcs = {
      name: 'simulated',
      capability: async (to) => this.capability(to),
      send: async (m) => this.accept('RCS', m, { messageType: m.messageType, content: m.content }),
    };
    this.sms = {
      name: 'simulated',
      send: async (m) => this.accept('SMS', m, { text: m.text, parts: m.parts, encoding: m.encoding }),
    };
  }

  private capability(to: string): Capability {
    const b = simBehaviour(to);
    if (b === 'no_rcs') return { rcs: false, reason: 'RCS_NOT_SUPPORTED' };
    if (b === 'unreachable') return { rcs: false, reason: 'UNREACHABLE' };
    return { rcs: true };
  }

  private async accept(channel: 'RCS' | 'SMS', m: OutboundRcs | OutboundSms, payload: Record<string, unknown>): Promise<SendOutcome> {
    const behaviour = simBehaviour(m.to);
    if (behaviour === 'unreachable') return { ok: false, retryable: false, code: 'SIM_UNREACHABLE', reason: 'The number is not reachable' };
    if (channel === 'RCS' && behaviour === 'rcs_fails') return { ok: false, retryable: false, code: 'SIM_RCS_DELIVERY_FAILED', reason: 'RCS delivery failed at the carrier' };
    if (channel === 'RCS' && behaviour === 'no_rcs') return { ok: false, retryable: false, code: 'SIM_RCS_NOT_SUPPORTED', reason: 'The device does not support RCS' };
    const now = this.clock.now();
    const id = newId('sub', now).replace('sub_', 'sim_');
    // The message id is unique here: a second hand-over of the same message (after a crash) is
    // answered with the first one's carrier id and nothing is delivered again.
    await this.db
      .insertInto('sim_messages')
      .values({
        id,
        message_id: m.messageId,
        account_id: m.accountId,
        channel,
        sender_id: m.senderId,
        sender_name: m.senderName,
        to_phone: m.to,
        payload: JSON.stringify(payload),
        created_at: now,
        deliver_due: now + this.options.deliveryDelayMs,
        read_due: behaviour === 'never_read' || behaviour === 'delivery_fails' ? null : now + this.options.deliveryDelayMs + this.options.readDelayMs,
        delivered_at: null,
        read_at: null,
        failed_at: null,
      })
      .onConflict((oc) => oc.column('message_id').doNothing())
      .execute();
    const row = await this.db.selectFrom('sim_messages').select('id').where('message_id', '=', m.messageId).executeTakeFirstOrThrow();
    if (this.options.deliveryDelayMs === 0) this.kick();
    return { ok: true, carrierMessageId: row.id };
  }

  async start(sink: CarrierEventSink): Promise<void> {
    this.sink = sink;
    const tick = this.options.tickMs ?? Math.max(20, Math.min(250, Math.floor(Math.min(this.options.deliveryDelayMs || 250, this.options.readDelayMs || 250) / 2)));
    this.timer = setInterval(() => this.kick(), tick);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sink = null;
  }

  private kick(): void {
    if (this.ticking || !this.sink) return;
    this.ticking = true;
    this.processDue()
      .catch((err: unknown) => this.logger.error({ err }, 'simulated network tick failed'))
      .finally(() => {
        this.ticking = false;
      });
  }

  /** Fires receipts that are due. Exposed for tests that drive time with a fake clock. */
  async processDue(): Promise<number> {
    const sink = this.sink;
    if (!sink) return 0;
    const now = this.clock.now();
    let fired = 0;
    const deliveries = await this.db
      .selectFrom('sim_messages')
      .select(['id', 'message_id', 'to_phone'])
      .where('deliver_due', '<=', now)
      .orderBy('deliver_due')
      .limit(2000)
      .execute();
    for (const d of deliveries) {
      const fails = simBehaviour(d.to_phone) === 'delivery_fails';
      await this.db
        .updateTable('sim_messages')
        .set(fails ? { deliver_due: null, failed_at: now } : { deliver_due: null, delivered_at: now })
        .where('id', '=', d.id)
        .execute();
      await sink(fails ? { kind: 'status', messageId: d.message_id, status: 'FAILED', at: now, error: 'SIM_DELIVERY_FAILED: the handset did not acknowledge', carrierMessageId: d.id } : { kind: 'status', messageId: d.message_id, status: 'DELIVERED', at: now, carrierMessageId: d.id });
      fired++;
    }
    const reads = await this.db
      .selectFrom('sim_messages')
      .select(['id', 'message_id'])
      .where('read_due', '<=', now)
      .where('deliver_due', 'is', null)
      .where('delivered_at', 'is not', null)
      .orderBy('read_due')
      .limit(2000)
      .execute();
    for (const r of reads) {
      await this.db.updateTable('sim_messages').set({ read_due: null, read_at: now }).where('id', '=', r.id).execute();
      await sink({ kind: 'status', messageId: r.message_id, status: 'READ', at: now, carrierMessageId: r.id });
      fired++;
    }
    return fired;
  }
}
