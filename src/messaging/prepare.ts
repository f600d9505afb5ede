import { z } from 'zod';
import type { Account } from '../accounts/schemas.js';
import { contentIssues, type Content, type MessageType } from '../content/index.js';
import type { DbOrTx } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { zodDetails } from '../platform/validation.js';
import { resolveScheduleTime, type ScheduleResolution } from '../schedule/index.js';

/** The senders table's row (owned by src/senders/, read here through the database's type: no import of a higher area). */
type SendersTable = Database['senders'];

export type ScheduleOk = Extract<ScheduleResolution, { ok: true }>;

/** Top-level fields whose problems are named in the content codes (too_many, empty, unknown_field at the key, …). */
const CONTENT_FIELDS: ReadonlySet<PropertyKey> = new Set(['messageType', 'content', 'smsFallback']);

/** Each send schema compiled once (z.compile: same issues, about three times the speed of the runtime parser). */
const compiled = new WeakMap<z.ZodType, z.ZodType>();

/**
 * The door of every send (REST route, preview of an MCP or REST send, a stored preview being
 * sent): the body parsed once against its schema — envelope, content and what the messageType
 * needs of it — so a caller gets every problem at once with exact paths. What it returns is the
 * typed body the send service takes as it is.
 */
export function parseSendBody<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new AppError('VALIDATION_ERROR', 'The request body must be a JSON object');
  }
  let fast = compiled.get(schema);
  if (!fast) {
    fast = z.compile(schema);
    compiled.set(schema, fast);
  }
  const parsed = fast.safeParse(raw, { reportInput: true });
  if (parsed.success) return parsed.data as z.output<S>;
  const issues = parsed.error.issues;
  const content = issues.filter((i) => CONTENT_FIELDS.has(i.path[0] ?? ''));
  const others = issues.filter((i) => !CONTENT_FIELDS.has(i.path[0] ?? ''));
  const details: ErrorDetail[] = [...contentIssues(content, schema), ...zodDetails(new z.ZodError(others))];
  const first = details[0];
  throw new AppError('VALIDATION_ERROR', first ? `${first.path}: ${first.message}` : 'The request is invalid', { details });
}

/** The sender must be the caller's, of the right type, and APPROVED (spec §3.2). */
export async function usableSender(tx: DbOrTx, accountId: string, idOrName: string, type: 'RCS' | 'SMS', path: string, byName = false): Promise<SendersTable> {
  let q = tx.selectFrom('senders').selectAll().where('account_id', '=', accountId).where('type', '=', type);
  q = byName ? q.where((eb) => eb.or([eb('id', '=', idOrName), eb('name', '=', idOrName)])) : q.where('id', '=', idOrName);
  const rows = await q.orderBy('created_at').execute();
  const row = rows.find((r) => r.id === idOrName) ?? rows[0];
  if (!row) {
    // Said the same way on every door (no REST route: an assistant on MCP lists senders with a tool).
    const other = type === 'RCS' ? 'SMS' : 'RCS';
    const elsewhere = await tx.selectFrom('senders').select('id').where('account_id', '=', accountId).where('type', '=', other).where('id', '=', idOrName).executeTakeFirst();
    const hint = elsewhere ? `: "${idOrName}" is an ${other} sender; ${path} takes an ${type} sender` : '; use the id of one of the account’s APPROVED senders of that type';
    throw new AppError('VALIDATION_ERROR', `${path}: no ${type} sender "${idOrName}" on this account${hint}`, {
      details: [{ path, code: 'unknown_sender', message: `Unknown ${type} sender` }],
    });
  }
  if (row.status !== 'APPROVED') {
    throw new AppError('SENDER_NOT_APPROVED', `${path}: sender "${row.name}" is ${row.status}${row.rejection_reason ? ` (${row.rejection_reason})` : ''} and cannot send`, {
      details: [{ path, code: 'sender_not_approved', message: `Sender status is ${row.status}` }],
    });
  }
  return row;
}

export function scheduleFor(account: Account, scheduleAt: string | undefined, timeZone: string | undefined, now: number): ScheduleOk | null {
  if (scheduleAt === undefined) {
    if (timeZone !== undefined) {
      const r = resolveScheduleTime({ scheduleAt: new Date(now + 60_000).toISOString(), timeZone, accountTimeZone: account.timezone, now });
      if (!r.ok && r.code === 'invalid_timezone') throw scheduleError(r);
    }
    return null;
  }
  const r = resolveScheduleTime({ scheduleAt, timeZone, accountTimeZone: account.timezone, now, graceMs: 5_000 });
  if (!r.ok) throw scheduleError(r);
  return r;
}

function scheduleError(r: Extract<ScheduleResolution, { ok: false }>): AppError {
  const path = r.code === 'invalid_timezone' ? 'timeZone' : 'scheduleAt';
  return new AppError('INVALID_SCHEDULE_TIME', r.message, { details: [{ path, code: r.code, message: r.message }], ...(r.gap ? { extra: { gap: r.gap } } : {}) });
}

export interface RcsPayload {
  messageType: MessageType;
  content: Content;
}
