import { rowLockClause, sharedByInstances } from '../platform/db/claim.js';
import { jsonList, selectRowsViaJson } from '../platform/db/sql.js';
import type { CarrierEvent } from '../carriers/carrier.js';
import type { Clock } from '../platform/clock.js';
import type { Db, DbOrTx } from '../platform/db/database.js';
import type { MessageStatus, MessagesTable } from './tables.js';
import type { Logger } from '../platform/logger.js';
import { statusListenerCheck, type MessageEvents } from './events.js';

/** Order of outbound progress; a receipt never moves a message backwards (READ stays READ). */
const RANK: Partial<Record<MessageStatus, number>> = { SENDING: 0, SENT: 1, DELIVERED: 2, READ: 3 };

/** Inbound messages and button taps are the engagement area's; it is handed in at construction. */
export interface InboundHandler {
  handle(event: Extract<CarrierEvent, { kind: 'inbound' | 'interaction' }>): Promise<void>;
}

export interface StatusServiceDeps {
  db: Db;
  clock: Clock;
  events: MessageEvents;
  logger: Logger;
  /** Where received messages and taps go (inbound/). */
  inbound: InboundHandler;
}

/** Applies what carriers report to the message records (spec §3.1, DESIGN §5.7). */
export class StatusService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly events: MessageEvents;
  private readonly logger: Logger;
  private readonly inbound: InboundHandler;

  constructor(d: StatusServiceDeps) {
    this.db = d.db;
    this.clock = d.clock;
    this.events = d.events;
    this.logger = d.logger;
    this.inbound = d.inbound;
  }

  /** Applies one carrier event; see handleMany. */
  async handle(event: CarrierEvent): Promise<boolean> {
    return (await this.handleMany([event]))[0]!;
  }

  /**
   * Applies carrier events in order; status receipts of one call share one transaction and a few
   * grouped UPDATEs (a 10,000-message batch produces 20,000 receipts). Resolves one flag per event:
   * false when the message is still being handed over (the receipt overtook the dispatcher's
   * commit of SENT) — the carrier must deliver that event again later, otherwise it would be lost
   * and the message would stay SENT for ever.
   */
  async handleMany(events: readonly CarrierEvent[]): Promise<boolean[]> {
    const done: boolean[] = new Array<boolean>(events.length).fill(true);
    const statusIdx: number[] = [];
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      if (e.kind === 'status') statusIdx.push(i);
      else await this.inbound.handle(e);
    }
    if (statusIdx.length === 0) return done;
    await this.db.transaction().execute(async (tx) => {
      // The few columns that decide the next status first; whole rows only for the ones that change.
      const ids = [...new Set(statusIdx.map((i) => (events[i] as StatusEvent).messageId))];
      const locked = await this.lockSettled(tx, ids);
      const rows = new Map<string, StatusFields>();
      const query = tx.selectFrom('messages').select(STATUS_FIELDS).where('id', 'in', jsonList(tx, ids));
      for (const [id, account_id, status, pending, sent_at, delivered_at, read_at] of await selectRowsViaJson<StatusTuple>(tx, query, STATUS_FIELDS)) {
        rows.set(id, { id, account_id, status, pending, sent_at, delivered_at, read_at });
      }
      // The rows are this call's own copies: they are updated in place as events apply, so the
      // next event of the same message sees the new state (no object copies per event).
      const before = new Map<string, { status: MessageStatus; accountId: string }>();
      const patches = new Map<string, Partial<MessagesTable>>();
      for (const i of statusIdx) {
        const event = events[i] as StatusEvent;
        const row = rows.get(event.messageId);
        if (!row) continue;
        if (row.pending === 1 || (locked && !locked.has(row.id))) {
          done[i] = false;
          continue;
        }
        const patch = nextStatus(row, event);
        if (!patch) continue;
        if (!before.has(row.id)) before.set(row.id, { status: row.status, accountId: row.account_id });
        Object.assign(row, patch);
        const merged = patches.get(row.id);
        if (merged) Object.assign(merged, patch);
        else patches.set(row.id, patch);
      }
      if (patches.size === 0) return;
      // Receipts of one tick mostly carry the same change: one UPDATE per distinct patch.
      const groups = new Map<string, { patch: Partial<MessagesTable>; ids: string[] }>();
      for (const [id, patch] of patches) {
        // Patches come from nextStatus, so equal ones have their keys in the same order.
        let key = '';
        for (const k in patch) key += `${k}=${JSON.stringify(patch[k as keyof typeof patch])};`;
        const g = groups.get(key);
        if (g) g.ids.push(id);
        else groups.set(key, { patch, ids: [id] });
      }
      for (const { patch, ids: groupIds } of groups.values()) {
        await tx.updateTable('messages').set(patch).where('id', 'in', jsonList(tx, groupIds)).execute();
      }
      const listens = statusListenerCheck(this.events, tx);
      const changed: string[] = [];
      for (const [id, was] of before) if (await listens(was.accountId)) changed.push(id);
      for (let i = 0; i < changed.length; i += CHUNK) {
        const full = await tx.selectFrom('messages').selectAll().where('id', 'in', changed.slice(i, i + CHUNK)).execute();
        for (const row of full) await this.events.statusChanged(tx, row, before.get(row.id)!.status);
      }
    });
    return done;
  }

  /**
   * Where instances share the database (PostgreSQL), two of them may get receipts of one message
   * at once (RBM posts DELIVERED and READ within milliseconds, to whichever instance): without a
   * lock both read the same status and both apply and report their change, or DELIVERED lands
   * after READ. So the settled rows (pending = 0) are locked first, in id order (no deadlock
   * between two status services), and the reads below see what the other committed. Rows still
   * being handed over are left alone: the dispatcher's record holds them and sets pending = 0, so
   * waiting for them could deadlock with its multi-row UPDATE; their receipts come again later
   * (like pending ones). A row that settled between this lock and the read is not in the set and
   * is treated the same way. Null on SQLite: one writer, nothing to lock.
   */
  private async lockSettled(tx: DbOrTx, ids: string[]): Promise<Set<string> | null> {
    if (!sharedByInstances(tx)) return null;
    const rows = await tx.selectFrom('messages').select('id').where('id', 'in', jsonList(tx, ids)).where('pending', '=', 0).orderBy('id').modifyEnd(rowLockClause(tx)).execute();
    return new Set(rows.map((r) => r.id));
  }
}

type StatusEvent = Extract<CarrierEvent, { kind: 'status' }>;
const STATUS_FIELDS = ['id', 'account_id', 'status', 'pending', 'sent_at', 'delivered_at', 'read_at'] as const;
type StatusFields = Pick<MessagesTable, (typeof STATUS_FIELDS)[number]>;
type StatusTuple = [string, string, MessageStatus, number, number | null, number | null, number | null];
const CHUNK = 500;

export function nextStatus(row: StatusFields, event: Extract<CarrierEvent, { kind: 'status' }>): Partial<MessagesTable> | null {
  if (row.status === 'FAILED' || row.pending === 1) return null;
  if (event.status === 'FAILED') {
    if (row.status === 'READ') return null;
    return { status: 'FAILED', failed_at: Math.max(event.at, row.sent_at ?? event.at), error: event.error ?? 'Delivery failed' };
  }
  const from = RANK[row.status];
  const to = RANK[event.status];
  if (from === undefined || to === undefined || to <= from) {
    // A late DELIVERED after READ still fills in the delivery time.
    if (event.status === 'DELIVERED' && row.delivered_at === null && row.status === 'READ') return { delivered_at: Math.min(row.read_at ?? event.at, Math.max(event.at, row.sent_at ?? event.at)) };
    return null;
  }
  // A receipt is never earlier than the recorded hand-over (clocks of carrier and engine differ).
  const at = Math.max(event.at, row.sent_at ?? event.at);
  return event.status === 'DELIVERED'
    ? { status: 'DELIVERED', delivered_at: at }
    : { status: 'READ', read_at: at, ...(row.delivered_at === null ? { delivered_at: at } : {}) };
}
