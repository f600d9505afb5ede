import { describe, expect, it } from 'vitest';
import type { CollectedMergeValues } from '../../../src/messaging/merge-audit.js';
import { buildMergeReport, compareRiskKeys, mergeValueWarnings, queryValues, riskKey } from '../../../src/previews/merge-report.js';
import { RISK_ORDER, textRisks, type TextRisk, type TextRiskCode } from '../../../src/content/text-risks.js';

/**
 * The worst first (issue #42): flagged values are ordered by what they can do to a recipient — a link
 * to a host that reads as another, any link, a phone number or e-mail address, hidden or direction
 * characters and mixed scripts — and only then by being unusually long or written by an assistant.
 * With 10,000 assistant-written names the two dangerous ones head the list and the warnings.
 */
const NOW = Date.UTC(2026, 10, 27, 12);
const risk = (code: TextRiskCode): TextRisk => ({ code, message: code });
const key = (...codes: TextRiskCode[]) => riskKey(codes.map(risk));

describe('the order of risks', () => {
  it('ranks by what a value can do to a recipient, authorship last', () => {
    expect(RISK_ORDER).toEqual(['lookalike_host', 'contains_link', 'contains_phone', 'contains_email', 'bidi_control', 'invisible_character', 'mixed_scripts', 'unusual_length', 'written_by_assistant']);
  });

  it('compares values by their most serious risk, then the next; one more reason ranks above; unflagged last', () => {
    const table: [TextRiskCode[], TextRiskCode[]][] = [
      // [worse, better]
      [['lookalike_host', 'contains_link'], ['contains_link']],
      [['contains_link'], ['contains_phone', 'written_by_assistant']],
      [['contains_phone', 'written_by_assistant'], ['written_by_assistant']],
      [['contains_phone', 'written_by_assistant'], ['contains_phone']],
      [['contains_email'], ['bidi_control']],
      [['invisible_character'], ['mixed_scripts']],
      [['mixed_scripts'], ['unusual_length', 'written_by_assistant']],
      [['unusual_length', 'written_by_assistant'], ['written_by_assistant']],
      [['written_by_assistant'], []],
      // Risks in any stored order.
      [['written_by_assistant', 'contains_phone'], ['bidi_control', 'invisible_character', 'mixed_scripts']],
    ];
    for (const [worse, better] of table) {
      expect(compareRiskKeys(key(...worse), key(...better)), `${worse.join('+')} before ${better.join('+')}`).toBeLessThan(0);
      expect(compareRiskKeys(key(...better), key(...worse))).toBeGreaterThan(0);
    }
    expect(compareRiskKeys(key('contains_phone'), key('contains_phone'))).toBe(0);
  });
});

/** 10,000 recipients, each with its own first name written by an assistant; two of them dangerous. */
function collected(): { c: CollectedMergeValues; phoneAt: number; linkAt: number } {
  const n = 10_000;
  const phoneAt = 6_999;
  const linkAt = 9_500;
  const values = Array.from({ length: n }, (_, i) => (i === phoneAt ? 'Call 0900 5551234' : i === linkAt ? 'paypal\u3002com/login' : `Name${i}`));
  const recipients: [string, number[]][] = values.map((_, i) => [`49151${String(i).padStart(8, '0')}`, [i]]);
  const writes: [string, number, string, number][] = recipients.map(([p]) => [p, 0, 'key "Assistant"', NOW - 60_000]);
  return { c: { fields: ['contact_first_name'], values: [values], recipients, shared: {}, writes }, phoneAt, linkAt };
}

describe('10,000 assistant-written names', () => {
  const { c } = collected();
  const report = buildMergeReport(c, { now: NOW, assistantSince: NOW - 86_400_000 });

  it('put the look-alike link and then the phone number first in the field', () => {
    const f = report.fields[0]!;
    expect(f.values).toHaveLength(10_000);
    expect(f.values[0]!.value).toBe('paypal\u3002com/login');
    expect(f.values[0]!.risks.map((r) => r.code)).toEqual(['lookalike_host', 'contains_link', 'written_by_assistant']);
    expect(f.values[1]!.value).toBe('Call 0900 5551234');
    expect(f.values[1]!.risks.map((r) => r.code)).toEqual(['contains_phone', 'written_by_assistant']);
    expect(f.values[2]!.risks.map((r) => r.code)).toEqual(['written_by_assistant']);
  });

  it('head the first page of values, with and without a field chosen', () => {
    for (const field of [undefined, 'contact_first_name']) {
      const { rows, matched } = queryValues(report, { field, offset: 0, limit: 50 });
      expect(matched).toBe(10_000);
      expect(rows.slice(0, 2).map((r) => r.value)).toEqual(['paypal\u3002com/login', 'Call 0900 5551234']);
    }
  });

  it('are the first two warnings, by value, with the recipient who gets each', () => {
    const w = mergeValueWarnings(report);
    expect(w).toHaveLength(21);
    expect(w[0]!.message).toContain('"paypal\u3002com/login"');
    expect(w[0]!.message).toContain('paypal.com is written');
    expect(w[0]!.message).toContain('+4915100009500');
    expect(w[1]!.message).toContain('"Call 0900 5551234"');
    expect(w[1]!.message).toContain('phone number');
    expect(w[1]!.message).toContain('+4915100006999');
    expect(w[20]!.message).toMatch(/^9,980 more flagged values \(9,980 recipients\)/);
  });

  it('the recipients keep the value they get after the reordering', () => {
    const at = report.recipients.find(([p]) => p === '4915100006999')!;
    expect(report.fields[0]!.values[at[1][0]!]!.value).toBe('Call 0900 5551234');
  });
});

describe('a field of many people', () => {
  it('a dangerous value a person typed still ranks above harmless values an assistant wrote', () => {
    const values = ['Anna', 'Ben', 'reply to bank-secure.support/login'];
    const c: CollectedMergeValues = {
      fields: ['contact_first_name'],
      values: [values],
      recipients: [
        ['1', [0]],
        ['2', [1]],
        ['3', [2]],
      ],
      shared: {},
      writes: [
        ['1', 0, 'key "A"', NOW],
        ['2', 0, 'key "A"', NOW],
      ],
    };
    const r = buildMergeReport(c, { now: NOW, assistantSince: 0 });
    expect(r.fields[0]!.values.map((v) => v.value)).toEqual(['reply to bank-secure.support/login', 'Anna', 'Ben']);
    expect(textRisks('reply to bank-secure.support/login').map((x) => x.code)).toEqual(['contains_link']);
  });
});
