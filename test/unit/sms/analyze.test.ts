import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeSms, countSmsSegments, splitSms } from '../../../src/sms/analyze.js';
import { GSM_BASIC_CHARACTERS, GSM_EXTENSION_CHARACTERS } from '../../../src/sms/gsm-alphabet.js';

const a = (n: number): string => 'a'.repeat(n);
const zh = (n: number): string => 'ж'.repeat(n);

describe('GSM 03.38 tables', () => {
  it('has the 127 basic characters (128 minus ESC), each costing one septet', () => {
    expect([...GSM_BASIC_CHARACTERS]).toHaveLength(127);
    const r = analyzeSms(GSM_BASIC_CHARACTERS);
    expect(r.encoding).toBe('GSM-7');
    expect(r.units).toBe(127);
  });

  it.each([...GSM_EXTENSION_CHARACTERS].map((ch) => [JSON.stringify(ch), ch]))('extension %s costs two septets', (_label, ch) => {
    expect(analyzeSms(ch)).toMatchObject({ encoding: 'GSM-7', units: 2, segments: 1 });
  });

  it('has exactly the ten extension characters ^ { } \\ [ ~ ] | € and form feed', () => {
    expect([...GSM_EXTENSION_CHARACTERS].sort()).toEqual(['\f', '^', '{', '}', '\\', '[', '~', ']', '|', '€'].sort());
  });

  it.each([
    ['ç (lower-case cedilla; only Ç is GSM)', 'ç'],
    ['á', 'á'],
    ['backtick', '`'],
    ['typographic apostrophe', '’'],
    ['en dash', '–'],
    ['no-break space', '\u00a0'],
    ['literal ESC', '\u001b'],
    ['tab', '\t'],
    ['emoji', '😀'],
    ['lone surrogate', '\ud83d'],
  ])('%s forces Unicode', (_label, ch) => {
    const r = analyzeSms(`Hello ${ch}`);
    expect(r.encoding).toBe('Unicode');
    expect(r.unicodeCharacters).toEqual([ch]);
  });

  it.each([['@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¤¡ÄÖÑÜ§¿äöñüà']])('Greek capitals and accented Latin of the table stay GSM-7', (text) => {
    expect(analyzeSms(text).encoding).toBe('GSM-7');
  });
});

describe('segment boundaries', () => {
  it.each([
    ['empty', '', 'GSM-7', 0, 0, 160],
    ['1 char', 'a', 'GSM-7', 1, 1, 160],
    ['160 GSM', a(160), 'GSM-7', 160, 1, 160],
    ['161 GSM', a(161), 'GSM-7', 161, 2, 153],
    ['306 GSM', a(306), 'GSM-7', 306, 2, 153],
    ['307 GSM', a(307), 'GSM-7', 307, 3, 153],
    ['1530 GSM', a(1530), 'GSM-7', 1530, 10, 153],
    ['1531 GSM', a(1531), 'GSM-7', 1531, 11, 153],
    ['80 × { = 160 septets', '{'.repeat(80), 'GSM-7', 160, 1, 160],
    ['81 × { = 162 septets', '{'.repeat(81), 'GSM-7', 162, 2, 153],
    ['159 + € = 161 septets', a(159) + '€', 'GSM-7', 161, 2, 153],
    ['70 UCS-2', zh(70), 'Unicode', 70, 1, 70],
    ['71 UCS-2', zh(71), 'Unicode', 71, 2, 67],
    ['134 UCS-2', zh(134), 'Unicode', 134, 2, 67],
    ['135 UCS-2', zh(135), 'Unicode', 135, 3, 67],
    ['35 emoji = 70 units', '😀'.repeat(35), 'Unicode', 70, 1, 70],
    ['one non-GSM char turns 160 GSM into 3 UCS-2 parts', a(159) + 'ж', 'Unicode', 160, 3, 67],
  ])('%s', (_label, text, encoding, units, segments, perSegment) => {
    const r = analyzeSms(text);
    expect(r).toMatchObject({ encoding, units, segments, perSegment });
    expect(countSmsSegments(text)).toBe(segments);
  });

  it('never splits an escape sequence: € straddling the 153 boundary moves to the next part', () => {
    // 152 + € (2) + 152 = 306 septets: a naive ceil(306 / 153) says 2, the real split needs 3.
    const text = a(152) + '€' + a(152);
    const r = analyzeSms(text, { includeParts: true });
    expect(r.units).toBe(306);
    expect(r.segments).toBe(3);
    expect(r.parts?.map((p) => p.units)).toEqual([152, 153, 1]);
    expect(r.parts?.[1]?.text.startsWith('€')).toBe(true);
  });

  it('an escape that fits exactly stays in its part', () => {
    const r = analyzeSms(a(151) + '€' + a(153), { includeParts: true });
    expect(r.units).toBe(306);
    expect(r.segments).toBe(2);
    expect(r.parts?.map((p) => p.units)).toEqual([153, 153]);
  });

  it('never splits a surrogate pair: an emoji at the 67-unit boundary moves to the next part', () => {
    // 66 + 😀 (2) + 66 = 134 units: naive ceil(134 / 67) says 2, the real split needs 3.
    const text = zh(66) + '😀' + zh(66);
    const r = analyzeSms(text, { includeParts: true });
    expect(r.units).toBe(134);
    expect(r.segments).toBe(3);
    expect(r.parts?.map((p) => p.units)).toEqual([66, 67, 1]);
    expect(r.parts?.[1]?.text.startsWith('😀')).toBe(true);
  });

  it('an emoji that fits exactly stays in its part', () => {
    const r = analyzeSms(zh(65) + '😀' + zh(67), { includeParts: true });
    expect(r.parts?.map((p) => p.units)).toEqual([67, 67]);
  });

  it('lists distinct Unicode characters in order of first appearance', () => {
    expect(analyzeSms('ça 😀 va ç 😀 ’').unicodeCharacters).toEqual(['ç', '😀', '’']);
    expect(analyzeSms('plain').unicodeCharacters).toEqual([]);
  });

  it('splitSms of the empty text is no parts', () => {
    expect(splitSms('')).toEqual([]);
    expect(splitSms('hi')).toEqual([{ text: 'hi', units: 2 }]);
  });
});

const unit = fc.oneof(
  fc.constantFrom(...GSM_BASIC_CHARACTERS),
  fc.constantFrom(...GSM_EXTENSION_CHARACTERS),
  fc.constantFrom('ж', 'ç', '’', '😀', '👍🏽', '\ud83d', '中'),
);
const smsText = fc.array(unit, { maxLength: 400 }).map((chars) => chars.join(''));
const gsmText = fc
  .array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...GSM_BASIC_CHARACTERS) }, fc.constantFrom(...GSM_EXTENSION_CHARACTERS)), { maxLength: 400 })
  .map((chars) => chars.join(''));

describe('splitter properties', () => {
  it('parts join back to the text, fit their segment, and count the segments', () => {
    fc.assert(
      fc.property(fc.oneof(smsText, gsmText, fc.string({ unit: 'binary', maxLength: 300 })), (text) => {
        const r = analyzeSms(text, { includeParts: true });
        const parts = r.parts ?? [];
        expect(parts.map((p) => p.text).join('')).toBe(text);
        expect(parts.length).toBe(r.segments);
        expect(parts.reduce((n, p) => n + p.units, 0)).toBe(r.units);
        let offset = 0;
        for (const p of parts) {
          expect(p.units).toBeLessThanOrEqual(r.perSegment);
          expect(p.units).toBeGreaterThan(0);
          offset += p.text.length;
          const last = text.charCodeAt(offset - 1);
          const next = text.charCodeAt(offset);
          // No part ends inside a surrogate pair.
          expect(last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('segment counts are monotonic when appending characters', () => {
    fc.assert(
      fc.property(fc.oneof(smsText, gsmText), unit, (text, ch) => {
        expect(analyzeSms(text + ch).segments).toBeGreaterThanOrEqual(analyzeSms(text).segments);
      }),
      { numRuns: 2000 },
    );
  });

  it('every GSM-7 part but the last is full or one septet short (an escape that did not fit)', () => {
    fc.assert(
      fc.property(gsmText, (text) => {
        const r = analyzeSms(text, { includeParts: true });
        if (r.units <= 160) return;
        const parts = r.parts ?? [];
        for (const p of parts.slice(0, -1)) expect(p.units).toBeGreaterThanOrEqual(152);
        expect(r.segments).toBeGreaterThanOrEqual(Math.ceil(r.units / 153));
      }),
      { numRuns: 1000 },
    );
  });

  it('every Unicode part but the last is full or one unit short (a pair that did not fit)', () => {
    fc.assert(
      fc.property(smsText, (text) => {
        const r = analyzeSms(text, { includeParts: true });
        if (r.encoding !== 'Unicode' || r.units <= 70) return;
        for (const p of (r.parts ?? []).slice(0, -1)) expect(p.units).toBeGreaterThanOrEqual(66);
      }),
      { numRuns: 1000 },
    );
  });
});
