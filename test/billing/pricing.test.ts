import { describe, expect, it } from 'vitest';
import { creditsToMilli, isTestTraffic, milliToCredits, priceMessage, type PriceQuestion } from '../../src/billing/pricing.js';

// DE: 30 per RCS message, 75 per SMS segment (1/1000 credit); XX has no price at all.
const prices = new Map([['DE', { rcs: 30, sms: 75 }]]);
const base: PriceQuestion = { channel: 'RCS', country: 'DE', segments: 1, testTraffic: false, inOpenWindow: false, outcome: 'quoted' };

describe('priceMessage: one answer for every branch', () => {
  const table: Array<[string, Partial<PriceQuestion>, number | null, string]> = [
    ['RCS, quoted', {}, 30, 'rcs_message'],
    ['RCS, sent', { outcome: 'sent' }, 30, 'rcs_message'],
    ['RCS, failed', { outcome: 'failed' }, 0, 'failed'],
    ['RCS in an open window', { inOpenWindow: true }, 0, 'conversation_window'],
    ['RCS test traffic', { testTraffic: true }, 0, 'test_traffic'],
    ['RCS test traffic in an open window', { testTraffic: true, inOpenWindow: true }, 0, 'test_traffic'],
    ['RCS to a country without a price', { country: 'XX' }, null, 'no_price'],
    ['RCS in a window to a country without a price', { country: 'XX', inOpenWindow: true }, 0, 'conversation_window'],
    ['SMS, one segment', { channel: 'SMS' }, 75, 'sms_segments'],
    ['SMS, three segments', { channel: 'SMS', segments: 3 }, 225, 'sms_segments'],
    ['SMS fallback sent, two segments', { channel: 'SMS', segments: 2, outcome: 'sent' }, 150, 'sms_segments'],
    ['SMS: a conversation window does not cover SMS', { channel: 'SMS', segments: 2, inOpenWindow: true }, 150, 'sms_segments'],
    ['SMS test traffic', { channel: 'SMS', segments: 4, testTraffic: true }, 0, 'test_traffic'],
    ['SMS failed', { channel: 'SMS', segments: 4, outcome: 'failed' }, 0, 'failed'],
    ['SMS to a country without a price', { channel: 'SMS', country: 'XX' }, null, 'no_price'],
    ['failed before test traffic', { testTraffic: true, outcome: 'failed' }, 0, 'failed'],
  ];
  it.each(table)('%s', (_name, q, milli, basis) => {
    expect(priceMessage(prices, { ...base, ...q })).toEqual({ milli, basis });
  });

  it('reads the account price list it is given', () => {
    const other = new Map([['DE', { rcs: 1, sms: 2 }]]);
    expect(priceMessage(other, base).milli).toBe(1);
    expect(priceMessage(other, { ...base, channel: 'SMS', segments: 5 }).milli).toBe(10);
  });
});

describe('test traffic is decided one way', () => {
  const sender = { isTest: true, testPhones: new Set(['4915550000001']) };
  it('a test sender to one of its test phones', () => expect(isTestTraffic(sender, '4915550000001')).toBe(true));
  it('a test sender to another number', () => expect(isTestTraffic(sender, '4915550000002')).toBe(false));
  it('a normal sender, even to a number listed as a test phone', () => expect(isTestTraffic({ isTest: false, testPhones: sender.testPhones }, '4915550000001')).toBe(false));
});

describe('credits and 1/1000 credits', () => {
  it('round-trips', () => {
    expect(creditsToMilli(0.035)).toBe(35);
    expect(milliToCredits(35)).toBe(0.035);
    expect(creditsToMilli(1000)).toBe(1_000_000);
    expect(milliToCredits(-75)).toBe(-0.075);
  });
});
