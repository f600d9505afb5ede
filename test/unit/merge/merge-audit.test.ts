import { describe, expect, it } from 'vitest';
import type { Content } from '../../../src/content/schemas.js';
import { checkMergedValue } from '../../../src/content/index.js';
import { mergeContent, mergedStrings } from '../../../src/content/merge-content.js';
import type { MergeContext } from '../../../src/merge/merge-text.js';
import { compareFingerprints, MergeAudit, staleError } from '../../../src/messaging/merge-audit.js';
import { checkMergedMessage, rcsMergePlan } from '../../../src/messaging/merge-checks.js';

const ctx = (firstName: string | null, over: Partial<MergeContext> = {}): MergeContext => ({
  contact: { firstName, lastName: null, phone: '+4915100000001', email: null, customFields: { tier: 'gold' } },
  company: { company_name: 'Acme' },
  today: '22 November 2026',
  unsubscribeUrl: 'https://u.example/u/tok-1',
  customFieldTags: new Set(['tier']),
  ...over,
});

function fingerprint(names: string[], people: [string, string, MergeContext][]) {
  const audit = new MergeAudit(names, 'rcs', people[0]?.[2] ?? ctx(null));
  for (const [phone, identity, c] of people) audit.add(phone, identity, c);
  return audit;
}

describe('merge fingerprint', () => {
  const names = ['contact_first_name', 'tier', 'company_name', 'today', 'unsubscribe_link'];

  it('is equal for the same values, whatever the unsubscribe token', () => {
    const a = fingerprint(names, [['491', 'ct_1', ctx('Alice')]]).fingerprint();
    const b = fingerprint(names, [['491', 'ct_1', ctx('Alice', { unsubscribeUrl: 'https://u.example/u/other-token' })]]).fingerprint();
    expect(compareFingerprints(a, b)).toBeNull();
  });

  it('names the changed per-recipient field and counts recipients', () => {
    const before = fingerprint(names, [['491', 'ct_1', ctx('Alice')], ['492', 'ct_2', ctx('Bob')]]).fingerprint();
    const after = fingerprint(names, [['491', 'ct_1', ctx('Alice!! evil')], ['492', 'ct_2', ctx('Bob')]]).fingerprint();
    expect(compareFingerprints(before, after)).toEqual({ recipients: 1, total: 2, fields: [{ name: 'contact_first_name', recipients: 1 }], dropped: 0, added: 0 });
  });

  it('a shared value (company, today) changes every recipient; identity, drops and additions count', () => {
    const before = fingerprint(names, [['491', 'ct_1', ctx('A')], ['492', 'ct_2', ctx('B')]]).fingerprint();
    const after = fingerprint(names, [['491', 'new', ctx('A', { today: '23 November 2026' })], ['493', 'ct_3', ctx('C', { today: '23 November 2026' })]]).fingerprint();
    const r = compareFingerprints(before, after)!;
    expect(r).toMatchObject({ recipients: 3, total: 2, dropped: 1, added: 1 });
    expect(r.fields).toEqual(expect.arrayContaining([{ name: 'contact', recipients: 1 }, { name: 'today', recipients: 1 }]));
    const err = staleError(r);
    expect(err.code).toBe('PREVIEW_STALE');
    expect(err.status).toBe(409);
    expect(err.message).toContain('3 recipients (of 2 previewed)');
  });

  it('stays compact for 10,000 recipients', () => {
    const people: [string, string, MergeContext][] = Array.from({ length: 10_000 }, (_, i) => [String(4915100000000 + i), `ct_${i}`, ctx(`Name ${i}`)]);
    const json = JSON.stringify(fingerprint(names, people).fingerprint());
    // ≈ 47 bytes a recipient with two per-recipient fields: phone key, 16-char hash, three 4-char tags.
    expect(json.length).toBeLessThan(500_000);
  });

  it('counts empty values per field', () => {
    const audit = fingerprint(names, [['491', 'ct_1', ctx('')], ['492', 'ct_2', ctx(null)], ['493', 'ct_3', ctx('C')]]);
    expect(audit.emptyWarnings()).toEqual([expect.objectContaining({ path: 'merge.contact_first_name', code: 'empty_merge_value', message: expect.stringContaining('2 of 3 recipients') })]);
  });
});

describe('per-recipient checks of merged strings', () => {
  const content: Content = {
    text: 'Hi {{contact_first_name}}',
    suggestions: [
      { action: { type: 'openUrl', text: 'Open', openUrlAction: { url: '{{contact_first_name}}' } } },
      { action: { type: 'unsubscribeLink', text: 'Stop', openUrlAction: { url: '{{unsubscribe_link}}' } } },
    ],
  };

  it('lists exactly the merged strings with placeholders, with request paths', () => {
    expect(mergedStrings(content).map((s) => [s.path, s.kind])).toEqual([
      ['content.text', 'text'],
      ['content.suggestions[0].action.openUrlAction.url', 'url'],
      ['content.suggestions[1].action.openUrlAction.url', 'unsubscribe'],
    ]);
  });

  it('rejects a javascript: URL and an over-long text after merging; accepts a real URL', () => {
    const plan = rcsMergePlan('text', content, null);
    const bad = checkMergedMessage(plan, mergeContent(content, ctx('javascript:alert(1)//')), null);
    expect(bad).toEqual([expect.objectContaining({ path: 'content.suggestions[0].action.openUrlAction.url', code: 'invalid_url' })]);
    expect(checkMergedMessage(plan, mergeContent(content, ctx('https://shop.example/x')), null)).toEqual([]);
    expect(checkMergedValue('title', 'x'.repeat(201), 'content.title')).toEqual([expect.objectContaining({ code: 'too_long' })]);
    expect(checkMergedValue('sms', ' ', 'message', true)).toEqual([expect.objectContaining({ code: 'empty' })]);
    expect(checkMergedValue('buttonUrl', '{{unknown}}/x', 'u')).toEqual([expect.objectContaining({ code: 'invalid_url' })]);
  });
});
