import { describe, expect, it } from 'vitest';
import { parsePhoneSearch, PHONE_SEARCH_MAX_LENGTH } from '../../../src/inbound/phone-search.js';

describe('parsePhoneSearch (the virtual phone’s ?q=)', () => {
  it('reads phone-like text as digits and anything else as a name, lower-cased with single spaces', () => {
    expect(parsePhoneSearch('+49 (151) 123-45.67/8')).toEqual({ ok: true, q: '+49 (151) 123-45.67/8', search: { kind: 'digits', digits: '4915112345678' } });
    expect(parsePhoneSearch('  Anna   BERGER ')).toEqual({ ok: true, q: 'Anna   BERGER', search: { kind: 'name', text: 'anna berger' } });
    expect(parsePhoneSearch("O’Brien-Smith")).toMatchObject({ ok: true, search: { kind: 'name', text: 'o’brien-smith' } });
    expect(parsePhoneSearch('Zoë Ωmega 李')).toMatchObject({ ok: true, search: { kind: 'name' } });
    // Letters with digits are a name: "Anna 2" must not become a search for every number holding a 2.
    expect(parsePhoneSearch('Anna 2')).toMatchObject({ ok: true, search: { kind: 'name', text: 'anna 2' } });
  });

  it('no search when absent or blank', () => {
    expect(parsePhoneSearch(undefined)).toEqual({ ok: true, q: '', search: null });
    expect(parsePhoneSearch('   ')).toEqual({ ok: true, q: '', search: null });
  });

  it('refuses wildcards, quotes, control and bidi characters, repeats and the length limit + 1', () => {
    for (const raw of ['50%', 'a_b', 'a\\b', 'a"b', 'a\nb', 'a\tb', '\u202Eanna', 'a\u0000', '<b>', 'x'.repeat(PHONE_SEARCH_MAX_LENGTH + 1), ['a', 'b'], { a: '1' }]) {
      const r = parsePhoneSearch(raw);
      expect(r.ok, JSON.stringify(raw)).toBe(false);
      expect(r.q.length).toBeLessThanOrEqual(PHONE_SEARCH_MAX_LENGTH);
    }
    expect(parsePhoneSearch('1'.repeat(PHONE_SEARCH_MAX_LENGTH)).ok).toBe(true);
  });
});
