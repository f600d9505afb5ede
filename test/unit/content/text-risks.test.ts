import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkView, textRisks, textWarnings, urlHasHiddenCharacters, visibleText } from '../../../src/content/text-risks.js';
import { validateContent } from '../../../src/content/index.js';

/** The one place that decides which text is risky (issue #27): merged values, content, links. */
const codes = (s: string, field?: string) => textRisks(s, field ? { field } : {}).map((r) => r.code);

describe('risky text', () => {
  it('flags links, phone numbers and e-mail addresses inside a value, unless the field is for one', () => {
    expect(codes('URGENT card blocked call +4990012345')).toEqual(['contains_phone']);
    expect(codes('see www.prize.example/claim')).toEqual(['contains_link']);
    expect(codes('https://x.example')).toEqual(['contains_link']);
    expect(codes('write to a@b.example')).toEqual(['contains_email']);
    expect(codes('a@b.example', 'contact_email')).toEqual([]);
    expect(codes('+49 151 1234567', 'contact_phone')).toEqual([]);
    expect(codes('https://shop.example', 'company_website')).toEqual([]);
  });

  it('leaves ordinary names, dates and single-script words alone', () => {
    for (const s of ['Anna', 'Anna-Maria', "O'Brien", 'Иван', 'Ελένη', '田中さん', 'Zoë', 'Dr. Smith', '27 November 2026', 'Anna.Maria', '']) expect(codes(s), s).toEqual([]);
  });

  it('flags mixed scripts in one word, but not the combinations UTS #39 allows', () => {
    expect(codes('\u0430pple')).toEqual(['mixed_scripts']);
    expect(codes('Pay\u03c1al')).toEqual(['mixed_scripts']);
    expect(codes('東京Tokyo')).toEqual([]);
  });

  it('flags bidi controls and invisible characters and shows them as visible markers', () => {
    expect(codes('scan\u202Eexe.nacs')).toContain('bidi_control');
    expect(visibleText('scan\u202Eexe.nacs')).toBe('scan⟦U+202E⟧exe.nacs');
    expect(codes('pay\u200bpal')).toContain('invisible_character');
    expect(visibleText('a\u2066b\u2069')).toBe('a⟦U+2066⟧b⟦U+2069⟧');
    // A joiner inside an emoji sequence is how the emoji is written.
    expect(codes('👨\u200d👩\u200d👧')).toEqual([]);
  });

  it('any string with a bidi control or an invisible character is flagged (property)', () => {
    const hidden = fc.constantFrom('\u202E', '\u202D', '\u2066', '\u2067', '\u200F', '\u200B', '\u2060', '\uFEFF', '\u00AD');
    fc.assert(
      fc.property(fc.string(), hidden, fc.string(), (a, h, b) => {
        const r = codes(a + h + b);
        expect(r.includes('bidi_control') || r.includes('invisible_character')).toBe(true);
        expect(visibleText(a + h + b)).not.toContain(h);
      }),
    );
  });
});

describe('links as they resolve', () => {
  it('shows an internationalised host in punycode beside its Unicode form, and warns on mixed scripts', () => {
    const v = linkView('https://\u0430pple.com/login');
    expect(v.host).toBe('xn--pple-43d.com');
    expect(v.unicodeHost).toBe('\u0430pple.com');
    expect(v.risks.map((r) => r.code)).toEqual(['idn_host', 'mixed_script_host']);
    expect(linkView('https://xn--pple-43d.com/').unicodeHost).toBe('\u0430pple.com');
    expect(linkView('https://b\u00fccher.de').risks.map((r) => r.code)).toEqual(['idn_host']);
    expect(linkView('https://example.com/a').risks).toEqual([]);
  });

  it('refuses bidi and invisible characters inside URLs in content', () => {
    expect(urlHasHiddenCharacters('https://x.example/\u202Eexe.nacs')).toBe(true);
    const r = validateContent('text', { text: 'x', suggestions: [{ action: { type: 'openUrl', text: 'Open', openUrlAction: { url: 'https://x.example/\u202Eexe.nacs' } } }] });
    expect(r.errors.map((e) => [e.path, e.code])).toEqual([['content.suggestions[0].action.openUrlAction.url', 'invalid_character']]);
    const media = validateContent('image', { url: 'https://x.example/a\u200b.jpg' });
    expect(media.errors.map((e) => e.code)).toContain('invalid_character');
  });

  it('warns about hidden and look-alike text written into content', () => {
    const w = textWarnings({ text: 'Log in at https://\u0430pple.com now \u202Eexe.nacs' }, 'content').map((x) => x.code);
    expect(w).toEqual(['bidi_control', 'mixed_scripts', 'idn_host', 'mixed_script_host']);
  });
});
