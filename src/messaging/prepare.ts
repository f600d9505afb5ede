import type { z } from 'zod';
import type { Account } from '../accounts/schemas.js';
import { validateContent, type Content, type MessageType, type ValidationResult } from '../content/index.js';
import type { DbOrTx } from '../platform/db/database.js';
import type { SendersTable } from '../platform/db/tables/foundation.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { zodDetails } from '../platform/validation.js';
import { resolveScheduleTime, type ScheduleResolution } from '../schedule/index.js';

export type ScheduleOk = Extract<ScheduleResolution, { ok: true }>;

/**
 * Parses a send body: the envelope with zod, the content with the one content validator, so a
 * caller gets every problem at once with exact paths. Returns the validator's warnings too.
 */
export function parseSendBody<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  opts: { rcs: boolean; customFieldTags: ReadonlySet<string> },
): { body: z.output<S>; validation: ValidationResult | null } {
  const details: ErrorDetail[] = [];
  let validation: ValidationResult | null = null;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new AppError('VALIDATION_ERROR', 'The request body must be a JSON object');
  }
  const obj = raw as Record<string, unknown>;
  if (opts.rcs) {
    validation = validateContent(obj.messageType, obj.content, { smsFallback: obj.smsFallback, knownMergeFields: opts.customFieldTags });
    details.push(...validation.errors);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const seen = new Set(details.map((d) => d.path));
    // The content validator explains content, messageType and smsFallback more precisely than the
    // schema: a schema issue there is dropped when the validator already reported that field. (It
    // does not require smsFallback.sendernameId, which only the send schema does.)
    const top = (path: string) => /^[^.[]*/.exec(path)![0];
    const reported = new Set(details.map((d) => top(d.path)));
    for (const d of zodDetails(parsed.error)) {
      if (opts.rcs && reported.has(top(d.path)) && ['messageType', 'content', 'smsFallback'].includes(top(d.path))) continue;
      if (!seen.has(d.path)) details.push(d);
    }
  }
  if (details.length > 0 || !parsed.success) {
    const first = details[0];
    throw new AppError('VALIDATION_ERROR', first ? `${first.path}: ${first.message}` : 'The request is invalid', {
      details,
      ...(validation ? { extra: { warnings: validation.warnings } } : {}),
    });
  }
  return { body: parsed.data, validation };
}

/** The sender must be the caller's, of the right type, and APPROVED (spec §3.2). */
export async function usableSender(tx: DbOrTx, accountId: string, idOrName: string, type: 'RCS' | 'SMS', path: string, byName = false): Promise<SendersTable> {
  let q = tx.selectFrom('senders').selectAll().where('account_id', '=', accountId).where('type', '=', type);
  q = byName ? q.where((eb) => eb.or([eb('id', '=', idOrName), eb('name', '=', idOrName)])) : q.where('id', '=', idOrName);
  const rows = await q.orderBy('created_at').execute();
  const row = rows.find((r) => r.id === idOrName) ?? rows[0];
  if (!row) {
    throw new AppError('VALIDATION_ERROR', `${path}: no ${type} sender "${idOrName}" on this account (list them with GET /api/rcs/senders?type=${type})`, {
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
