import { DateTime } from 'luxon';

/**
 * Node 20's ICU reports some zones by their pre-2022 names (Asia/Calcutta for Asia/Kolkata).
 * People type and expect the current IANA names, so we list and echo those.
 */
const LEGACY_TO_CURRENT: Readonly<Record<string, string>> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

function runtimeName(tz: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

let zoneNames: string[] | null = null;
let byLowerCase: Map<string, string> | null = null;

/** Every zone the runtime supports, under its current IANA name, plus UTC; sorted. */
function supportedZones(): string[] {
  if (zoneNames === null) {
    const names = new Set<string>(['UTC']);
    for (const tz of Intl.supportedValuesOf('timeZone')) {
      const current = LEGACY_TO_CURRENT[tz];
      names.add(current !== undefined && runtimeName(current) !== null ? current : tz);
    }
    zoneNames = [...names].sort();
    byLowerCase = new Map();
    for (const name of [...Object.keys(LEGACY_TO_CURRENT), ...zoneNames]) byLowerCase.set(name.toLowerCase(), name);
  }
  return zoneNames;
}

/** Canonical names by input spelling; bounded because inputs come from callers. */
const canonicalCache = new Map<string, string | null>();
const CACHE_LIMIT = 2000;

/**
 * The zone name to store and echo, or null when the runtime does not know the zone. A listed
 * name is returned in its listed spelling (`europe/berlin` → `Europe/Berlin`, `Asia/Kolkata` stays
 * Kolkata); other names the runtime accepts (US/Eastern) become the runtime's name. Offsets like
 * `+01:00` are not zones.
 */
export function canonicalTimeZone(tz: unknown): string | null {
  if (typeof tz !== 'string' || tz.length === 0 || tz.length > 64) return null;
  const cached = canonicalCache.get(tz);
  if (cached !== undefined) return cached;
  let canonical: string | null = null;
  if (/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) {
    const resolved = runtimeName(tz);
    if (resolved !== null) {
      supportedZones();
      canonical = byLowerCase?.get(tz.toLowerCase()) ?? resolved;
    }
  }
  if (canonicalCache.size < CACHE_LIMIT) canonicalCache.set(tz, canonical);
  return canonical;
}

export function isValidTimeZone(tz: unknown): tz is string {
  return canonicalTimeZone(tz) !== null;
}

export interface TimeZoneInfo {
  timeZone: string;
  /** Current UTC offset, `+01:00`. */
  offset: string;
  /** Current local time with offset, `2026-01-15T13:00:00.000+01:00`. */
  currentTime: string;
}

/** Every IANA zone the runtime supports (plus UTC), with its offset and local time at `now`. */
export function listTimezones(now: number): TimeZoneInfo[] {
  return supportedZones().map((timeZone) => {
    const local = DateTime.fromMillis(now, { zone: timeZone });
    return { timeZone, offset: local.toFormat('ZZ'), currentTime: local.toISO() ?? new Date(now).toISOString() };
  });
}
