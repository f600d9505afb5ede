import { DateTime, IANAZone } from 'luxon';
import { canonicalTimeZone } from './timezones.js';

export interface ScheduleInput {
  /** ISO 8601 date-time, with or without Z/offset. */
  scheduleAt: unknown;
  /** IANA zone from the request; absent (undefined/null) means the account's. */
  timeZone?: unknown;
  accountTimeZone: string;
  now: number;
  /** How far in the past a time may be and still be accepted (clock skew, slow clients). Default 0. */
  graceMs?: number;
}

export interface ScheduleInstant {
  utc: string;
  localTime: string;
}

export type ScheduleErrorCode = 'invalid_datetime' | 'invalid_timezone' | 'in_past' | 'dst_gap';

export type ScheduleResolution =
  | {
      ok: true;
      /** The instant, `2026-03-29T01:30:00.000Z`. */
      utc: string;
      epochMs: number;
      /** The instant in the effective zone, `2026-03-29T03:30:00.000+02:00`. */
      localTime: string;
      effectiveTimezone: string;
      timezoneSource: 'request' | 'account';
      /** True when scheduleAt carried Z or an offset, which then decided the instant. */
      offsetInInput: boolean;
      /** Present when the wall time occurs twice (DST fall-back); the earlier instant is used. */
      dst?: { ambiguous: true; chosen: 'earlier'; alternatives: ScheduleInstant[] };
    }
  | {
      ok: false;
      code: ScheduleErrorCode;
      message: string;
      /** For dst_gap: the last valid time before the gap and the first after it. */
      gap?: { before: ScheduleInstant; after: ScheduleInstant };
    };

const MINUTE = 60_000;
const DAY = 86_400_000;

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

interface WallTime {
  /** The wall-clock reading expressed as if it were UTC. */
  wallMs: number;
  /** Minutes east of UTC when the input carried one. */
  offsetMinutes: number | null;
}

function parseIso(input: string): WallTime | null {
  const m = ISO_DATE_TIME.exec(input.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  const ms = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  let offsetMinutes: number | null = null;
  if (z !== undefined) offsetMinutes = 0;
  else if (sign !== undefined) {
    const hours = Number(oh);
    const minutes = om === undefined ? 0 : Number(om);
    if (hours > 18 || minutes > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  return { wallMs: date.getTime(), offsetMinutes };
}

function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
}

const instant = (ms: number, zone: string): ScheduleInstant => ({
  utc: new Date(ms).toISOString(),
  localTime: DateTime.fromMillis(ms, { zone }).toISO() ?? new Date(ms).toISOString(),
});

/** An instant as UTC (…Z) and as the local time with the zone's offset (…+02:00): how answers name a time. */
export const instantIn = instant;

/** Instants whose local reading in the zone is the given wall time: 0 (gap), 1, or 2 (overlap). */
function instantsForWallTime(zone: IANAZone, wallMs: number): number[] {
  const offsets = new Set([zone.offset(wallMs - DAY), zone.offset(wallMs), zone.offset(wallMs + DAY)]);
  const found: number[] = [];
  for (const offset of offsets) {
    const candidate = wallMs - offset * MINUTE;
    if (zone.offset(candidate) === offset && !found.includes(candidate)) found.push(candidate);
  }
  return found.sort((a, b) => a - b);
}

/** The first instant at or after `lo` that uses the offset in force at `hi` (a DST transition). */
function transitionBetween(zone: IANAZone, lo: number, hi: number): number {
  const target = zone.offset(hi);
  let a = Math.floor(lo / MINUTE);
  let b = Math.ceil(hi / MINUTE);
  while (a < b) {
    const mid = Math.floor((a + b) / 2);
    if (zone.offset(mid * MINUTE) === target) b = mid;
    else a = mid + 1;
  }
  return a * MINUTE;
}

function wallLabel(wallMs: number): string {
  return new Date(wallMs).toISOString().slice(0, 16);
}

/**
 * Turns scheduleAt + timeZone into an instant (§4.1, §2.12). An offset or Z in the string fixes
 * the instant; otherwise the string is wall-clock time in the request's zone, else the account's.
 * Wall times that do not exist (spring-forward gap) are refused with the nearest valid times,
 * because silently shifting a campaign by an hour is worse than asking; wall times that occur
 * twice (fall-back overlap) take the earlier instant and say so.
 */
export function resolveScheduleTime(input: ScheduleInput): ScheduleResolution {
  const requested = input.timeZone !== undefined && input.timeZone !== null;
  const zoneName = canonicalTimeZone(requested ? input.timeZone : input.accountTimeZone);
  if (zoneName === null) {
    const given = requested ? input.timeZone : input.accountTimeZone;
    const shown = typeof given === 'string' ? `"${given.slice(0, 64)}"` : String(given);
    return {
      ok: false,
      code: 'invalid_timezone',
      message: requested
        ? `timeZone ${shown} is not an IANA time zone name (e.g. Europe/Berlin, America/New_York, UTC).`
        : `The account time zone ${shown} is not a valid IANA name; pass timeZone explicitly or fix the account setting.`,
    };
  }
  const source = requested ? 'request' : 'account';

  if (typeof input.scheduleAt !== 'string') {
    return { ok: false, code: 'invalid_datetime', message: 'scheduleAt must be an ISO 8601 date-time string, e.g. 2026-05-01T09:30:00.' };
  }
  const parsed = parseIso(input.scheduleAt);
  if (!parsed) {
    return {
      ok: false,
      code: 'invalid_datetime',
      message: `scheduleAt "${input.scheduleAt.slice(0, 64)}" is not a valid ISO 8601 date-time (YYYY-MM-DDTHH:mm[:ss[.sss]], optional Z or ±HH:MM).`,
    };
  }

  const zone = IANAZone.create(zoneName);
  let epochMs: number;
  let dst: { ambiguous: true; chosen: 'earlier'; alternatives: ScheduleInstant[] } | undefined;
  if (parsed.offsetMinutes !== null) {
    epochMs = parsed.wallMs - parsed.offsetMinutes * MINUTE;
  } else {
    const candidates = instantsForWallTime(zone, parsed.wallMs);
    if (candidates.length === 0) return gapError(zone, zoneName, parsed.wallMs);
    epochMs = candidates[0] as number;
    if (candidates.length > 1) {
      dst = { ambiguous: true, chosen: 'earlier', alternatives: candidates.map((ms) => instant(ms, zoneName)) };
    }
  }

  if (!Number.isFinite(epochMs) || Math.abs(epochMs) > 8.64e15) {
    return { ok: false, code: 'invalid_datetime', message: 'scheduleAt is out of the supported date range.' };
  }
  const grace = Math.max(0, input.graceMs ?? 0);
  if (epochMs < input.now - grace) {
    return {
      ok: false,
      code: 'in_past',
      message: `scheduleAt ${new Date(epochMs).toISOString()} is in the past (now ${new Date(input.now).toISOString()}); omit scheduleAt to send immediately.`,
    };
  }
  const at = instant(epochMs, zoneName);
  const result: ScheduleResolution = {
    ok: true,
    utc: at.utc,
    epochMs,
    localTime: at.localTime,
    effectiveTimezone: zoneName,
    timezoneSource: source,
    offsetInInput: parsed.offsetMinutes !== null,
  };
  if (dst) result.dst = dst;
  return result;
}

function gapError(zone: IANAZone, zoneName: string, wallMs: number): ScheduleResolution {
  const before = zone.offset(wallMs - DAY);
  const after = zone.offset(wallMs + DAY);
  const label = wallLabel(wallMs);
  if (!(after > before)) {
    return { ok: false, code: 'dst_gap', message: `${label} does not exist in ${zoneName} (the clocks skip it); choose another time.` };
  }
  const transition = transitionBetween(zone, wallMs - after * MINUTE, wallMs - before * MINUTE);
  const lastBefore = instant(transition - MINUTE, zoneName);
  const firstAfter = instant(transition, zoneName);
  const from = wallLabel(transition + before * MINUTE).slice(11);
  const to = wallLabel(transition + after * MINUTE).slice(11);
  return {
    ok: false,
    code: 'dst_gap',
    message:
      `${label} does not exist in ${zoneName}: on ${label.slice(0, 10)} the clocks jump from ${from} to ${to} (daylight saving time). ` +
      `Nearest valid times: ${lastBefore.localTime} (before the gap) or ${firstAfter.localTime} (after it).`,
    gap: { before: lastBefore, after: firstAfter },
  };
}
