import { sql } from 'kysely';
import { z } from 'zod';
import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db, type DbOrTx } from '../platform/db/database.js';
import { sortKey } from '../platform/db/sort-key.js';
import { Corrections } from '../billing/ledger.js';
import { AppError } from '../platform/errors.js';
import { assertId, isId } from '../platform/ids.js';
import { keysetPage, type CursorPagination } from '../platform/pagination.js';
import { parseOrThrow } from '../platform/validation.js';
import { normalizePhone } from '../phone/index.js';
import { MESSAGE_STATUSES, toContentResponse, toLogRecord, type Approver, type MessageLogRecord } from './records.js';
import { MESSAGE_LOG_LIMIT_MAX, MESSAGE_LOG_MAX_RANGE_DAYS } from './limits.js';

/** Who approved which previews (the previews area answers): the log names the approver of each message sent from one. */
export type ApproversOf = (accountId: string, previewIds: readonly string[]) => Promise<ReadonlyMap<string, Approver>>;

const DAY = 86_400_000;

const DateParam = z.string().max(40).refine((s) => !Number.isNaN(Date.parse(s)), { message: 'must be an ISO 8601 date or date-time' });

/** GET {messages_url}/log query (spec §4.3). */
export const LogQuerySchema = z.strictObject({
  messageId: z.string().max(64).optional().describe('Single lookup; no date range needed.'),
  startDate: DateParam.optional().describe('Default: 7 days ago.'),
  endDate: DateParam.optional().describe('Default: now.'),
  phoneNumber: z.string().max(40).optional().describe('Exact number.'),
  campaignName: z.string().max(100).optional(),
  direction: z.string().max(20).optional().describe('OUTBOUND or INBOUND'),
  status: z.string().max(200).optional().describe(`Comma-separated: ${MESSAGE_STATUSES.join(', ')}`),
  type: z.string().max(40).optional().describe('Comma-separated: sms, rcs, mms'),
  limit: z.coerce.number().int().min(1).max(MESSAGE_LOG_LIMIT_MAX).default(50),
  cursor: z.string().max(2048).optional(),
});
export type LogQuery = z.input<typeof LogQuerySchema>;

export interface LogPage {
  messages: MessageLogRecord[];
  pagination: CursorPagination;
}

function csv<T extends string>(raw: string | undefined, allowed: readonly T[], path: string, transform: (s: string) => string): T[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  const values = raw.split(',').map((s) => transform(s.trim()));
  for (const v of values) {
    if (!(allowed as readonly string[]).includes(v)) {
      throw new AppError('VALIDATION_ERROR', `${path}: unknown value "${v}" (allowed: ${allowed.join(', ')})`, { details: [{ path, code: 'invalid_enum', message: `Allowed: ${allowed.join(', ')}` }] });
    }
  }
  return values as T[];
}

export interface LogDeps {
  db: Db;
  clock: Clock;
  /** The previews area's answer to who approved the previews messages were sent from. */
  approversOf: ApproversOf;
}

/** The message log (spec §4.3): list, content, and cancelling one scheduled message. */
export class LogService {
  constructor(private readonly d: LogDeps) {}

  async list(accountId: string, rawQuery: unknown): Promise<LogPage> {
    const q = parseOrThrow(LogQuerySchema, rawQuery, 'Query');
    let qb = this.d.db.selectFrom('messages').selectAll().where('account_id', '=', accountId);
    if (q.messageId !== undefined) {
      if (!isId('msg', q.messageId)) assertId('msg', q.messageId, 'messageId');
      qb = qb.where('id', '=', q.messageId);
    } else {
      const now = this.d.clock.now();
      const end = q.endDate !== undefined ? Date.parse(q.endDate) : now;
      const start = q.startDate !== undefined ? Date.parse(q.startDate) : now - 7 * DAY;
      if (start > end) throw new AppError('VALIDATION_ERROR', 'startDate must not be after endDate', { details: [{ path: 'startDate', code: 'invalid_range', message: 'startDate is after endDate' }] });
      if (end - start > MESSAGE_LOG_MAX_RANGE_DAYS * DAY) {
        throw new AppError('VALIDATION_ERROR', `The date range is at most ${MESSAGE_LOG_MAX_RANGE_DAYS} days`, { details: [{ path: 'endDate', code: 'range_too_long', message: `endDate may be at most ${MESSAGE_LOG_MAX_RANGE_DAYS} days after startDate` }] });
      }
      qb = qb.where('created_at', '>=', start).where('created_at', '<=', end);
    }
    if (q.phoneNumber !== undefined) {
      const n = normalizePhone(q.phoneNumber);
      const digits = n.ok ? n.digits : q.phoneNumber.replace(/^\+|^00/, '').replace(/\D/g, '');
      qb = qb.where('phone', '=', digits);
    }
    if (q.campaignName !== undefined) qb = qb.where('campaign_name', '=', q.campaignName);
    if (q.direction !== undefined) qb = qb.where('direction', '=', q.direction.toUpperCase() as 'OUTBOUND');
    const statuses = csv(q.status, MESSAGE_STATUSES, 'status', (s) => s.toUpperCase());
    if (statuses) qb = qb.where('status', 'in', statuses);
    const types = csv(q.type, ['sms', 'rcs', 'mms'] as const, 'type', (s) => s.toLowerCase());
    if (types) {
      const upper = types.map((t) => t.toUpperCase()).filter((t): t is 'RCS' | 'SMS' => t !== 'MMS');
      qb = upper.length ? qb.where('type', 'in', upper) : qb.where(sql<boolean>`1 = 0`);
    }
    const page = await keysetPage(qb, {
      scope: { kind: 'messages', sort: 'createdAt', order: 'desc' },
      // With a number: its messages through (account_id, phone, created_at), then sorted.
      sortExpr: sortKey('created_at', { afterFilter: q.phoneNumber !== undefined }),
      idExpr: sql.ref('id'),
      limit: q.limit,
      cursor: q.cursor,
    });
    const previewIds = page.rows.flatMap((r) => (r.preview_id ? [r.preview_id] : []));
    const approvers = previewIds.length > 0 ? await this.d.approversOf(accountId, previewIds) : new Map<string, Approver>();
    return { messages: page.rows.map((r) => toLogRecord(r, r.preview_id ? (approvers.get(r.preview_id) ?? null) : null)), pagination: page.pagination };
  }

  async content(accountId: string, id: string) {
    assertId('msg', id, 'id');
    const row = await this.d.db.selectFrom('messages').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', 'Message not found');
    return toContentResponse(row);
  }

  /**
   * Cancels one SCHEDULED message (spec §3.1): the record is removed and its credits refunded.
   * Anything already sending or sent, or another account's, is a 404.
   */
  async cancelScheduled(accountId: string, id: string): Promise<{ success: true; messageId: string; cancelled: true; creditsRefunded: number }> {
    assertId('msg', id, 'id');
    return inTransaction(this.d.db, async (tx) => {
      const refunded = await cancelScheduledMessages(tx, accountId, { messageIds: [id] }, this.d.clock.now());
      if (refunded.count === 0) throw new AppError('NOT_FOUND', 'Message not found or no longer scheduled (only SCHEDULED messages can be cancelled)');
      return { success: true as const, messageId: id, cancelled: true as const, creditsRefunded: refunded.credits / 1000 };
    });
  }
}

/** Which scheduled messages to cancel: by message ids, by contact ids, or all of a job. */
export type ScheduledSelection = { messageIds: readonly string[] } | { contactIds: readonly string[] } | { jobId: string };

/**
 * Removes scheduled, unclaimed messages of the account, refunds their credits and counts them on
 * their jobs. Shared by message cancel, job cancel, contact delete/disable and opt-out, always
 * inside the caller's transaction. Messages already claimed by the dispatcher are left to finish.
 */
export async function cancelScheduledMessages(tx: DbOrTx, accountId: string, selection: ScheduledSelection, now: number, statuses: readonly ('SCHEDULED' | 'SENDING')[] = ['SCHEDULED']): Promise<{ count: number; credits: number }> {
  let qb = tx
    .selectFrom('messages')
    .select(['id', 'job_id', 'credits_cost_milli'])
    .where('account_id', '=', accountId)
    .where('status', 'in', statuses)
    .where('pending', '=', 1)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]));
  if ('messageIds' in selection) {
    if (selection.messageIds.length === 0) return { count: 0, credits: 0 };
    qb = qb.where('id', 'in', selection.messageIds);
  } else if ('contactIds' in selection) {
    if (selection.contactIds.length === 0) return { count: 0, credits: 0 };
    qb = qb.where('contact_id', 'in', selection.contactIds);
  } else {
    qb = qb.where('job_id', '=', selection.jobId);
  }
  const rows = await qb.execute();
  if (rows.length === 0) return { count: 0, credits: 0 };
  const ids = rows.map((r) => r.id);
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    await tx.deleteFrom('unsubscribe_tokens').where('message_id', 'in', part).execute();
    await tx.deleteFrom('messages').where('id', 'in', part).where('pending', '=', 1).execute();
  }
  const refunds = new Corrections();
  for (const r of rows) refunds.add({ accountId, kind: 'refund', amountMilli: r.credits_cost_milli ?? 0, reason: 'Refund: scheduled message cancelled', messageId: r.id, jobId: r.job_id });
  await refunds.write(tx, now);
  const credits = refunds.total();
  const perJob = new Map<string, number>();
  for (const r of rows) if (r.job_id) perJob.set(r.job_id, (perJob.get(r.job_id) ?? 0) + 1);
  for (const [jobId, n] of perJob) {
    await tx.updateTable('jobs').set((eb) => ({ cancelled_count: eb('cancelled_count', '+', n) })).where('id', '=', jobId).execute();
  }
  return { count: rows.length, credits };
}
