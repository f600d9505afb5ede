import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bidiControls, invisibleCharacters, linksIn, linkView, textRisks, textWarnings, urlHasHiddenCharacters, type TextWarning } from '../../../src/content/text-risks.js';

/**
 * textWarnings as it was written before issue #31 made it cheaper: every string through the full
 * textRisks and linkView, keeping only the written-text codes. The fast version must give exactly this.
 */
function reference(value: unknown, path: string, out: TextWarning[] = [], depth = 0): TextWarning[] {
  if (out.length >= 50 || depth > 8) return out;
  if (typeof value === 'string') {
    const key = path.replace(/\[\d+\]$/, '').split('.').pop() ?? '';
    const isUrl = ['url', 'fileUrl', 'thumbnailUrl', 'webhookUrl'].includes(key);
    for (const r of textRisks(value)) {
      if (r.code === 'bidi_control' || r.code === 'invisible_character' || (r.code === 'mixed_scripts' && !isUrl)) out.push({ path, code: r.code, message: `${key || 'The text'} ${r.message}.` });
    }
    for (const link of isUrl ? [value] : linksIn(value)) {
      for (const r of linkView(link).risks) if (r.code === 'idn_host' || r.code === 'mixed_script_host') out.push({ path, code: r.code, message: r.message });
    }
    return out;
  }
  if (Array.isArray(value)) value.forEach((v, i) => reference(v, `${path}[${i}]`, out, depth + 1));
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) reference(v, `${path}.${k}`, out, depth + 1);
  return out;
}

// Pieces that reach every branch: schemes, hosts, punycode labels, percent-escapes, look-alike
// letters, bidi controls, joiners between emoji and plain ASCII filler.
const piece = fc.constantFrom(
  'https://', 'http://', 'www.', 'shop', '.com', '.de', '.example', '/path?q=1', ' ', 'Hello ', '{{contact_first_name}}',
  'xn--', 'XN--pple-43d', 'xn--80ak6aa92e', '%D0%B0', '%41', '%', '%4', '20% off', '%e2%80%ae', '%zz', '\u0430', 'р', 'Ελ', '田中', '\u202e', '\u200b', '\u200d', '👍', '\u00ad',
  'a@b.example', '+49 151 1234567', 'ü', '\t', '\u0001', '[::1]', ':8080', '@',
);
const text = fc.array(fc.oneof(piece, fc.string({ maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 4 })), { maxLength: 12 }).map((xs) => xs.join(''));
const key = fc.constantFrom('text', 'title', 'description', 'url', 'fileUrl', 'thumbnailUrl', 'webhookUrl', 'postbackData');

describe('textWarnings (fast path for plain text, issue #31)', () => {
  it('gives exactly the warnings of the full scan, on strings mixing links, escapes, punycode and hidden characters', () => {
    fc.assert(
      fc.property(fc.dictionary(key, text, { maxKeys: 4 }), (content) => {
        expect(textWarnings(content, 'content')).toEqual(reference(content, 'content'));
      }),
      { numRuns: 3000 },
    );
  });

  it('still flags ASCII-only text whose host turns international through a percent-escape or a punycode label', () => {
    const codes = (v: unknown) => textWarnings(v, 'content').map((w) => w.code);
    expect(codes({ text: 'see https://%D0%B0pple.com/x' })).toEqual(['idn_host', 'mixed_script_host']);
    expect(codes({ text: 'see xn--pple-43d.com today' })).toEqual(['idn_host', 'mixed_script_host']);
    expect(codes({ url: 'https://XN--pple-43d.com/' })).toEqual(['idn_host', 'mixed_script_host']);
    expect(codes({ text: 'Hello {{contact_first_name}}, 20% off at https://example.com' })).toEqual([]);
    expect(codes({ text: 'plain ASCII, no risk: www.example.com' })).toEqual([]);
  });

  it('urlHasHiddenCharacters (ASCII short cut) agrees with the full scan', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(urlHasHiddenCharacters(s)).toBe(bidiControls(s).length > 0 || invisibleCharacters(s).length > 0);
      }),
      { numRuns: 3000 },
    );
  });
});
