import { describe, expect, it } from 'vitest';
import type { Content } from '../../../src/content/schemas.js';
import { BUILTIN_MERGE_FIELDS } from '../../../src/merge/fields.js';
import { mergeContent } from '../../../src/content/merge-content.js';
import { mergeText, mergeUrl, needsContact, type MergeContext } from '../../../src/merge/merge-text.js';
import { findMalformedPlaceholders, findPlaceholders } from '../../../src/merge/placeholders.js';

const company = {
  company_name: 'Acme GmbH',
  company_email: 'hello@acme.example',
  company_phone: '+4930123456',
  company_website: 'https://acme.example',
  company_address: 'Hauptstr. 1',
  company_city: 'Berlin',
  company_country: 'Germany',
  contact_person: 'Eva Muster',
  business_first_name: 'Eva',
  business_last_name: 'Muster',
  gdpr_email: 'privacy@acme.example',
  gdpr_phone: '+4930999',
};

const withContact: MergeContext = {
  contact: { firstName: 'Anna Maria', lastName: 'Schmidt', phone: '4915112345678', email: 'anna@example.com', customFields: { shoe_size: '39' } },
  company,
  today: '15.01.2026',
  unsubscribeUrl: 'https://u.example/x/tok123',
  customFieldTags: new Set(['shoe_size', 'vip_level']),
};
const noContact: MergeContext = { ...withContact, contact: null, unsubscribeUrl: null };

describe('placeholders', () => {
  it('finds names with optional inner whitespace, distinct, in order', () => {
    expect(findPlaceholders('{{a}} {{ b }} {{\tc\t}} {{a}} {{bad name}} {{d-e}} {x}')).toEqual(['a', 'b', 'c']);
    expect(findPlaceholders('none')).toEqual([]);
  });
  it('reports malformed brace runs', () => {
    expect(findMalformedPlaceholders('Hi {{first name}} {{ok}}')).toEqual(['{{first name}}']);
    expect(findMalformedPlaceholders('Hi {{name} and }}')).toEqual(['{{name}', '}}']);
    expect(findMalformedPlaceholders('Hi {{name}}')).toEqual([]);
  });
  it('the built-in list is the one of §2.13', () => {
    expect(BUILTIN_MERGE_FIELDS).toHaveLength(18);
    expect(BUILTIN_MERGE_FIELDS).toContain('gdpr_phone');
    expect(BUILTIN_MERGE_FIELDS).toContain('unsubscribe_link');
  });
});

type Row = [label: string, text: string, rcs: string, sms: string, fallback: string];

describe('mergeText with a contact', () => {
  const rows: Row[] = [
    ['contact fields', '{{contact_first_name}} {{ contact_last_name }}', 'Anna Maria Schmidt', 'Anna Maria Schmidt', 'Anna Maria Schmidt'],
    ['phone and email', '{{contact_phone}}/{{contact_email}}', '4915112345678/anna@example.com', '4915112345678/anna@example.com', '4915112345678/anna@example.com'],
    ['company', '{{company_name}}, {{company_city}}, {{contact_person}}', 'Acme GmbH, Berlin, Eva Muster', 'Acme GmbH, Berlin, Eva Muster', 'Acme GmbH, Berlin, Eva Muster'],
    ['gdpr + business', '{{gdpr_email}} {{business_first_name}}', 'privacy@acme.example Eva', 'privacy@acme.example Eva', 'privacy@acme.example Eva'],
    ['today', 'Stand {{today}}', 'Stand 15.01.2026', 'Stand 15.01.2026', 'Stand 15.01.2026'],
    ['custom field with value', 'Size {{shoe_size}}', 'Size 39', 'Size 39', 'Size 39'],
    ['custom field without value', 'VIP {{vip_level}}!', 'VIP !', 'VIP !', 'VIP !'],
    ['unsubscribe', 'Stop: {{unsubscribe_link}}', 'Stop: https://u.example/x/tok123', 'Stop: https://u.example/x/tok123', 'Stop: https://u.example/x/tok123'],
    ['unknown (rule 2 for SMS, left in RCS)', 'Hi {{nickname}}!', 'Hi {{nickname}}!', 'Hi !', 'Hi !'],
    ['malformed is never touched', 'Hi {{first name}}', 'Hi {{first name}}', 'Hi {{first name}}', 'Hi {{first name}}'],
    ['case-sensitive names', '{{Contact_First_Name}}', '{{Contact_First_Name}}', '', ''],
  ];
  it.each(rows)('%s', (_label, text, rcs, sms, fallback) => {
    expect(mergeText(text, withContact, 'rcs')).toBe(rcs);
    expect(mergeText(text, withContact, 'sms')).toBe(sms);
    expect(mergeText(text, withContact, 'fallback')).toBe(fallback);
  });
});

describe('mergeText without a contact (skipContactCreation)', () => {
  const rows: Row[] = [
    ['contact fields are empty (rule 3)', 'Hi {{contact_first_name}}!', 'Hi !', 'Hi !', 'Hi !'],
    ['custom fields are empty (rule 3)', 'Size {{shoe_size}}.', 'Size .', 'Size .', 'Size .'],
    ['company fields still work (rule 3)', '{{company_name}} / {{gdpr_phone}}', 'Acme GmbH / +4930999', 'Acme GmbH / +4930999', 'Acme GmbH / +4930999'],
    ['today still works', '{{today}}', '15.01.2026', '15.01.2026', '15.01.2026'],
    ['unsubscribe stays as written (rules 3, 4)', 'Stop: {{ unsubscribe_link }}', 'Stop: {{ unsubscribe_link }}', 'Stop: {{ unsubscribe_link }}', 'Stop: {{ unsubscribe_link }}'],
    ['unknown', '{{nope}}', '{{nope}}', '', ''],
  ];
  it.each(rows)('%s', (_label, text, rcs, sms, fallback) => {
    expect(mergeText(text, noContact, 'rcs')).toBe(rcs);
    expect(mergeText(text, noContact, 'sms')).toBe(sms);
    expect(mergeText(text, noContact, 'fallback')).toBe(fallback);
  });

  it('a contact without an unsubscribe URL leaves the placeholder (rule 4)', () => {
    expect(mergeText('{{unsubscribe_link}}', { ...withContact, unsubscribeUrl: null }, 'sms')).toBe('{{unsubscribe_link}}');
  });

  it('missing company values become empty', () => {
    expect(mergeText('[{{company_address}}]', { ...withContact, company: {} }, 'rcs')).toBe('[]');
  });

  it('values are inserted literally (no $-pattern expansion, no re-merge)', () => {
    const ctx: MergeContext = { ...withContact, contact: { ...withContact.contact!, firstName: "$& $1 {{contact_last_name}}" } };
    expect(mergeText('Hi {{contact_first_name}}', ctx, 'rcs')).toBe('Hi $& $1 {{contact_last_name}}');
  });

  it('does not read inherited properties as custom fields', () => {
    expect(mergeText('{{constructor}}{{toString}}', withContact, 'sms')).toBe('');
    expect(mergeText('{{constructor}}', withContact, 'rcs')).toBe('{{constructor}}');
  });
});

describe('mergeUrl', () => {
  it('encodes values inside the URL but not a leading placeholder', () => {
    expect(mergeUrl('https://shop.example/?n={{contact_first_name}}&c={{company_city}}', withContact)).toBe(
      'https://shop.example/?n=Anna%20Maria&c=Berlin',
    );
    expect(mergeUrl('{{company_website}}/spring', withContact)).toBe('https://acme.example/spring');
    expect(mergeUrl('{{unsubscribe_link}}', withContact)).toBe('https://u.example/x/tok123');
    expect(mergeUrl('{{unsubscribe_link}}', noContact)).toBe('{{unsubscribe_link}}');
  });
});

describe('needsContact', () => {
  it.each([
    ['Hi {{contact_first_name}}', undefined, true],
    ['{{unsubscribe_link}}', undefined, true],
    ['{{company_name}} {{today}}', undefined, false],
    ['{{shoe_size}}', new Set(['shoe_size']), true],
    ['{{typo}}', new Set(['shoe_size']), false],
    ['{{typo}}', undefined, true],
    ['plain', undefined, false],
  ] as const)('%s with %o → %s', (text, tags, expected) => {
    expect(needsContact(text, tags)).toBe(expected);
  });
});

describe('mergeContent', () => {
  const content: Content = {
    title: 'Hi {{contact_first_name}}',
    description: 'From {{company_name}}',
    media: { height: 'TALL', contentInfo: { fileUrl: 'https://cdn.example.com/{{keep}}.jpg' } },
    cardActions: [
      { text: 'Shop {{x}}', type: 'openUrl', openUrlAction: { url: 'https://s.example/?n={{contact_first_name}}' } },
      { text: 'Stop', type: 'unsubscribeLink', openUrlAction: { url: '{{unsubscribe_link}}' } },
      { text: 'Call', type: 'dial', dialAction: { phoneNumber: '+4930123' } },
    ],
    suggestions: [
      { reply: { text: 'Yes {{contact_first_name}}', postbackData: '{{contact_first_name}}' } },
      { action: { text: 'App', type: 'openUrlInWebview', openUrlInWebviewAction: { url: '{{company_website}}/app?e={{contact_email}}' } } },
    ],
  };

  it('merges text, title, description, caption and button/chip URLs only', () => {
    const before = JSON.stringify(content);
    const out = mergeContent(content, withContact);
    expect(out.title).toBe('Hi Anna Maria');
    expect(out.description).toBe('From Acme GmbH');
    expect(out.cardActions?.[0]?.openUrlAction?.url).toBe('https://s.example/?n=Anna%20Maria');
    expect(out.cardActions?.[0]?.text).toBe('Shop {{x}}');
    expect(out.cardActions?.[1]?.openUrlAction?.url).toBe('https://u.example/x/tok123');
    expect(out.suggestions?.[0]?.reply).toEqual({ text: 'Yes {{contact_first_name}}', postbackData: '{{contact_first_name}}' });
    expect(out.suggestions?.[1]?.action?.openUrlInWebviewAction?.url).toBe('https://acme.example/app?e=anna%40example.com');
    expect(out.media?.contentInfo?.fileUrl).toBe('https://cdn.example.com/{{keep}}.jpg');
    expect(JSON.stringify(content)).toBe(before);
  });

  it('merges carousel cards and text/caption', () => {
    const out = mergeContent(
      {
        text: '{{today}}',
        caption: '{{company_name}}',
        cardContents: [
          { title: '{{contact_last_name}}', cardActions: [{ text: 'Go', type: 'openUrl', openUrlAction: { url: '{{company_website}}' } }] },
          { description: '{{contact_email}}' },
        ],
      },
      withContact,
    );
    expect(out.text).toBe('15.01.2026');
    expect(out.caption).toBe('Acme GmbH');
    expect(out.cardContents?.[0]?.title).toBe('Schmidt');
    expect(out.cardContents?.[0]?.cardActions?.[0]?.openUrlAction?.url).toBe('https://acme.example');
    expect(out.cardContents?.[1]?.description).toBe('anna@example.com');
  });

  it('leaves the unsubscribe button as written without a contact', () => {
    expect(mergeContent(content, noContact).cardActions?.[1]?.openUrlAction?.url).toBe('{{unsubscribe_link}}');
  });
});
