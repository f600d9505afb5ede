import { describe, expect, it } from 'vitest';
import { normalizeContent } from '../../../src/content/normalize.js';
import type { Content } from '../../../src/content/schemas.js';
import { contentSummary } from '../../../src/content/summary.js';
import { validateContent } from '../../../src/content/index.js';
import { actionOf, card, media, richCard } from './fixtures.js';

const asContent = (v: unknown): Content => v as Content;

describe('normalizeContent', () => {
  it('applies card defaults and keeps the input untouched', () => {
    const input = richCard({ media: { contentInfo: { fileUrl: 'https://cdn.example.com/a.jpg' } } });
    const before = JSON.stringify(input);
    const out = normalizeContent('richCard', asContent(input));
    expect(out.cardOrientation).toBe('VERTICAL');
    expect(out.imageAlignment).toBeUndefined();
    expect(out.media?.height).toBe('TALL');
    expect(out.media?.contentInfo?.forceRefresh).toBe(false);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('sets imageAlignment RIGHT on horizontal cards only', () => {
    expect(normalizeContent('richCard', asContent(richCard({ cardOrientation: 'HORIZONTAL' }))).imageAlignment).toBe('RIGHT');
    expect(normalizeContent('richCard', asContent(richCard({ imageAlignment: 'LEFT' }))).imageAlignment).toBeUndefined();
  });

  it('drops card media without fileUrl (rich card and carousel)', () => {
    expect(normalizeContent('richCard', asContent(richCard({ media: { height: 'TALL' } }))).media).toBeUndefined();
    const out = normalizeContent('carousel', asContent({ cardContents: [card({ media: { height: 'SHORT' } }), card()] }));
    expect(out.cardContents?.[0]?.media).toBeUndefined();
    expect(out.cardContents?.[1]?.media?.height).toBe('MEDIUM');
  });

  it('fills action defaults and drops foreign payloads', () => {
    const out = normalizeContent(
      'text',
      asContent({
        text: 'hi',
        suggestions: [
          { action: { text: 'Stop', type: 'unsubscribe' } },
          { action: actionOf('openUrlInWebview', { openUrlInWebviewAction: { url: 'https://e.com' } }) },
          { action: { text: 'Share', type: 'shareLocation' } },
          { action: actionOf('dial', { openUrlAction: { url: 'https://e.com' }, webhookUrl: 'https://h.example.com' }) },
        ],
      }),
    );
    const actions = out.suggestions?.map((s) => s.action);
    expect(actions?.[0]?.unsubscribeAction).toEqual({ stopKeyword: 'STOP' });
    expect(actions?.[1]?.openUrlInWebviewAction?.viewMode).toBe('FULL');
    expect(actions?.[2]?.shareLocationAction).toEqual({});
    expect(actions?.[3]).toEqual({ text: 'Tap', type: 'dial', dialAction: { phoneNumber: '+4930123456' } });
  });

  it('canonicalises the unsubscribe placeholder', () => {
    const out = normalizeContent('richCard', asContent(richCard({ cardActions: [actionOf('unsubscribeLink', { openUrlAction: { url: '{{ unsubscribe_link }}' } })] })));
    expect(out.cardActions?.[0]?.openUrlAction?.url).toBe('{{unsubscribe_link}}');
  });

  it('removes fields the message type does not use, and empty suggestions', () => {
    expect(normalizeContent('text', asContent({ text: 'hi', title: 'x', suggestions: [] }))).toEqual({ text: 'hi' });
  });

  it('keeps message media (no fileUrl check there) but defaults its height', () => {
    expect(normalizeContent('image', asContent({ media: media({ height: undefined }) })).media?.height).toBe('TALL');
  });

  it('normalised valid content is still valid', () => {
    const input = richCard({ cardActions: [actionOf('unsubscribeLink'), actionOf('openUrlInWebview')] });
    expect(validateContent('richCard', normalizeContent('richCard', asContent(input))).errors).toEqual([]);
  });
});

describe('contentSummary', () => {
  it.each([
    ['text', { text: 'Hello' }, 'Hello'],
    ['textBasic', { text: ' Hi ' }, 'Hi'],
    ['richCard', { title: 'T', description: 'D' }, 'T\nD'],
    ['richCard', { description: 'Only D' }, 'Only D'],
    ['carousel', { cardContents: [{ title: 'A' }, { title: 'B', description: 'b' }] }, 'A\n\nB\nb'],
    ['image', { url: 'https://c.example.com/a.png', caption: 'Look' }, 'Look'],
    ['video', { url: 'https://c.example.com/a.mp4' }, 'https://c.example.com/a.mp4'],
    ['file', { media: { contentInfo: { fileUrl: 'https://c.example.com/a.pdf' } } }, 'https://c.example.com/a.pdf'],
    ['audio', {}, ''],
    ['text', null, ''],
    ['bogus', { text: 'fallback' }, 'fallback'],
  ])('%s %j → %j', (type, content, expected) => {
    expect(contentSummary(type, content)).toBe(expected);
  });
});
