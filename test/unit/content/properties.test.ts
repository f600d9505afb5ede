import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentSummary } from '../../../src/content/summary.js';
import { normalizeContent } from '../../../src/content/normalize.js';
import type { Content } from '../../../src/content/schemas.js';
import { validateContent } from '../../../src/content/index.js';
import { ACTION_TYPES, MESSAGE_TYPES, type MessageType } from '../../../src/content/vocabulary.js';
import { actionOf, card, carousel, richCard } from './fixtures.js';

const messageType = fc.oneof(fc.constantFrom<unknown>(...MESSAGE_TYPES), fc.anything());

/** Values near the real shapes, so the search reaches deep branches rather than failing at the top. */
const nearValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue(),
    fc.constantFrom<unknown>(
      richCard(),
      carousel(2),
      card(),
      ...ACTION_TYPES.map((t) => actionOf(t)),
      { reply: { text: 'a' } },
      '{{unsubscribe_link}}',
      'https://cdn.example.com/a.jpg',
      'http://x',
      '{{ x',
      'TALL',
      '2026-05-01T10:00:00Z',
      -0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ),
    fc.dictionary(
      fc.constantFrom(
        'text', 'title', 'description', 'media', 'contentInfo', 'fileUrl', 'cardActions', 'cardContents', 'suggestions',
        'reply', 'action', 'type', 'openUrlAction', 'url', 'dialAction', 'phoneNumber', 'calendarAction', 'startTime',
        'endTime', 'viewLocationAction', 'latLong', 'latitude', 'height', '__proto__', 'constructor', 'toString',
      ),
      tie('value'),
      { maxKeys: 6 },
    ),
    fc.array(tie('value'), { maxLength: 4 }),
  ),
})).value;

function assertWellFormed(r: ReturnType<typeof validateContent>): void {
  expect(r.valid).toBe(r.errors.length === 0);
  for (const issue of [...r.errors, ...r.warnings]) {
    expect(typeof issue.path).toBe('string');
    expect(issue.path).toMatch(/^(messageType|content|smsFallback)/);
    expect(typeof issue.code).toBe('string');
    expect(typeof issue.message).toBe('string');
  }
  expect(r.errors.some((e) => e.code === 'unprocessable')).toBe(false);
}

describe('validateContent never throws', () => {
  it('on arbitrary values (fc.anything)', () => {
    fc.assert(
      fc.property(messageType, fc.anything(), fc.anything(), (type, content, fallback) => {
        const r = validateContent(type, content, { smsFallback: fallback });
        expect(r.valid).toBe(r.errors.length === 0);
        expect(r.errors.some((e) => e.code === 'unprocessable')).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('on arbitrary JSON (fc.jsonValue), with well-formed issues', () => {
    fc.assert(
      fc.property(messageType, fc.jsonValue(), fc.jsonValue(), (type, content, fallback) => {
        assertWellFormed(validateContent(type, content, { smsFallback: fallback }));
      }),
      { numRuns: 2000 },
    );
  });

  it('on near-valid structures that reach the deep checks', () => {
    fc.assert(
      fc.property(fc.constantFrom<unknown>(...MESSAGE_TYPES), nearValue, nearValue, (type, content, fallback) => {
        assertWellFormed(validateContent(type, content, { smsFallback: fallback, knownMergeFields: new Set(['x']) }));
      }),
      { numRuns: 3000 },
    );
  });

  it('with garbage options', () => {
    fc.assert(
      fc.property(fc.anything(), (opts) => {
        // @ts-expect-error: callers from JavaScript can pass anything
        validateContent('text', { text: '{{a}}' }, opts);
      }),
      { numRuns: 300 },
    );
  });

  it('normalizeContent and contentSummary never throw either', () => {
    fc.assert(
      fc.property(fc.constantFrom<MessageType>(...MESSAGE_TYPES), nearValue, (type, content) => {
        normalizeContent(type, content as Content);
        expect(typeof contentSummary(type, content)).toBe('string');
      }),
      { numRuns: 2000 },
    );
  });

  it('is deterministic and does not mutate its input', () => {
    fc.assert(
      fc.property(fc.constantFrom<unknown>(...MESSAGE_TYPES), fc.jsonValue(), (type, content) => {
        const before = JSON.stringify(content);
        const a = validateContent(type, content);
        const b = validateContent(type, content);
        expect(b).toEqual(a);
        expect(JSON.stringify(content)).toBe(before);
      }),
      { numRuns: 500 },
    );
  });
});
