import { readFileSync } from 'node:fs';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { NANP_AREA_CODES, NANP_OVERLAYS } from '../../../src/schedule/nanp-area-codes.js';

/** The NANP table (issue #42) as data: well-formed, and in step with the phone metadata the server validates with. */

const codes = Object.keys(NANP_AREA_CODES);

/**
 * Geographic codes libphonenumber-js accepts that the table's source (libphonenumber 9.0.35) does not place yet; a
 * number there falls back to its country's strictest window. A newer source that places one fails this test: then
 * regenerate the table (scripts/gen-nanp-area-codes.mjs) and shorten the list.
 */
const NOT_PLACED_YET = ['273'];

/** The US/CA country of area code `a` by libphonenumber-js, when some number there is a valid geographic one. */
function countryOf(a: string): 'US' | 'CA' | null {
  for (const x of [234, 456, 567, 789, 345, 678, 890, 212, 301, 920, 555, 401, 510, 610, 710, 810]) {
    const p = parsePhoneNumberFromString(`+1${a}${x}4567`);
    if (p?.isValid() && (p.country === 'US' || p.country === 'CA')) return p.getType() === 'FIXED_LINE_OR_MOBILE' ? p.country : null;
  }
  return null;
}

describe('the NANP area-code table', () => {
  it('holds three-digit geographic codes, each once, with a US or Canadian region and valid IANA zones', () => {
    expect(codes.length).toBeGreaterThan(400);
    // Keys written twice in the source would silently keep the last one.
    const written = [...readFileSync(new URL('../../../src/schedule/nanp-area-codes.ts', import.meta.url), 'utf8').matchAll(/^ {2}'(\d{3})': \{/gm)].map((m) => m[1]);
    expect(written).toHaveLength(codes.length);
    expect(new Set(written).size).toBe(written.length);
    for (const code of codes) {
      const e = NANP_AREA_CODES[code]!;
      expect(code, code).toMatch(/^[2-9]\d\d$/);
      expect(code.slice(1), code).not.toBe('11'); // N11: service codes
      expect(e.region, code).toMatch(/^(US-[A-Z]{2}|CA-[A-Z]{2}( CA-[A-Z]{2})*)$/);
      expect(e.zones.length, code).toBeGreaterThan(0);
      expect(new Set(e.zones).size, code).toBe(e.zones.length);
      for (const z of e.zones) expect(IANAZone.isValidZone(z), `${code} ${z}`).toBe(true);
    }
  });

  it('has no non-geographic code: toll-free, personal (5XX), 600, 700, premium 900', () => {
    for (const code of ['800', '822', '833', '844', '855', '866', '877', '888', '500', '521', '533', '544', '566', '577', '588', '600', '622', '633', '700', '710', '900']) {
      expect(NANP_AREA_CODES, code).not.toHaveProperty(code);
    }
    // Nor the other NANP countries (their own country, one zone each): Puerto Rico, Jamaica, Bahamas, Guam.
    for (const code of ['787', '939', '876', '242', '671']) expect(NANP_AREA_CODES, code).not.toHaveProperty(code);
  });

  it('places every area code libphonenumber-js holds for a geographic US or Canadian number, in the same country', () => {
    const missing: string[] = [];
    const wrongCountry: string[] = [];
    for (let n = 200; n <= 999; n++) {
      const code = String(n);
      const country = countryOf(code);
      if (country === null) continue;
      const e = NANP_AREA_CODES[code];
      if (!e) missing.push(code);
      else if (!e.region.startsWith(`${country}-`)) wrongCountry.push(`${code} ${country} ${e.region}`);
    }
    expect(wrongCountry).toEqual([]);
    expect(missing).toEqual(NOT_PLACED_YET);
  });

  it('lists every zone of a code split between zones, and one for most', () => {
    expect(NANP_AREA_CODES['213']).toEqual({ region: 'US-CA', zones: ['America/Los_Angeles'] });
    expect(NANP_AREA_CODES['212']).toEqual({ region: 'US-NY', zones: ['America/New_York'] });
    expect(NANP_AREA_CODES['915']).toEqual({ region: 'US-TX', zones: ['America/Denver'] }); // El Paso: Mountain only
    expect(NANP_AREA_CODES['806']!.zones).toEqual(['America/Chicago']);
    expect(NANP_AREA_CODES['850']).toEqual({ region: 'US-FL', zones: ['America/New_York', 'America/Chicago'] }); // panhandle
    expect(NANP_AREA_CODES['270']!.zones).toEqual(['America/New_York', 'America/Chicago']); // western Kentucky
    expect(NANP_AREA_CODES['812']!.zones).toEqual(['America/New_York', 'America/Chicago']); // southern Indiana
    expect(NANP_AREA_CODES['423']!.zones).toEqual(['America/New_York', 'America/Chicago']); // eastern Tennessee
    expect(NANP_AREA_CODES['906']!.zones).toEqual(['America/New_York', 'America/Chicago']); // Michigan's Upper Peninsula
    expect(NANP_AREA_CODES['541']!.zones).toEqual(['America/Denver', 'America/Los_Angeles']); // Oregon, Malheur County
    expect(NANP_AREA_CODES['701']!.zones).toEqual(expect.arrayContaining(['America/Chicago', 'America/Denver']));
    expect(NANP_AREA_CODES['604']).toEqual({ region: 'CA-BC', zones: ['America/Vancouver'] });
    expect(NANP_AREA_CODES['902']).toEqual({ region: 'CA-NS CA-PE', zones: ['America/Halifax'] });
    // The corrections of the source: Labrador observes daylight saving time, all of Alaska too.
    expect(NANP_AREA_CODES['709']!.zones).toEqual(['America/St_Johns', 'America/Halifax']);
    expect(NANP_AREA_CODES['907']!.zones).not.toContain('Pacific/Honolulu');
  });

  it('gives an overlay code exactly the zones and region of the codes it overlays', () => {
    expect(Object.keys(NANP_OVERLAYS).length).toBeGreaterThan(10);
    for (const [overlay, bases] of Object.entries(NANP_OVERLAYS)) {
      const union = new Set(bases.flatMap((b) => NANP_AREA_CODES[b]!.zones));
      expect(new Set(NANP_AREA_CODES[overlay]!.zones), overlay).toEqual(union);
      expect(NANP_AREA_CODES[overlay]!.region, overlay).toBe(NANP_AREA_CODES[bases[0]!]!.region);
    }
    expect(NANP_AREA_CODES['986']).toEqual(NANP_AREA_CODES['208']); // Idaho
    expect(NANP_AREA_CODES['448']).toEqual(NANP_AREA_CODES['850']); // Florida panhandle
    expect(NANP_AREA_CODES['364']).toEqual(NANP_AREA_CODES['270']); // Kentucky
    expect(NANP_AREA_CODES['689']).toEqual(NANP_AREA_CODES['407']); // Orlando, Eastern (the source said Central)
    expect(NANP_AREA_CODES['474']).toEqual(NANP_AREA_CODES['306']); // Saskatchewan, no daylight saving time
    // 778 covers all of British Columbia: Vancouver's 604 and the rest (250, partly on Mountain time).
    expect(new Set(NANP_AREA_CODES['778']!.zones)).toEqual(new Set(['America/Vancouver', 'America/Edmonton']));
  });
});
