import { describe, expect, it } from 'vitest';
import { render } from 'preact-render-to-string';
import { plural, pluralPhrase } from '../../src/platform/plural.js';
import { mergeValueWarnings, type StoredMergeValues } from '../../src/previews/merge-report.js';
import { MergeValuesSummaryCard } from '../../preview-pages/merge-values.js';

describe('plural (issue #42: "9,996 mores", "3 flaggeds")', () => {
  it('counts nouns, phrases and words English does not inflect', () => {
    expect(plural(1, 'recipient')).toBe('1 recipient');
    expect(plural(0, 'recipient')).toBe('0 recipients');
    expect(plural(10_000, 'recipient')).toBe('10,000 recipients');
    expect(plural(9_996, 'more')).toBe('9,996 more');
    expect(plural(1, 'more')).toBe('1 more');
    expect(plural(3, 'flagged')).toBe('3 flagged');
    expect(plural(2, 'more flagged value')).toBe('2 more flagged values');
    expect(plural(2, 'different value')).toBe('2 different values');
    expect(plural(2, 'match')).toBe('2 matches');
    expect(plural(2, 'reply')).toBe('2 replies');
    expect(plural(2, 'day')).toBe('2 days');
    expect(plural(2, 'person', 'people')).toBe('2 people');
    expect(pluralPhrase('warning')).toBe('warnings');
  });

  it('a flagged value of 9,999 recipients names three and "9,996 more"', () => {
    const recipients: StoredMergeValues['recipients'] = [];
    for (let i = 0; i < 10_000; i++) recipients.push([`4915110${String(i).padStart(6, '0')}`, [i === 0 ? 1 : 0]]); // the first gets "Ann"
    const report: StoredMergeValues = {
      v: 1,
      total: 10_000,
      shared: {},
      fields: [
        {
          name: 'contact_first_name',
          values: [
            { value: 'Call 0900 5551234', count: 9_999, risks: [{ code: 'contains_phone', message: 'holds a phone number' }] },
            { value: 'Ann', count: 1, risks: [] },
          ],
        },
      ],
      recipients,
    };
    const [warning] = mergeValueWarnings(report);
    expect(warning?.message).toContain('and 9,996 more)');
    expect(warning?.message).toContain('for 9,999 recipients');
    expect(warning?.message).not.toMatch(/mores\b/);
  });

  it('the in-chat values card says "3 flagged", not "3 flaggeds"', () => {
    const html = render(
      MergeValuesSummaryCard({
        summary: {
          recipients: 40,
          fields: [{ name: 'contact_first_name', distinct: 12, flaggedValues: 3, values: [{ value: 'Ann', recipients: 1, risks: [] }], more: 11 }],
        },
      }),
    );
    expect(html).toContain('12 different values');
    expect(html).toContain(' · 3 flagged<');
    expect(html).not.toContain('flaggeds');
    expect(html).toContain('and 11 more values on the approval page');
  });
});
