import { describe, expect, it } from 'vitest';
import { validateContent } from '../../../src/content/index.js';
import { actionOf, card, carousel, chipAction, httpsUrlOfLength, media, repeat, reply, richCard } from './fixtures.js';

type Case = {
  name: string;
  messageType: string;
  /** Content at the limit (must be valid) and at limit + 1 (must fail). */
  atLimit: unknown;
  overLimit: unknown;
  smsFallback?: [unknown, unknown];
  path: string;
  code: string;
};

const s = (n: number, ch = 'x'): string => ch.repeat(n);

const cases: Case[] = [
  { name: 'text 3072', messageType: 'text', atLimit: { text: s(3072) }, overLimit: { text: s(3073) }, path: 'content.text', code: 'too_long' },
  { name: 'textBasic 160', messageType: 'textBasic', atLimit: { text: s(160) }, overLimit: { text: s(161) }, path: 'content.text', code: 'too_long' },
  { name: 'rich card title 200', messageType: 'richCard', atLimit: richCard({ title: s(200) }), overLimit: richCard({ title: s(201) }), path: 'content.title', code: 'too_long' },
  {
    name: 'rich card description 2000',
    messageType: 'richCard',
    atLimit: richCard({ description: s(2000) }),
    overLimit: richCard({ description: s(2001) }),
    path: 'content.description',
    code: 'too_long',
  },
  {
    name: 'caption 2000',
    messageType: 'image',
    atLimit: { url: 'https://cdn.example.com/a.jpg', caption: s(2000) },
    overLimit: { url: 'https://cdn.example.com/a.jpg', caption: s(2001) },
    path: 'content.caption',
    code: 'too_long',
  },
  {
    name: 'card actions 4',
    messageType: 'richCard',
    atLimit: richCard({ cardActions: repeat(4, () => actionOf('openUrl')) }),
    overLimit: richCard({ cardActions: repeat(5, () => actionOf('openUrl')) }),
    path: 'content.cardActions',
    code: 'too_many',
  },
  {
    name: 'chips 11 (mixed)',
    messageType: 'text',
    atLimit: { text: 'hi', suggestions: repeat(11, (i) => (i % 2 ? reply() : chipAction('dial'))) },
    overLimit: { text: 'hi', suggestions: repeat(12, (i) => (i % 2 ? reply() : chipAction('dial'))) },
    path: 'content.suggestions',
    code: 'too_many',
  },
  {
    name: 'card button text 25',
    messageType: 'richCard',
    atLimit: richCard({ cardActions: [actionOf('openUrl', { text: s(25) })] }),
    overLimit: richCard({ cardActions: [actionOf('openUrl', { text: s(26) })] }),
    path: 'content.cardActions[0].text',
    code: 'too_long',
  },
  {
    name: 'reply chip text 25 (4th chip)',
    messageType: 'text',
    atLimit: { text: 'hi', suggestions: [reply(), reply(), reply(), reply({ text: s(25) })] },
    overLimit: { text: 'hi', suggestions: [reply(), reply(), reply(), reply({ text: s(26) })] },
    path: 'content.suggestions[3].reply.text',
    code: 'too_long',
  },
  {
    name: 'action chip text 25',
    messageType: 'text',
    atLimit: { text: 'hi', suggestions: [chipAction('openUrl', { text: s(25) })] },
    overLimit: { text: 'hi', suggestions: [chipAction('openUrl', { text: s(26) })] },
    path: 'content.suggestions[0].action.text',
    code: 'too_long',
  },
  {
    name: 'card button postbackData 2048',
    messageType: 'richCard',
    atLimit: richCard({ cardActions: [actionOf('postback', { postbackData: s(2048) })] }),
    overLimit: richCard({ cardActions: [actionOf('postback', { postbackData: s(2049) })] }),
    path: 'content.cardActions[0].postbackData',
    code: 'too_long',
  },
  {
    name: 'reply postbackData 2048',
    messageType: 'text',
    atLimit: { text: 'hi', suggestions: [reply({ postbackData: s(2048) })] },
    overLimit: { text: 'hi', suggestions: [reply({ postbackData: s(2049) })] },
    path: 'content.suggestions[0].reply.postbackData',
    code: 'too_long',
  },
  { name: 'carousel min 2', messageType: 'carousel', atLimit: carousel(2), overLimit: carousel(1), path: 'content.cardContents', code: 'too_few' },
  { name: 'carousel max 10', messageType: 'carousel', atLimit: carousel(10), overLimit: carousel(11), path: 'content.cardContents', code: 'too_many' },
  {
    name: 'carousel card title 200',
    messageType: 'carousel',
    atLimit: { cardContents: [card(), card({ title: s(200) })] },
    overLimit: { cardContents: [card(), card({ title: s(201) })] },
    path: 'content.cardContents[1].title',
    code: 'too_long',
  },
  {
    name: 'carousel card description 2000',
    messageType: 'carousel',
    atLimit: { cardContents: [card(), card({ description: s(2000) })] },
    overLimit: { cardContents: [card(), card({ description: s(2001) })] },
    path: 'content.cardContents[1].description',
    code: 'too_long',
  },
  {
    name: 'carousel card actions 4',
    messageType: 'carousel',
    atLimit: { cardContents: [card(), card({ cardActions: repeat(4, () => actionOf('dial')) })] },
    overLimit: { cardContents: [card(), card({ cardActions: repeat(5, () => actionOf('dial')) })] },
    path: 'content.cardContents[1].cardActions',
    code: 'too_many',
  },
  {
    name: 'carousel card button type (chip-only) path',
    messageType: 'carousel',
    atLimit: { cardContents: [card(), card({ cardActions: [actionOf('dial')] })] },
    overLimit: { cardContents: [card(), card({ cardActions: [actionOf('unsubscribe')] })] },
    path: 'content.cardContents[1].cardActions[0].type',
    code: 'not_allowed_on_card_button',
  },
  {
    name: 'media url 2000',
    messageType: 'image',
    atLimit: { url: httpsUrlOfLength(2000) },
    overLimit: { url: httpsUrlOfLength(2001) },
    path: 'content.url',
    code: 'too_long',
  },
  {
    name: 'media fileUrl 2000',
    messageType: 'richCard',
    atLimit: richCard({ media: media({ contentInfo: { fileUrl: httpsUrlOfLength(2000) } }) }),
    overLimit: richCard({ media: media({ contentInfo: { fileUrl: httpsUrlOfLength(2001) } }) }),
    path: 'content.media.contentInfo.fileUrl',
    code: 'too_long',
  },
  {
    name: 'button url 2000',
    messageType: 'richCard',
    atLimit: richCard({ cardActions: [actionOf('openUrl', { openUrlAction: { url: httpsUrlOfLength(2000) } })] }),
    overLimit: richCard({ cardActions: [actionOf('openUrl', { openUrlAction: { url: httpsUrlOfLength(2001) } })] }),
    path: 'content.cardActions[0].openUrlAction.url',
    code: 'too_long',
  },
  {
    name: 'sms fallback 1530',
    messageType: 'text',
    atLimit: { text: 'hi' },
    overLimit: { text: 'hi' },
    smsFallback: [
      { message: s(1530), sendernameId: 'snd_1' },
      { message: s(1531), sendernameId: 'snd_1' },
    ],
    path: 'smsFallback.message',
    code: 'too_long',
  },
];

describe('limits at the boundary (limit passes, limit + 1 fails at the exact path)', () => {
  it.each(cases)('$name', (c) => {
    const ok = validateContent(c.messageType, c.atLimit, c.smsFallback ? { smsFallback: c.smsFallback[0] } : undefined);
    expect(ok.errors).toEqual([]);
    expect(ok.valid).toBe(true);

    const bad = validateContent(c.messageType, c.overLimit, c.smsFallback ? { smsFallback: c.smsFallback[1] } : undefined);
    expect(bad.valid).toBe(false);
    expect(bad.errors).toContainEqual(expect.objectContaining({ path: c.path, code: c.code }));
  });

  it('counts length in UTF-16 code units (an emoji is 2)', () => {
    const atLimit = validateContent('richCard', richCard({ cardActions: [actionOf('openUrl', { text: `${s(23)}🎉` })] }));
    expect(atLimit.valid).toBe(true);
    const over = validateContent('richCard', richCard({ cardActions: [actionOf('openUrl', { text: `${s(24)}🎉` })] }));
    expect(over.errors).toContainEqual(expect.objectContaining({ path: 'content.cardActions[0].text', code: 'too_long' }));
  });

  it('checks every item, reporting each at its own index', () => {
    const r = validateContent('text', { text: 'hi', suggestions: [reply({ text: s(26) }), reply(), reply({ text: s(30) })] });
    expect(r.errors.map((e) => e.path)).toEqual(['content.suggestions[0].reply.text', 'content.suggestions[2].reply.text']);
  });
});
