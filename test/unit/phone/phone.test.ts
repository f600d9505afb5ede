import { describe, expect, it } from 'vitest';
import { countryAllowed, countryInPriceList, countryReach, type PriceList } from '../../../src/phone/countries.js';
import { normalizePhone } from '../../../src/phone/normalize.js';

describe('normalizePhone', () => {
  it.each([
    ['+4915112345678', '+4915112345678', 'DE'],
    ['004915112345678', '+4915112345678', 'DE'],
    ['4915112345678', '+4915112345678', 'DE'],
    ['+49 151 1234 5678', '+4915112345678', 'DE'],
    ['+49 (0151) 1234-5678'.replace('(0151)', '(151)'), '+4915112345678', 'DE'],
    ['  +1 (212) 555-0123 ', '+12125550123', 'US'],
    ['+44 20 7183 8750', '+442071838750', 'GB'],
    ['0033 6 12 34 56 78', '+33612345678', 'FR'],
    ['+43.660.1234567', '+436601234567', 'AT'],
    ['+800 1234 5678', '+80012345678', '001'],
  ])('%s → %s (%s)', (input, e164, country) => {
    expect(normalizePhone(input)).toEqual({ ok: true, e164, digits: e164.slice(1), country });
  });

  it.each([
    ['', 'invalid_phone'],
    [undefined, 'invalid_phone'],
    [4915112345678, 'invalid_phone'],
    ['+49 151 CALL ME', 'invalid_phone'],
    ['+49151123456x', 'invalid_phone'],
    ['++4915112345678', 'invalid_phone'],
    ['12345', 'too_short'],
    ['+12 34', 'too_short'],
    ['123456789012345678901', 'too_long'],
    ['015112345678', 'invalid_phone'],
    ['+999123456789', 'invalid_phone'],
    ['+49151123456789012', 'invalid_phone'],
    ['+4915', 'too_short'],
    ['+1212555012', 'too_short'],
    ['+1212555012345', 'too_long'],
    ['+12125550123456789', 'too_long'],
  ])('%j → %s', (input, code) => {
    const r = normalizePhone(input);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe(code);
      expect(r.message.length).toBeGreaterThan(10);
    }
  });

  it('6 and 20 digits are the generic bounds; inside them the country rules decide', () => {
    const message = (input: string): string => {
      const r = normalizePhone(input);
      return r.ok ? '' : r.message;
    };
    expect(message('12345')).toContain('at least 6 digits');
    expect(message('123456')).not.toContain('at least 6 digits');
    expect(message('123456')).toContain('too short');
    expect(message('123456789012345678901')).toContain('at most 20 digits');
    expect(message('12345678901234567890')).not.toContain('at most 20 digits');
  });

  it('national numbers without a country code are refused with a hint', () => {
    const r = normalizePhone('0151 12345678');
    expect(r).toMatchObject({ ok: false, code: 'invalid_phone' });
    if (!r.ok) expect(r.message).toContain('country code');
  });
});

describe('countryAllowed', () => {
  const prices: PriceList = new Map([
    ['DE', { rcs: 0.05, sms: 0.07 }],
    ['US', { rcs: null, sms: 0.01 }],
    ['FR', { rcs: null, sms: null }],
    ['IT', { rcs: 0, sms: 0.1 }],
  ]);
  it.each([
    ['DE', 'rcs', true],
    ['DE', 'sms', true],
    ['de', 'sms', true],
    ['US', 'rcs', false],
    ['US', 'sms', true],
    ['FR', 'sms', false],
    ['IT', 'rcs', true],
    ['GB', 'sms', false],
    ['001', 'sms', false],
  ] as const)('%s %s → %s', (country, channel, expected) => {
    expect(countryAllowed(country, prices, channel)).toBe(expected);
  });
  it('reports reach and presence', () => {
    expect(countryReach('US', prices)).toEqual({ rcs: false, sms: true });
    expect(countryInPriceList('FR', prices)).toBe(true);
    expect(countryInPriceList('GB', prices)).toBe(false);
  });
});
