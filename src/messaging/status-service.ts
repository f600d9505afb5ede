import type { CarrierEvent } from '../carriers/carrier.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import type { MessageStatus, MessagesTable } from '../platform/db/tables/messaging.js';
import type { Logger } from '../platform/logger.js';
import type { MessageEvents } from './events.js';

/** Order of outbound progress; a receipt never moves a message backwards (READ stays READ). */
const RANK: Partial<Record<MessageStatus, number>> = { SENDING: 0, SENT: 1, DELIVERED: 2, READ: 3 };

/** Inbound messages and button taps are the engagement area's; it registers here. */
export interface InboundHandler {
  handle(event: Extract<CarrierEvent, { kind: 'inbound' | 'interaction' }>): Promise<void>;
}

/** Applies what carriers report to the message records (spec §3.1, DESIGN §5.7). */
export class StatusService {
  private inbound: InboundHandler | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly events: MessageEvents,
    private readonly logger: Logger,
  ) {}

  setInboundHandler(handler: InboundHandler): void {
    this.inbound = handler;
  }

  async handle(event: CarrierEvent): Promise<void> {
    if (event.kind !== 'status') {
      if (this.inbound) await this.inbound.handle(event);
      else this.logger.debug({ kind: event.kind }, 'inbound event ignored: no handler');
      return;
    }
    await this.db.transaction().execute(async (tx) => {
      const row = await tx.selectFrom('messages').selectAll().where('id', '=', event.messageId).executeTakeFirst();
      if (!row) return;
      const patch = nextStatus(row, event);
      if (!patch) return;
      await tx.updateTable('messages').set(patch).where('id', '=', row.id).execute();
      await this.events.statusChanged(tx, { ...row, ...patch } as MessagesTable, row.status);
    });
  }
}

export function nextStatus(row: MessagesTable, event: Extract<CarrierEvent, { kind: 'status' }>): Partial<MessagesTable> | null {
  if (row.status === 'FAILED' || row.pending === 1) return null;
  if (event.status === 'FAILED') {
    if (row.status === 'READ') return null;
    return { status: 'FAILED', failed_at: event.at, error: event.error ?? 'Delivery failed' };
  }
  const from = RANK[row.status];
  const to = RANK[event.status];
  if (from === undefined || to === undefined || to <= from) {
    // A late DELIVERED after READ still fills in the delivery time.
    if (event.status === 'DELIVERED' && row.delivered_at === null && row.status === 'READ') return { delivered_at: event.at };
    return null;
  }
  return event.status === 'DELIVERED'
    ? { status: 'DELIVERED', delivered_at: event.at }
    : { status: 'READ', read_at: event.at, ...(row.delivered_at === null ? { delivered_at: event.at } : {}) };
}
