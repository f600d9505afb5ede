import { describe, expect, it } from 'vitest';
import { resolveScheduleTime, type ScheduleResolution } from '../../../src/schedule/resolve.js';
import { canonicalTimeZone, isValidTimeZone, listTimezones } from '../../../src/schedule/timezones.js';

const now = Date.UTC(2026, 0, 15, 12, 0, 0);
const resolve = (scheduleAt: unknown, timeZone?: unknown, accountTimeZone = 'Europe/Berlin', graceMs?: number): ScheduleResolution =>
  resolveScheduleTime({ scheduleAt, timeZone, accountTimeZone, now, graceMs });

describe('resolveScheduleTime: instants', () => {
  it.each([
    // [scheduleAt, timeZone, utc, localTime, source]
    ['2026-05-01T09:30', 'Europe/Berlin', '2026-05-01T07:30:00.000Z', '2026-05-01T09:30:00.000+02:00', 'request'],
    ['2026-05-01T09:30:00', undefined, '2026-05-01T07:30:00.000Z', '2026-05-01T09:30:00.000+02:00', 'account'],
    ['2026-05-01T09:30', null, '2026-05-01T07:30:00.000Z', '2026-05-01T09:30:00.000+02:00', 'account'],
    ['2026-02-01T09:30', 'Europe/Berlin', '2026-02-01T08:30:00.000Z', '2026-02-01T09:30:00.000+01:00', 'request'],
    ['2026-05-01T09:30', 'America/New_York', '2026-05-01T13:30:00.000Z', '2026-05-01T09:30:00.000-04:00', 'request'],
    ['2026-05-01T09:30:15.250', 'Asia/Kolkata', '2026-05-01T04:00:15.250Z', '2026-05-01T09:30:15.250+05:30', 'request'],
    ['2026-05-01 09:30', 'UTC', '2026-05-01T09:30:00.000Z', '2026-05-01T09:30:00.000Z', 'request'],
  ])('%s in %s → %s', (scheduleAt, tz, utc, localTime, source) => {
    expect(resolve(scheduleAt, tz)).toMatchObject({ ok: true, utc, localTime, timezoneSource: source, offsetInInput: false });
  });

  it.each([
    ['2026-05-01T09:30:00Z', '2026-05-01T09:30:00.000Z', '2026-05-01T05:30:00.000-04:00'],
    ['2026-05-01T09:30:00+05:30', '2026-05-01T04:00:00.000Z', '2026-05-01T00:00:00.000-04:00'],
    ['2026-05-01T09:30-0300', '2026-05-01T12:30:00.000Z', '2026-05-01T08:30:00.000-04:00'],
    ['2026-03-08T02:30:00-05:00', '2026-03-08T07:30:00.000Z', '2026-03-08T03:30:00.000-04:00'],
  ])('an offset in %s wins over timeZone for the instant', (scheduleAt, utc, localTime) => {
    const r = resolve(scheduleAt, 'America/New_York');
    expect(r).toMatchObject({ ok: true, utc, localTime, effectiveTimezone: 'America/New_York', offsetInInput: true });
    if (r.ok) expect(r.epochMs).toBe(Date.parse(utc));
  });

  it('canonicalises the zone name', () => {
    expect(resolve('2026-05-01T09:30', 'europe/berlin')).toMatchObject({ ok: true, effectiveTimezone: 'Europe/Berlin' });
  });
});

describe('resolveScheduleTime: DST', () => {
  it.each([
    ['Europe/Berlin', '2026-03-29T02:30', '2026-03-29T01:59:00.000+01:00', '2026-03-29T03:00:00.000+02:00', '02:00 to 03:00'],
    ['Europe/Berlin', '2026-03-29T02:00', '2026-03-29T01:59:00.000+01:00', '2026-03-29T03:00:00.000+02:00', '02:00 to 03:00'],
    ['America/New_York', '2026-03-08T02:30', '2026-03-08T01:59:00.000-05:00', '2026-03-08T03:00:00.000-04:00', '02:00 to 03:00'],
    ['Australia/Lord_Howe', '2026-10-04T02:15', '2026-10-04T01:59:00.000+10:30', '2026-10-04T02:30:00.000+11:00', '02:00 to 02:30'],
  ])('a time in the spring-forward gap of %s (%s) is refused with the nearest valid times', (tz, at, before, after, jump) => {
    const r = resolve(at, tz);
    expect(r).toMatchObject({ ok: false, code: 'dst_gap', gap: { before: { localTime: before }, after: { localTime: after } } });
    if (!r.ok) {
      expect(r.message).toContain(tz);
      expect(r.message).toContain(jump);
      expect(r.message).toContain(before);
      expect(r.message).toContain(after);
    }
  });

  it.each([
    ['2026-03-29T01:59', 'Europe/Berlin', '2026-03-29T00:59:00.000Z'],
    ['2026-03-29T03:00', 'Europe/Berlin', '2026-03-29T01:00:00.000Z'],
    ['2026-03-08T03:00', 'America/New_York', '2026-03-08T07:00:00.000Z'],
  ])('the edges of the gap are valid: %s %s', (at, tz, utc) => {
    expect(resolve(at, tz)).toMatchObject({ ok: true, utc });
    expect((resolve(at, tz) as { dst?: unknown }).dst).toBeUndefined();
  });

  it.each([
    ['Europe/Berlin', '2026-10-25T02:30', '2026-10-25T00:30:00.000Z', '2026-10-25T02:30:00.000+02:00', '2026-10-25T01:30:00.000Z', '2026-10-25T02:30:00.000+01:00'],
    ['America/New_York', '2026-11-01T01:30', '2026-11-01T05:30:00.000Z', '2026-11-01T01:30:00.000-04:00', '2026-11-01T06:30:00.000Z', '2026-11-01T01:30:00.000-05:00'],
  ])('a time in the fall-back overlap of %s takes the earlier instant and reports both', (tz, at, utc, local, laterUtc, laterLocal) => {
    expect(resolve(at, tz)).toEqual({
      ok: true,
      utc,
      epochMs: Date.parse(utc),
      localTime: local,
      effectiveTimezone: tz,
      timezoneSource: 'request',
      offsetInInput: false,
      dst: {
        ambiguous: true,
        chosen: 'earlier',
        alternatives: [
          { utc, localTime: local },
          { utc: laterUtc, localTime: laterLocal },
        ],
      },
    });
  });

  it('an explicit offset inside the overlap picks that instant, without ambiguity', () => {
    const r = resolve('2026-10-25T02:30:00+01:00', 'Europe/Berlin');
    expect(r).toMatchObject({ ok: true, utc: '2026-10-25T01:30:00.000Z' });
    expect((r as { dst?: unknown }).dst).toBeUndefined();
  });
});

describe('resolveScheduleTime: errors', () => {
  it.each([
    ['2026-05-01', 'invalid_datetime'],
    ['tomorrow 9am', 'invalid_datetime'],
    ['2026-02-30T09:00', 'invalid_datetime'],
    ['2026-13-01T09:00', 'invalid_datetime'],
    ['2026-05-01T24:00', 'invalid_datetime'],
    ['2026-05-01T09:60', 'invalid_datetime'],
    ['2026-05-01T09:00+25:00', 'invalid_datetime'],
    ['', 'invalid_datetime'],
    [1777626000000, 'invalid_datetime'],
    [null, 'invalid_datetime'],
  ])('%j → %s', (at, code) => {
    expect(resolve(at, 'UTC')).toMatchObject({ ok: false, code });
  });

  it.each(['Mars/Olympus', 'CEST', '+01:00', '', 'Europe/Berlin ', 42])('timeZone %j → invalid_timezone', (tz) => {
    const r = resolve('2026-05-01T09:30', tz);
    expect(r).toMatchObject({ ok: false, code: 'invalid_timezone' });
  });

  it('an invalid account zone is reported as such', () => {
    const r = resolve('2026-05-01T09:30', undefined, 'Nowhere/Town');
    expect(r).toMatchObject({ ok: false, code: 'invalid_timezone' });
    if (!r.ok) expect(r.message).toContain('account');
  });

  it('a past time is refused; now itself is accepted; grace widens it', () => {
    expect(resolve('2026-01-15T11:59:59Z', 'UTC')).toMatchObject({ ok: false, code: 'in_past' });
    expect(resolve('2026-01-15T12:00:00Z', 'UTC')).toMatchObject({ ok: true });
    expect(resolve('2026-01-15T11:59:30Z', 'UTC', 'UTC', 60_000)).toMatchObject({ ok: true });
    expect(resolve('2026-01-15T12:30', 'Europe/Berlin')).toMatchObject({ ok: false, code: 'in_past' });
  });
});

describe('time zones', () => {
  it('validates and canonicalises IANA names', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Base')).toBe(false);
    expect(isValidTimeZone(undefined)).toBe(false);
    expect(canonicalTimeZone('america/new_york')).toBe('America/New_York');
    expect(canonicalTimeZone('asia/kolkata')).toBe('Asia/Kolkata');
    expect(canonicalTimeZone('Asia/Calcutta')).toBe('Asia/Calcutta');
    expect(canonicalTimeZone('Europe/Kyiv')).toBe('Europe/Kyiv');
    expect(canonicalTimeZone('US/Eastern')).toBe('America/New_York');
    expect(canonicalTimeZone('utc')).toBe('UTC');
  });

  it('lists every zone with its offset and local time at now', () => {
    const zones = listTimezones(now);
    expect(zones.length).toBeGreaterThan(300);
    expect(zones.find((z) => z.timeZone === 'Europe/Berlin')).toEqual({
      timeZone: 'Europe/Berlin',
      offset: '+01:00',
      currentTime: '2026-01-15T13:00:00.000+01:00',
    });
    expect(zones.find((z) => z.timeZone === 'America/New_York')?.offset).toBe('-05:00');
    expect(zones.find((z) => z.timeZone === 'Asia/Kathmandu')?.offset).toBe('+05:45');
    expect(zones.some((z) => z.timeZone === 'UTC')).toBe(true);
    expect(zones.some((z) => z.timeZone === 'Asia/Calcutta')).toBe(false);
    expect(new Set(zones.map((z) => z.timeZone)).size).toBe(zones.length);
    const summer = listTimezones(Date.UTC(2026, 6, 1)).find((z) => z.timeZone === 'Europe/Berlin');
    expect(summer?.offset).toBe('+02:00');
    for (const z of zones) expect(isValidTimeZone(z.timeZone)).toBe(true);
  });
});
