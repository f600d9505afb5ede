import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WINDOW,
  countryWindow,
  deferUntil,
  firstInstantAtWall,
  intersectWindows,
  isInsideWindow,
  nextCommonOpening,
  nextOpening,
  parseDays,
  encodePlace,
  decodePlace,
  areaCodeOf,
  openingZone,
  parseWindowLines,
  formatWindowLines,
  recipientPlace,
  windowFromSpec,
  zonesOfCountry,
  type SendingWindow,
} from '../../../src/schedule/quiet-hours.js';

const utc = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const W = (start: string, end: string, days?: number[]): SendingWindow => {
  const w = windowFromSpec({ start, end, ...(days ? { days } : {}) });
  if (typeof w === 'string') throw new Error(w);
  return w;
};

describe('quiet hours: one zone, DST', () => {
  it('America/New_York spring forward (8 March 2026): 23:00 EST → 08:00 EDT the next morning, 12:00Z not 13:00Z', () => {
    const at = utc('2026-03-08T04:00:00Z'); // 23:00 EST on the 7th
    expect(isInsideWindow(DEFAULT_WINDOW, 'America/New_York', at)).toBe(false);
    expect(iso(nextOpening(DEFAULT_WINDOW, 'America/New_York', at))).toBe('2026-03-08T12:00:00.000Z');
  });

  it('America/New_York fall back (1 November 2026): 22:00 EDT → 08:00 EST, 13:00Z', () => {
    expect(iso(nextOpening(DEFAULT_WINDOW, 'America/New_York', utc('2026-11-01T02:00:00Z')))).toBe('2026-11-01T13:00:00.000Z');
    // 20:59 EST is inside, 21:00 EST is not.
    expect(isInsideWindow(DEFAULT_WINDOW, 'America/New_York', utc('2026-11-02T01:59:00Z'))).toBe(true);
    expect(isInsideWindow(DEFAULT_WINDOW, 'America/New_York', utc('2026-11-02T02:00:00Z'))).toBe(false);
  });

  it('Europe/Berlin spring forward (29 March 2026) and fall back (25 October 2026)', () => {
    expect(iso(nextOpening(DEFAULT_WINDOW, 'Europe/Berlin', utc('2026-03-28T21:00:00Z')))).toBe('2026-03-29T06:00:00.000Z'); // 08:00 CEST
    expect(iso(nextOpening(DEFAULT_WINDOW, 'Europe/Berlin', utc('2026-10-24T20:00:00Z')))).toBe('2026-10-25T07:00:00.000Z'); // 08:00 CET
    // Early morning of the change day itself: 03:30 CEST (01:30Z) → 08:00 CEST.
    expect(iso(nextOpening(DEFAULT_WINDOW, 'Europe/Berlin', utc('2026-03-29T01:30:00Z')))).toBe('2026-03-29T06:00:00.000Z');
  });

  it('a window opening inside the spring-forward gap opens when the clocks jump (02:30 → 03:00 CEST)', () => {
    const w = W('02:30', '21:00');
    expect(iso(firstInstantAtWall('Europe/Berlin', utc('2026-03-29T02:30:00Z')))).toBe('2026-03-29T01:00:00.000Z');
    const opening = nextOpening(w, 'Europe/Berlin', utc('2026-03-29T00:30:00Z')); // 01:30 CET
    expect(iso(opening)).toBe('2026-03-29T01:00:00.000Z'); // 03:00 CEST, the first minute after 02:30 that exists
    expect(isInsideWindow(w, 'Europe/Berlin', opening)).toBe(true);
    expect(isInsideWindow(w, 'Europe/Berlin', opening - 60_000)).toBe(false); // 01:59 CET
    // New York: 02:30 does not exist on 8 March either.
    expect(iso(nextOpening(w, 'America/New_York', utc('2026-03-08T06:00:00Z')))).toBe('2026-03-08T07:00:00.000Z'); // 03:00 EDT
  });

  it('a window opening in the repeated hour of fall back opens at its first occurrence', () => {
    const w = W('02:30', '21:00');
    expect(iso(nextOpening(w, 'Europe/Berlin', utc('2026-10-25T00:00:00Z')))).toBe('2026-10-25T00:30:00.000Z'); // 02:30 CEST, not CET
  });

  it('inside the window: no deferral; the minute of closing is outside', () => {
    const place = recipientPlace({ phone: '4915112345678', country: 'DE' });
    expect(deferUntil(place, utc('2026-06-10T10:00:00Z'))).toBeNull();
    expect(deferUntil(place, utc('2026-06-10T18:59:59Z'))).toBeNull(); // 20:59:59 CEST
    expect(iso(deferUntil(place, utc('2026-06-10T19:00:00Z')))).toBe('2026-06-11T06:00:00.000Z');
    expect(iso(deferUntil(place, utc('2026-06-10T05:59:00Z')))).toBe('2026-06-10T06:00:00.000Z');
  });
});

describe('quiet hours: country rules', () => {
  it('France: 08:00–20:00 Monday to Saturday, nothing on Sunday', () => {
    const place = recipientPlace({ phone: '33612345678', country: 'FR' });
    expect(place.window).toEqual({ start: 480, end: 1200, days: [1, 2, 3, 4, 5, 6] });
    // Saturday 13 June 2026 21:00 CEST → Monday 08:00 CEST.
    expect(iso(deferUntil(place, utc('2026-06-13T19:00:00Z')))).toBe('2026-06-15T06:00:00.000Z');
    // Sunday noon → Monday 08:00.
    expect(iso(deferUntil(place, utc('2026-06-14T10:00:00Z')))).toBe('2026-06-15T06:00:00.000Z');
    // Saturday noon: inside. 20:00 on a weekday: outside (stricter than the default 21:00).
    expect(deferUntil(place, utc('2026-06-13T10:00:00Z'))).toBeNull();
    expect(iso(deferUntil(place, utc('2026-06-12T18:30:00Z')))).toBe('2026-06-13T06:00:00.000Z');
  });

  it('a country spanning zones without a known region gets its strictest window (every zone inside)', () => {
    const zones = zonesOfCountry('US');
    expect(zones).toContain('Pacific/Honolulu');
    expect(zones[0]).toBe('America/New_York');
    const place = recipientPlace({ phone: '18005550100', country: 'US' }); // toll-free: no area, the whole country
    expect(place).toMatchObject({ zoneSource: 'country', region: null, zones: zones });
    // 08:00 EDT is 02:00 in Honolulu: wait until 08:00 HST (18:00Z).
    expect(iso(deferUntil(place, utc('2026-06-10T12:00:00Z')))).toBe('2026-06-10T18:00:00.000Z');
    // 16:00 EDT / 10:00 HST: inside everywhere.
    expect(deferUntil(place, utc('2026-06-10T20:00:00Z'))).toBeNull();
    // 21:30 EDT: closed in the east; the next common opening is 08:00 HST.
    expect(iso(deferUntil(place, utc('2026-06-11T01:30:00Z')))).toBe('2026-06-11T18:00:00.000Z');
    expect(iso(nextCommonOpening(DEFAULT_WINDOW, ['Europe/Berlin', 'Europe/Lisbon'], utc('2026-06-10T05:30:00Z')))).toBe('2026-06-10T07:00:00.000Z');
  });

  it('two zones that never share a window fall back to the first zone', () => {
    const narrow = W('08:00', '09:00');
    expect(nextCommonOpening(narrow, ['Europe/Berlin', 'America/New_York'], utc('2026-06-10T00:00:00Z'))).toBeNull();
    const place = { country: 'XX', region: null, zones: ['Europe/Berlin', 'America/New_York'], window: narrow, zoneSource: 'country' as const };
    expect(iso(deferUntil(place, utc('2026-06-10T00:00:00Z')))).toBe('2026-06-10T06:00:00.000Z');
  });

  it('Florida and Oklahoma numbers (by area code) stop at 20:00; 850 spans Eastern and Central', () => {
    const miami = recipientPlace({ phone: '13055550100', country: 'US' });
    expect(miami).toMatchObject({ region: 'US-FL', zones: ['America/New_York'], zoneSource: 'area_code', window: { start: 480, end: 1200 } });
    // 20:30 EDT: deferred to 08:00 EDT although the federal window runs to 21:00.
    expect(iso(deferUntil(miami, utc('2026-06-11T00:30:00Z')))).toBe('2026-06-11T12:00:00.000Z');
    const tulsa = recipientPlace({ phone: '19185550100', country: 'US' });
    expect(tulsa).toMatchObject({ region: 'US-OK', zones: ['America/Chicago'] });
    expect(iso(deferUntil(tulsa, utc('2026-06-11T01:30:00Z')))).toBe('2026-06-11T13:00:00.000Z'); // 20:30 CDT → 08:00 CDT
    const pensacola = recipientPlace({ phone: '18505550100', country: 'US' });
    // 19:30 CDT is 20:30 EDT: closed in the Eastern part → 08:00 CDT (13:00Z), when both are open.
    expect(iso(deferUntil(pensacola, utc('2026-06-11T00:30:00Z')))).toBe('2026-06-11T13:00:00.000Z');
  });

  it("a contact's timezone (or time_zone) custom field decides the zone when it is a valid IANA name", () => {
    expect(recipientPlace({ phone: '4915112345678', country: 'DE', customFields: { timezone: 'America/New_York' } })).toMatchObject({ zones: ['America/New_York'], zoneSource: 'contact' });
    expect(recipientPlace({ phone: '4915112345678', country: 'DE', customFields: { time_zone: ' asia/tokyo ' } })).toMatchObject({ zones: ['Asia/Tokyo'], zoneSource: 'contact' });
    expect(recipientPlace({ phone: '4915112345678', country: 'DE', customFields: { timezone: 'Mars/Olympus', city: 'Berlin' } })).toMatchObject({ zones: ['Europe/Berlin', 'Europe/Busingen'], zoneSource: 'country' });
    expect(recipientPlace({ phone: '4915112345678', country: 'DE', customFields: { timezone: '+02:00' } }).zoneSource).toBe('country');
    // A Florida number living in Chicago: Chicago's clock, Florida's statute.
    expect(recipientPlace({ phone: '13055550100', country: 'US', customFields: { timezone: 'America/Chicago' } })).toMatchObject({ zones: ['America/Chicago'], region: 'US-FL', window: { end: 1200 } });
  });

  it("the account's overrides replace a country's window; a state statute still applies", () => {
    expect(countryWindow('DE', { DE: { start: '09:00', end: '18:00' } })).toEqual({ start: 540, end: 1080, days: [1, 2, 3, 4, 5, 6, 7] });
    expect(countryWindow('IT', { DE: { start: '09:00', end: '18:00' } })).toBe(DEFAULT_WINDOW);
    const loose = recipientPlace({ phone: '13055550100', country: 'US' }, { US: { start: '07:00', end: '22:00' } });
    expect(loose.window).toMatchObject({ start: 480, end: 1200 });
    expect(recipientPlace({ phone: '12125550100', country: 'US' }, { US: { start: '07:00', end: '22:00' } }).window).toMatchObject({ start: 420, end: 1320 });
  });

  it('validates written windows', () => {
    expect(windowFromSpec({ start: '08:00', end: '24:00' })).toMatchObject({ start: 480, end: 1440 });
    expect(windowFromSpec({ start: '8:00', end: '20:00' })).toMatch(/start must be HH:MM/);
    expect(windowFromSpec({ start: '20:00', end: '08:00' })).toMatch(/cannot span midnight/);
    expect(windowFromSpec({ start: '08:00', end: '20:00', days: [] })).toMatch(/days/);
    expect(windowFromSpec({ start: '08:00', end: '20:00', days: [0] })).toMatch(/days/);
    expect(intersectWindows(W('08:00', '12:00'), W('13:00', '20:00'))).toBeNull();
  });
});

describe('quiet hours: the console text form', () => {
  it('reads and writes one country a line', () => {
    const { windows, errors } = parseWindowLines('de 9:00-20:00\r\nFR 08:00 - 20:00 Mon-Sat\n\nUS 08:00-20:00 Mon,Wed,Fri-Sun');
    expect(errors).toEqual([]);
    expect(windows).toEqual({ DE: { start: '09:00', end: '20:00' }, FR: { start: '08:00', end: '20:00', days: [1, 2, 3, 4, 5, 6] }, US: { start: '08:00', end: '20:00', days: [1, 3, 5, 6, 7] } });
    expect(formatWindowLines(windows)).toBe('DE 09:00-20:00\nFR 08:00-20:00 Mon-Sat\nUS 08:00-20:00 Mon,Wed,Fri-Sun');
    expect(parseWindowLines('Germany 9-20\nDE 09:00-20:00 Funday').errors).toEqual([expect.stringMatching(/^line 1:/), expect.stringMatching(/^line 2: days "Funday"/)]);
    expect(parseDays('Sat-Mon')).toBeNull();
  });
});

describe('quiet hours: the place stored on a message', () => {
  it('encodes and decodes country, area code, contact zone and window', () => {
    for (const input of [
      { phone: '13055550100', country: 'US' },
      { phone: '12135550100', country: 'US' },
      { phone: '17785550100', country: 'CA' },
      { phone: '18335550100', country: 'US' },
      { phone: '12135550100', country: 'US', customFields: { timezone: 'America/Chicago' } },
      { phone: '18505550100', country: 'US' },
      { phone: '12125550100', country: 'US' },
      { phone: '4915112345678', country: 'DE', customFields: { timezone: 'America/New_York' } },
      { phone: '33612345678', country: 'FR' },
    ]) {
      const place = recipientPlace(input, { DE: { start: '09:00', end: '20:00', days: [1, 2, 3, 4, 5] } });
      const encoded = encodePlace(place, input.phone);
      expect(encoded.length).toBeLessThan(64);
      expect(decodePlace(encoded)).toEqual(place);
    }
    expect(encodePlace(recipientPlace({ phone: '13055550100', country: 'US' }), '13055550100')).toBe('US|305||480-1200|1234567');
    expect(encodePlace(recipientPlace({ phone: '12135550100', country: 'US' }), '12135550100')).toBe('US|213||480-1260|1234567');
    expect(encodePlace(recipientPlace({ phone: '18335550100', country: 'US' }), '18335550100')).toBe('US|||480-1260|1234567');
    // A row written before the NANP table (no area code for a non-FL/OK number) keeps the country's strictest window.
    expect(decodePlace('US|||480-1260|1234567')).toMatchObject({ zoneSource: 'country', zones: zonesOfCountry('US') });
    expect(decodePlace('garbage')).toBeNull();
  });
});

describe('quiet hours: US and Canadian numbers by their area code (issue #42)', () => {
  // Wednesday 14 January 2026: PST is UTC−8, EST UTC−5, HST UTC−10.
  const at = (hhmmZ: string) => utc(`2026-01-14T${hhmmZ}:00Z`);
  const la = recipientPlace({ phone: '12135550100', country: 'US' });
  const ny = recipientPlace({ phone: '12125550100', country: 'US' });

  it('a Los Angeles number keeps Pacific time: open at 09:00 and at 20:30 Pacific, not held until 10:00 the next day', () => {
    expect(la).toEqual({ country: 'US', region: 'US-CA', zones: ['America/Los_Angeles'], window: DEFAULT_WINDOW, zoneSource: 'area_code' });
    for (const code of ['310', '323', '424', '818']) expect(recipientPlace({ phone: `1${code}5550100`, country: 'US' }).zones).toEqual(['America/Los_Angeles']);
    expect(deferUntil(la, at('17:00'))).toBeNull(); // 09:00 PST (07:00 in Honolulu, 12:00 in New York)
    expect(deferUntil(la, utc('2026-01-15T04:30:00Z'))).toBeNull(); // 20:30 PST, 23:30 in New York
    // What the whole-country rule did with the same number: 08:00 in Honolulu, 10:00 PST.
    const whole = { ...la, region: null, zones: zonesOfCountry('US'), zoneSource: 'country' as const };
    expect(iso(deferUntil(whole, at('17:00')))).toBe('2026-01-14T18:00:00.000Z');
    expect(iso(deferUntil(whole, utc('2026-01-15T04:30:00Z')))).toBe('2026-01-15T18:00:00.000Z');
    // Before 08:00 Pacific it waits for 08:00 Pacific, the same morning.
    expect(iso(deferUntil(la, at('15:30')))).toBe('2026-01-14T16:00:00.000Z');
  });

  it('a New York number at the same instants is judged by Eastern time', () => {
    expect(ny).toMatchObject({ region: 'US-NY', zones: ['America/New_York'], zoneSource: 'area_code' });
    expect(deferUntil(ny, at('14:00'))).toBeNull(); // 09:00 EST; 06:00 in Los Angeles, which waits
    expect(iso(deferUntil(la, at('14:00')))).toBe('2026-01-14T16:00:00.000Z');
    expect(iso(deferUntil(ny, utc('2026-01-15T04:30:00Z')))).toBe('2026-01-15T13:00:00.000Z'); // 23:30 EST → 08:00 EST
  });

  it('a code split between two zones is held while either is quiet, and waits for the later clock', () => {
    const ky = recipientPlace({ phone: '12705550100', country: 'US' }); // western Kentucky: Eastern and Central
    expect(ky).toMatchObject({ region: 'US-KY', zones: ['America/New_York', 'America/Chicago'], window: DEFAULT_WINDOW });
    // 08:30 EST is 07:30 CST: quiet in the Central part → 08:00 CST.
    const morning = deferUntil(ky, at('13:30'));
    expect(iso(morning)).toBe('2026-01-14T14:00:00.000Z');
    expect(openingZone(ky, morning!)).toBe('America/Chicago');
    expect(deferUntil(ky, at('17:00'))).toBeNull(); // 12:00 EST, 11:00 CST
    // 20:30 CST is 21:30 EST: quiet in the Eastern part → 08:00 CST the next morning, when both are open.
    expect(iso(deferUntil(ky, utc('2026-01-15T02:30:00Z')))).toBe('2026-01-15T14:00:00.000Z');
    // The Florida panhandle (850) the same, under Florida's 20:00 close.
    const pensacola = recipientPlace({ phone: '18505550100', country: 'US' });
    expect(iso(deferUntil(pensacola, utc('2026-01-15T01:30:00Z')))).toBe('2026-01-15T14:00:00.000Z'); // 20:30 EST / 19:30 CST
    // Idaho's 208 spans Mountain and Pacific: 08:30 MST is 07:30 PST.
    const boise = recipientPlace({ phone: '12085550100', country: 'US' });
    expect(iso(deferUntil(boise, at('15:30')))).toBe('2026-01-14T16:00:00.000Z');
    expect(openingZone(boise, utc('2026-01-14T16:00:00Z'))).toBe('America/Los_Angeles');
  });

  it('an overlay code is placed like its base code', () => {
    for (const [overlay, base] of [['364', '270'], ['448', '850'], ['986', '208'], ['930', '812'], ['458', '541'], ['879', '709']] as const) {
      const o = recipientPlace({ phone: `1${overlay}5550100`, country: overlay === '879' ? 'CA' : 'US' });
      const b = recipientPlace({ phone: `1${base}5550100`, country: base === '709' ? 'CA' : 'US' });
      expect(o, overlay).toEqual(b);
    }
    // Florida's statute follows its overlays too (448 over 850, 689 over 407).
    expect(recipientPlace({ phone: '16895550100', country: 'US' })).toMatchObject({ region: 'US-FL', zones: ['America/New_York'], window: { end: 1200 } });
  });

  it('a toll-free or unplaced number falls back to the country; a number of another NANP country keeps its own', () => {
    for (const phone of ['18005550100', '18885550100', '19005550100']) {
      expect(areaCodeOf(phone, 'US')).toBeNull();
      expect(recipientPlace({ phone, country: 'US' })).toMatchObject({ region: null, zoneSource: 'country', zones: zonesOfCountry('US') });
    }
    expect(recipientPlace({ phone: '12735550100', country: 'CA' })).toMatchObject({ region: null, zoneSource: 'country', zones: zonesOfCountry('CA') });
    expect(recipientPlace({ phone: '17875550100', country: 'PR' })).toMatchObject({ region: null, zones: ['America/Puerto_Rico'], zoneSource: 'country' });
    // The table is trusted only for the country libphonenumber gave the number.
    expect(areaCodeOf('12135550100', 'CA')).toBeNull();
    expect(areaCodeOf('12135550100', 'US')).toMatchObject({ code: '213' });
  });

  it('a Canadian number uses its province: Vancouver (604) on Pacific time; 778 covers all of British Columbia', () => {
    const van = recipientPlace({ phone: '16045550100', country: 'CA' });
    expect(van).toMatchObject({ country: 'CA', region: 'CA-BC', zones: ['America/Vancouver'], zoneSource: 'area_code' });
    expect(deferUntil(van, at('17:00'))).toBeNull(); // 09:00 PST
    expect(iso(deferUntil(van, at('15:30')))).toBe('2026-01-14T16:00:00.000Z'); // 07:30 PST → 08:00 PST
    const bc = recipientPlace({ phone: '17785550100', country: 'CA' });
    expect(bc.zones).toEqual(['America/Edmonton', 'America/Vancouver']);
    expect(iso(deferUntil(bc, at('15:30')))).toBe('2026-01-14T16:00:00.000Z'); // 08:30 MST but 07:30 PST
    // 20:30 PST is 21:30 MST: quiet in the Mountain part (the Peace River, the East Kootenays).
    expect(iso(deferUntil(bc, utc('2026-01-15T04:30:00Z')))).toBe('2026-01-15T16:00:00.000Z');
  });

  it("a contact's own zone still decides the clock; the area code's state statute still applies", () => {
    expect(recipientPlace({ phone: '12135550100', country: 'US', customFields: { timezone: 'America/New_York' } })).toMatchObject({ region: 'US-CA', zones: ['America/New_York'], zoneSource: 'contact', window: DEFAULT_WINDOW });
    expect(recipientPlace({ phone: '14055550100', country: 'US', customFields: { timezone: 'America/Denver' } })).toMatchObject({ region: 'US-OK', zones: ['America/Denver'], window: { end: 1200 } });
  });
});
