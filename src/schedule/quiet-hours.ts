import { IANAZone } from 'luxon';
import { COUNTRY_ZONES } from './country-zones.js';
import { NANP_AREA_CODES, type NanpAreaCode } from './nanp-area-codes.js';
import { canonicalTimeZone } from './timezones.js';

/**
 * Quiet hours (issue #28): when marketing messages may reach a phone, in the recipient's local time. Pure: no I/O,
 * time passed in. The account switches it on (off by default) and may override a country's window; a send defers
 * each recipient whose delivery would fall outside the window to the window's next opening, never drops it.
 *
 * Windows by country — the defaults, and where rules differ, what they say (checked 2026-11; not legal advice):
 *
 * - General default: 08:00–21:00 every day, the window of the US federal rule below, used where no country rule is
 *   listed here.
 * - US: 08:00–21:00. 47 CFR § 64.1200(c)(1) (TCPA): no telephone solicitation "before the hour of 8 a.m. or after
 *   9 p.m. (local time at the called party's location)"
 *   (https://www.nwdebtresolution.com/post/telephone-consumer-protection-act-call-time-restrictions).
 *   Stricter states, taken from the number's area code, which both statutes presume to be the recipient's state:
 *   - Florida 08:00–20:00: Fla. Stat. § 501.616 (https://www.nolo.com/legal-encyclopedia/florida-restrictions-telemarketers.html);
 *     the Florida Telephone Solicitation Act covers text messages and presumes a Florida area code is a Florida
 *     resident (https://legalclarity.org/what-is-the-florida-telephone-solicitation-act).
 *   - Oklahoma 08:00–20:00: Oklahoma Telephone Solicitation Act of 2022, 15 O.S. § 775C, in force 1 Nov 2022, with
 *     the same area-code presumption
 *     (https://www.allaboutadvertisinglaw.com/2022/05/new-oklahoma-telephone-solicitation-act-is-not-ok-but-it-does-contain-an-important-exemption.html).
 * - FR: 08:00–20:00, Monday to Saturday, no marketing on Sundays: the CNIL's recommendation for commercial SMS as
 *   the French SMS industry applies it ("du lundi au samedi de 8h à 20h, interdiction le dimanche et les jours
 *   fériés", https://sendtargetsms.com/fr/horaires-legaux-sms/). Public holidays are not modelled (see
 *   docs/decisions.md). Telephone *calls* have a stricter decree (décret 2022-1313: weekdays 10–13 and 14–20,
 *   https://www.nextinpact.com/lebrief/1190); an account that wants it for SMS sets an override.
 *
 * Where the recipient is (recipientPlace):
 * 1. a contact's custom field tagged `timezone` or `time_zone` holding a valid IANA zone name: that zone;
 * 2. else a US or Canadian number whose area code is in the NANP table (nanp-area-codes.ts, issue #42): the zones
 *    that area code may be in — one for most (a Los Angeles number is on Pacific time), two or more where the code
 *    is split between zones (850 in the Florida panhandle, 270 in Kentucky, 208 in Idaho…) or is an overlay of
 *    such a code; a time is inside only when it is inside in every one of them;
 * 3. else the number's country (libphonenumber-js `max` metadata, resolved before this module): its zones from the
 *    tz database (country-zones.ts). A country with several zones and no known region — a US toll-free number, a
 *    Canadian code the table does not place yet — gets the strictest window of the country: a time is inside only
 *    when it is inside in every one of its zones (the intersection).
 * The window is the country's (the account's override, else COUNTRY_WINDOWS, else DEFAULT_WINDOW), intersected with
 * the state's statutory window (STATE_WINDOWS: Florida, Oklahoma) when the area code is in that state — also when a
 * contact's own zone decides the clock (an override cannot loosen a state statute).
 */

/** A daily sending window in local wall-clock time. */
export interface SendingWindow {
  /** Minutes after local midnight from which messages may go out (inclusive). */
  start: number;
  /** Minutes after local midnight from which they may not (exclusive); start < end (no window spans midnight). */
  end: number;
  /** ISO weekdays (1 Monday … 7 Sunday) on which messages may go out. */
  days: readonly number[];
}

/** A window as written in settings and JSON: `{ "start": "08:00", "end": "20:00", "days": [1,2,3,4,5,6] }`. */
export interface WindowSpec {
  start: string;
  end: string;
  days?: number[];
}

const ALL_DAYS: readonly number[] = [1, 2, 3, 4, 5, 6, 7];
const MINUTE = 60_000;
const DAY = 86_400_000;

export const DEFAULT_WINDOW: SendingWindow = { start: 8 * 60, end: 21 * 60, days: ALL_DAYS };

/** Countries whose rules differ from DEFAULT_WINDOW (sources above). */
export const COUNTRY_WINDOWS: Readonly<Record<string, SendingWindow>> = {
  US: { start: 8 * 60, end: 21 * 60, days: ALL_DAYS },
  FR: { start: 8 * 60, end: 20 * 60, days: [1, 2, 3, 4, 5, 6] },
};

/**
 * US states with a stricter statute than the federal window, by the state the number's area code belongs to
 * (NANP_AREA_CODES): both statutes presume the area code's state is the recipient's.
 */
export const STATE_WINDOWS: Readonly<Record<string, SendingWindow>> = {
  'US-FL': { start: 8 * 60, end: 20 * 60, days: ALL_DAYS },
  'US-OK': { start: 8 * 60, end: 20 * 60, days: ALL_DAYS },
};

/** Countries whose numbers are placed by their area code (the others of the NANP are countries with one zone each). */
const AREA_CODE_COUNTRIES: ReadonlySet<string> = new Set(['US', 'CA']);

/**
 * The area code of a US or Canadian number and what the NANP table says of it, or null: another country, a
 * non-geographic code (toll-free, 5XX, 900) or one the table does not place — those fall back to the country.
 */
export function areaCodeOf(phone: string, country: string): { code: string; area: NanpAreaCode } | null {
  if (!AREA_CODE_COUNTRIES.has(country) || !phone.startsWith('1')) return null;
  return areaCodeEntry(phone.slice(1, 4), country);
}

function areaCodeEntry(code: string, country: string): { code: string; area: NanpAreaCode } | null {
  const area = Object.hasOwn(NANP_AREA_CODES, code) ? NANP_AREA_CODES[code] : undefined;
  // The number's country comes from libphonenumber's metadata; a table entry of the other country is not trusted.
  return area && area.region.startsWith(`${country}-`) ? { code, area } : null;
}

/** Custom-field tags that hold a contact's time zone. */
export const TIME_ZONE_FIELD_TAGS: readonly string[] = ['timezone', 'time_zone'];

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** "08:00" → 480; null when not HH:MM (24:00 is allowed as an end: the end of the day). */
export function parseClock(s: string): number | null {
  if (s === '24:00') return 24 * 60;
  const m = HHMM.exec(s);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

export function formatClock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** A written window as a SendingWindow, or why not. */
export function windowFromSpec(spec: WindowSpec): SendingWindow | string {
  const start = parseClock(spec.start);
  const end = parseClock(spec.end);
  if (start === null || start >= 24 * 60) return `start must be HH:MM (00:00–23:59), got "${spec.start}"`;
  if (end === null) return `end must be HH:MM (00:01–24:00), got "${spec.end}"`;
  if (end <= start) return `end (${spec.end}) must be after start (${spec.start}); a window cannot span midnight`;
  const days = spec.days === undefined ? ALL_DAYS : [...new Set(spec.days)].sort((a, b) => a - b);
  if (days.length === 0 || days.some((d) => !Number.isInteger(d) || d < 1 || d > 7)) return 'days must be ISO weekdays 1 (Monday) … 7 (Sunday), at least one';
  return { start, end, days };
}

export function specOf(w: SendingWindow): WindowSpec {
  return { start: formatClock(w.start), end: formatClock(w.end), ...(w.days.length === 7 ? {} : { days: [...w.days] }) };
}

/** The stricter of two windows: both must allow it. null when they share no minute. */
export function intersectWindows(a: SendingWindow, b: SendingWindow): SendingWindow | null {
  const start = Math.max(a.start, b.start);
  const end = Math.min(a.end, b.end);
  const days = a.days.filter((d) => b.days.includes(d));
  return end > start && days.length > 0 ? { start, end, days } : null;
}

/** The window a country's recipients get: the account's override, else the listed rule, else the default. */
export function countryWindow(country: string, overrides?: Readonly<Record<string, WindowSpec>>): SendingWindow {
  const o = overrides?.[country];
  if (o) {
    const w = windowFromSpec(o);
    if (typeof w !== 'string') return w;
  }
  return COUNTRY_WINDOWS[country] ?? DEFAULT_WINDOW;
}

const zoneCache = new Map<string, IANAZone | null>();
function zoneOf(name: string): IANAZone | null {
  let z = zoneCache.get(name);
  if (z === undefined) {
    z = IANAZone.isValidZone(name) ? IANAZone.create(name) : null;
    if (zoneCache.size < 2000) zoneCache.set(name, z);
  }
  return z;
}

/** The local wall-clock reading at `at` in the zone, as if it were UTC ms. */
const wallOf = (zone: IANAZone, at: number): number => at + zone.offset(at) * MINUTE;

/** ISO weekday (1 Monday … 7 Sunday) of a wall-clock reading. */
const weekdayOfWall = (wallMs: number): number => ((new Date(wallMs).getUTCDay() + 6) % 7) + 1;

/** Whether the zone's local time at `at` is inside the window. */
export function isInsideWindow(w: SendingWindow, zoneName: string, at: number): boolean {
  const zone = zoneOf(zoneName);
  if (!zone) return true;
  const wall = wallOf(zone, at);
  const minute = Math.floor((((wall % DAY) + DAY) % DAY) / MINUTE);
  return w.days.includes(weekdayOfWall(wall)) && minute >= w.start && minute < w.end;
}

/**
 * The first instant whose local reading is at or after the wall time: the earlier instant when the wall time occurs
 * twice (fall back), the moment the clocks jump when it falls in a spring-forward gap (02:30 on a day the clocks
 * go from 02:00 to 03:00 opens at 03:00).
 */
export function firstInstantAtWall(zoneName: string, wallMs: number): number {
  const zone = zoneOf(zoneName);
  if (!zone) return wallMs;
  const before = zone.offset(wallMs - DAY);
  const after = zone.offset(wallMs + DAY);
  const found = [before, after].map((o) => wallMs - o * MINUTE).filter((t) => wallOf(zone, t) === wallMs);
  if (found.length > 0) return Math.min(...found);
  // A gap: the transition lies between the instants the wall time would have under either offset.
  let lo = Math.floor((wallMs - Math.max(before, after) * MINUTE) / MINUTE);
  let hi = Math.ceil((wallMs - Math.min(before, after) * MINUTE) / MINUTE);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (wallOf(zone, mid * MINUTE) >= wallMs) hi = mid;
    else lo = mid + 1;
  }
  return lo * MINUTE;
}

/** The window's next opening in the zone at or after `at`: `at` itself when it is inside. */
export function nextOpening(w: SendingWindow, zoneName: string, at: number): number {
  if (isInsideWindow(w, zoneName, at)) return at;
  const zone = zoneOf(zoneName);
  if (!zone) return at;
  const wall = wallOf(zone, at);
  const midnight = wall - (((wall % DAY) + DAY) % DAY);
  for (let k = 0; k <= 8; k++) {
    const dayWall = midnight + k * DAY;
    if (!w.days.includes(weekdayOfWall(dayWall))) continue;
    const opening = firstInstantAtWall(zoneName, dayWall + w.start * MINUTE);
    if (opening >= at && isInsideWindow(w, zoneName, opening)) return opening;
  }
  return at;
}

/**
 * The first instant at or after `at` inside the window in every one of the zones (the strictest window of a
 * country that spans several), or null when they share none within two weeks.
 */
export function nextCommonOpening(w: SendingWindow, zones: readonly string[], at: number): number | null {
  let t = at;
  for (let i = 0; i < 64 && t - at <= 14 * DAY; i++) {
    let m = t;
    for (const z of zones) m = Math.max(m, nextOpening(w, z, t));
    if (zones.every((z) => isInsideWindow(w, z, m))) return m;
    t = m === t ? t + MINUTE : m;
  }
  return null;
}

/** Where a recipient is, for quiet hours. */
export interface RecipientPlace {
  country: string;
  /**
   * The state or province of a US or Canadian number's area code (ISO 3166-2, e.g. 'US-CA', 'CA-BC'; space-separated
   * for a code covering several), null when the area code does not say (another country, a toll-free number).
   */
  region: string | null;
  /** Time zones the recipient may be in; several: the strictest window across them. */
  zones: string[];
  window: SendingWindow;
  /** Where the zone came from. */
  zoneSource: 'contact' | 'area_code' | 'country';
}

export interface PlaceInput {
  /** Digits with country code (the stored form). */
  phone: string;
  /** ISO 3166-1 alpha-2, from the number (libphonenumber-js max metadata). */
  country: string;
  /** The contact's custom-field values by tag, when it has a contact. */
  customFields?: Readonly<Record<string, string>> | null;
}

/** The time-zone value of a contact's custom fields, when one of TIME_ZONE_FIELD_TAGS holds a valid IANA name. */
export function contactTimeZone(fields: Readonly<Record<string, string>> | null | undefined): string | null {
  if (!fields) return null;
  for (const tag of TIME_ZONE_FIELD_TAGS) {
    const v = fields[tag];
    if (typeof v === 'string') {
      const zone = canonicalTimeZone(v.trim());
      if (zone !== null && zoneOf(zone) !== null) return zone;
    }
  }
  return null;
}

const countryZoneCache = new Map<string, string[]>();
/** The country's zones the runtime knows, most populous first; ['UTC'] for an unknown country. */
export function zonesOfCountry(country: string): string[] {
  let zones = countryZoneCache.get(country);
  if (!zones) {
    const listed = (COUNTRY_ZONES[country] ?? '').split(' ').filter((z) => z !== '' && zoneOf(z) !== null);
    zones = listed.length > 0 ? listed : ['UTC'];
    countryZoneCache.set(country, zones);
  }
  return zones;
}

const areaZoneCache = new Map<string, string[]>();
/** The area code's zones the runtime knows (all of them, for every supported Node); empty: use the country's. */
function zonesOfArea(code: string, area: NanpAreaCode): string[] {
  let zones = areaZoneCache.get(code);
  if (!zones) {
    zones = area.zones.filter((z) => zoneOf(z) !== null);
    areaZoneCache.set(code, zones);
  }
  return zones;
}

/**
 * The one rule of where a recipient is, for recipientPlace and decodePlace: the contact's own zone, else the area
 * code's zones, else the country's; the window is given, narrowed by the area code's state statute.
 */
function placeOf(country: string, known: { code: string; area: NanpAreaCode } | null, own: string | null, given: SendingWindow): RecipientPlace {
  const region = known?.area.region ?? null;
  const statute = region !== null ? STATE_WINDOWS[region] : undefined;
  // An account's override cannot loosen a state statute; with no common minute the statute's window decides.
  const window = statute ? (intersectWindows(given, statute) ?? statute) : given;
  if (own !== null) return { country, region, zones: [own], window, zoneSource: 'contact' };
  const zones = known ? zonesOfArea(known.code, known.area) : [];
  if (zones.length > 0) return { country, region, zones: [...zones], window, zoneSource: 'area_code' };
  return { country, region, zones: zonesOfCountry(country), window, zoneSource: 'country' };
}

export function recipientPlace(input: PlaceInput, overrides?: Readonly<Record<string, WindowSpec>>): RecipientPlace {
  return placeOf(input.country, areaCodeOf(input.phone, input.country), contactTimeZone(input.customFields), countryWindow(input.country, overrides));
}

/**
 * When a message due at `at` may go out to this recipient: null when `at` is inside the window (send as planned),
 * else the window's next opening. Zones without a common window within two weeks: the first (most populous) zone's.
 */
export function deferUntil(place: RecipientPlace, at: number): number | null {
  const zones = place.zones;
  const opening = zones.length === 1 ? nextOpening(place.window, zones[0]!, at) : (nextCommonOpening(place.window, zones, at) ?? nextOpening(place.window, zones[0]!, at));
  return opening > at ? opening : null;
}

/**
 * The zone a deferred message waits for: of the place's zones, the first whose window was still closed a minute
 * before the opening (a Florida panhandle number deferred at night waits for 08:00 Central, the later clock); the
 * first zone when none was (zones without a common window).
 */
export function openingZone(place: RecipientPlace, opening: number): string {
  if (place.zones.length === 1) return place.zones[0]!;
  return place.zones.find((z) => !isInsideWindow(place.window, z, opening - MINUTE)) ?? place.zones[0]!;
}

const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

/** ISO weekdays as people write them: "Mon-Fri", "Mon,Wed,Sat", "Sun"; null when unreadable. */
export function parseDays(text: string): number[] | null {
  const out = new Set<number>();
  const day = (s: string) => DAY_NAMES.findIndex((d) => d.toLowerCase() === s.trim().slice(0, 3).toLowerCase() && s.trim().length >= 3) + 1;
  for (const part of text.split(',')) {
    const [a, b, extra] = part.split('-');
    if (extra !== undefined || a === undefined) return null;
    const from = day(a);
    const to = b === undefined ? from : day(b);
    if (from === 0 || to === 0 || to < from) return null;
    for (let d = from; d <= to; d++) out.add(d);
  }
  return out.size > 0 ? [...out].sort((x, y) => x - y) : null;
}

/** "Mon-Sat", "Mon,Wed,Fri" for a list of ISO weekdays (runs of three or more as a range). */
export function formatDays(days: readonly number[]): string {
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${DAY_NAMES[sorted[i]! - 1]}-${DAY_NAMES[sorted[j]! - 1]}`);
    else for (let k = i; k <= j; k++) parts.push(DAY_NAMES[sorted[k]! - 1]!);
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * The console's text form of window overrides, one country a line: `DE 09:00-20:00` or `FR 08:00-20:00 Mon-Sat`.
 * Returns the windows and, for lines it cannot read, their number and why (the schema checks the rest).
 */
export function parseWindowLines(text: string): { windows: Record<string, WindowSpec>; errors: string[] } {
  const windows: Record<string, WindowSpec> = {};
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const m = /^([A-Za-z]{2})\s+(\d{1,2}:\d{2})\s*[-–]\s*(\d{1,2}:\d{2})(?:\s+(\S+))?$/.exec(line);
    if (!m) {
      errors.push(`line ${i + 1}: write it as "DE 09:00-20:00" or "FR 08:00-20:00 Mon-Sat"`);
      return;
    }
    const pad = (s: string) => s.padStart(5, '0');
    const days = m[4] === undefined ? undefined : parseDays(m[4]);
    if (days === null) {
      errors.push(`line ${i + 1}: days "${m[4]}" are not like Mon-Fri or Mon,Wed,Sat`);
      return;
    }
    windows[m[1]!.toUpperCase()] = { start: pad(m[2]!), end: pad(m[3]!), ...(days ? { days } : {}) };
  });
  return { windows, errors };
}

export function formatWindowLines(windows: Readonly<Record<string, WindowSpec>>): string {
  return Object.keys(windows)
    .sort()
    .map((cc) => {
      const w = windows[cc]!;
      return `${cc} ${w.start}-${w.end}${w.days && w.days.length < 7 ? ` ${formatDays(w.days)}` : ''}`;
    })
    .join('\n');
}

/**
 * A place as a short string for a message row (`country|area code|contact zone|start-end|days`, e.g.
 * `US|305||480-1200|1234567` or `DE||America/New_York|480-1260|1234567`): the zones are derived again from it, so a
 * row holds tens of bytes even for a country with 29 zones.
 */
export function encodePlace(place: RecipientPlace, phone: string): string {
  // The area code is kept when the table placed the number (zones, statute), so decodePlace finds the same entry.
  const area = place.region !== null ? phone.slice(1, 4) : '';
  const own = place.zoneSource === 'contact' ? place.zones[0]! : '';
  return `${place.country}|${area}|${own}|${place.window.start}-${place.window.end}|${place.window.days.join('')}`;
}

/** The place of encodePlace, or null for a string it did not write. */
export function decodePlace(s: string): RecipientPlace | null {
  const m = /^([A-Z]{2}|[A-Z0-9]{0,3})\|(\d{0,3})\|([^|]*)\|(\d{1,4})-(\d{1,4})\|([1-7]{1,7})$/.exec(s);
  if (!m) return null;
  const [, country, area, own, start, end, days] = m as unknown as [string, string, string, string, string, string, string];
  const window: SendingWindow = { start: Number(start), end: Number(end), days: [...days].map(Number) };
  // The window was judged at accept time (statute included) and is kept as stored; placeOf narrows it only by a
  // statute, which it already satisfies.
  const known = area !== '' ? areaCodeEntry(area, country) : null;
  return placeOf(country, known, own !== '' && zoneOf(own) !== null ? own : null, window);
}
