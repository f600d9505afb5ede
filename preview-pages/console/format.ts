import { DateTime } from 'luxon';

/** A time for people: in the account's zone, minutes precision, with the zone's abbreviation. */
export function formatTime(value: string | number | null | undefined, zone: string): string {
  if (value === null || value === undefined) return '—';
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) return '—';
  return DateTime.fromMillis(ms, { zone }).toFormat('yyyy-LL-dd HH:mm ZZZZ');
}
