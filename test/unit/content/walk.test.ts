import { describe, expect, it } from 'vitest';
import { mergeContent } from '../../../src/content/merge-content.js';
import { RcsMessageSchema, type Content } from '../../../src/content/schemas.js';
import { hasTitleOrDescription } from '../../../src/content/title-or-description.js';
import { ACTION_TYPES, MESSAGE_TYPES, actionAllowedOn, type MessageType } from '../../../src/content/vocabulary.js';
import { contentItems, contentPath, shownCardCount, shownCardOf, valueAt, withValueAt, type ContentItem } from '../../../src/content/walk.js';
import type { MergeContext } from '../../../src/merge/merge-text.js';
import { actionOf, card, carousel, chipAction, media, reply, richCard } from './fixtures.js';

const asContent = (v: unknown): Content => v as Content;
/** `kind path` per item: the walk's order and paths at a glance. */
const shape = (items: ContentItem[]): string[] => items.map((i) => `${i.kind} ${i.path}`);

function valid(messageType: MessageType, content: unknown): void {
  const parsed = RcsMessageSchema.safeParse({ messageType, content });
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
}

describe('contentItems: one walk over every content shape', () => {
  it('a text message: its text and its chips', () => {
    const content = { text: 'Hello', suggestions: [reply(), chipAction('dial')] };
    valid('text', content);
    expect(shape(contentItems(asContent(content)))).toEqual([
      'text content.text',
      'button content.suggestions[0]',
      'button content.suggestions[1]',
      'action content.suggestions[1].action',
    ]);
    const [text] = contentItems(asContent(content));
    expect(text).toEqual({ kind: 'text', field: 'text', value: 'Hello', at: ['text'], path: 'content.text', card: null });
  });

  it('a media message: url and caption, or the media object with file, thumbnail and placeholder image', () => {
    expect(shape(contentItems(asContent({ url: 'https://cdn.example.com/v.mp4', caption: 'Watch' })))).toEqual(['text content.caption', 'media content.url']);
    const withMedia = {
      media: {
        height: 'TALL',
        contentInfo: { fileUrl: 'https://cdn.example.com/v.mp4', contentType: 'video/mp4', thumbnailUrl: 'https://cdn.example.com/t.jpg' },
        thumbnailUrl: 'https://cdn.example.com/p.jpg',
      },
    };
    valid('video', withMedia);
    const items = contentItems(asContent(withMedia));
    expect(items).toEqual([
      { kind: 'media', field: 'fileUrl', value: 'https://cdn.example.com/v.mp4', contentType: 'video/mp4', at: ['media', 'contentInfo', 'fileUrl'], path: 'content.media.contentInfo.fileUrl', card: null },
      { kind: 'media', field: 'thumbnailUrl', value: 'https://cdn.example.com/t.jpg', contentType: undefined, at: ['media', 'contentInfo', 'thumbnailUrl'], path: 'content.media.contentInfo.thumbnailUrl', card: null },
      { kind: 'media', field: 'thumbnailUrl', value: 'https://cdn.example.com/p.jpg', contentType: undefined, at: ['media', 'thumbnailUrl'], path: 'content.media.thumbnailUrl', card: null },
    ]);
  });

  it('a rich card: title, description, media, card buttons with their actions and URLs, then the chips', () => {
    const content = richCard({ cardActions: [actionOf('openUrl'), actionOf('postback')], suggestions: [reply(), chipAction('openUrlInWebview')] });
    valid('richCard', content);
    expect(shape(contentItems(asContent(content)))).toEqual([
      'text content.title',
      'text content.description',
      'media content.media.contentInfo.fileUrl',
      'button content.cardActions[0]',
      'action content.cardActions[0]',
      'actionUrl content.cardActions[0].openUrlAction.url',
      'button content.cardActions[1]',
      'action content.cardActions[1]',
      'button content.suggestions[0]',
      'button content.suggestions[1]',
      'action content.suggestions[1].action',
      'actionUrl content.suggestions[1].action.openUrlInWebviewAction.url',
    ]);
    expect(contentItems(asContent(content)).every((i) => i.card === null)).toBe(true);
  });

  it('a carousel of N cards: each card in order with its index, then the message-level chips', () => {
    for (const n of [2, 3, 10]) {
      const content = carousel(n, { suggestions: [reply()] });
      (content.cardContents as Record<string, unknown>[])[n - 1]!.cardActions = [actionOf('openUrl')];
      valid('carousel', content);
      const items = contentItems(asContent(content));
      const cards = items.filter((i) => i.card !== null);
      expect(new Set(cards.map((i) => i.card))).toEqual(new Set(Array.from({ length: n }, (_, i) => i)));
      expect(shape(items.filter((i) => i.card === 0))).toEqual(['text content.cardContents[0].title', 'text content.cardContents[0].description', 'media content.cardContents[0].media.contentInfo.fileUrl']);
      expect(shape(items.filter((i) => i.card === n - 1)).slice(3)).toEqual([
        `button content.cardContents[${n - 1}].cardActions[0]`,
        `action content.cardContents[${n - 1}].cardActions[0]`,
        `actionUrl content.cardContents[${n - 1}].cardActions[0].openUrlAction.url`,
      ]);
      expect(shape(items.slice(-1))).toEqual(['button content.suggestions[0]']);
      expect(items.filter((i) => i.card === 1 && i.kind === 'text').map((i) => i.kind === 'text' && i.value)).toEqual(['Card 1', 'Text']);
    }
  });

  it('every action type as a card button and as a chip, where the schemas allow it', () => {
    for (const type of ACTION_TYPES) {
      const placements = (['cardButton', 'chip'] as const).filter((p) => actionAllowedOn(type, p));
      expect(placements.length).toBeGreaterThan(0);
      for (const placement of placements) {
        const content =
          placement === 'chip' ? { title: 'T', suggestions: [chipAction(type)] } : { title: 'T', cardActions: [actionOf(type)] };
        valid('richCard', content);
        const items = contentItems(asContent(content));
        const actions = items.filter((i) => i.kind === 'action');
        expect(actions, `${type} on ${placement}`).toHaveLength(1);
        expect(actions[0]).toMatchObject({ placement, action: { type } });
        const buttons = items.filter((i) => i.kind === 'button');
        expect(buttons).toHaveLength(1);
        expect(buttons[0]).toMatchObject({ placement, index: 0, action: { type } });
        const urls = items.filter((i) => i.kind === 'actionUrl').map((i) => i.path);
        const base = placement === 'chip' ? 'content.suggestions[0].action' : 'content.cardActions[0]';
        const expected =
          type === 'openUrl' || type === 'unsubscribeLink' ? [`${base}.openUrlAction.url`] : type === 'openUrlInWebview' ? [`${base}.openUrlInWebviewAction.url`] : [];
        expect(urls, `${type} on ${placement}`).toEqual(expected);
      }
    }
  });

  it('a reply chip is a button with its reply and no action', () => {
    const [button, ...rest] = contentItems(asContent({ suggestions: [reply({ text: 'Yes please' })] }));
    expect(rest).toEqual([]);
    expect(button).toEqual({ kind: 'button', placement: 'chip', index: 0, reply: { text: 'Yes please', postbackData: 'yes' }, action: undefined, at: ['suggestions', 0], path: 'content.suggestions[0]', card: null });
  });

  it('with a message type, visits only the fields the type uses (§2.1)', () => {
    const everything = asContent({
      text: 'x',
      url: 'https://cdn.example.com/a.jpg',
      caption: 'c',
      title: 't',
      description: 'd',
      media: media(),
      cardActions: [actionOf('dial')],
      cardContents: [card(), card()],
      suggestions: [reply()],
    });
    const fields = (type: MessageType) => [...new Set(contentItems(everything, type).map((i) => String(i.at[0])))];
    expect(fields('text')).toEqual(['text', 'suggestions']);
    expect(fields('textBasic')).toEqual(['text']);
    expect(fields('richCard')).toEqual(['title', 'description', 'media', 'cardActions', 'suggestions']);
    expect(fields('carousel')).toEqual(['cardContents', 'suggestions']);
    expect(fields('media')).toEqual(['caption', 'url', 'media', 'suggestions']);
    expect(fields('audio')).toEqual(['url', 'media']);
    for (const type of MESSAGE_TYPES) expect(contentItems(everything, type).length).toBeLessThan(contentItems(everything).length);
  });

  it('skips values of the wrong shape instead of throwing (stored JSON is read back as written)', () => {
    const broken = asContent({
      text: 5,
      media: 'x',
      cardActions: [null, 'a', { text: 'ok', type: 'postback' }],
      cardContents: [null, { title: 7, media: { contentInfo: 'no' } }, { description: 'd' }],
      suggestions: [null, {}, { reply: 'r', action: 3 }],
    });
    expect(shape(contentItems(broken))).toEqual([
      'button content.cardActions[2]',
      'action content.cardActions[2]',
      'text content.cardContents[2].description',
      'button content.suggestions[1]',
      'button content.suggestions[2]',
    ]);
    expect(contentItems(null as unknown as Content)).toEqual([]);
    expect(contentItems([] as unknown as Content)).toEqual([]);
  });
});

describe('the walk and mergeContent visit the same strings', () => {
  const ctx: MergeContext = {
    contact: { firstName: 'Ann', lastName: null, phone: '+4915100000001', email: null, customFields: {} },
    company: {},
    today: '1 May 2026',
    unsubscribeUrl: 'https://u.example/u/t',
    customFieldTags: new Set(),
  };
  /** Every string of the content holds a placeholder: what merging changes is what it visits. */
  const content = asContent({
    text: 'Hi {{contact_first_name}}',
    caption: 'c {{contact_first_name}}',
    title: 't {{contact_first_name}}',
    description: 'd {{contact_first_name}}',
    url: 'https://cdn.example.com/{{contact_first_name}}.jpg',
    media: { contentInfo: { fileUrl: 'https://cdn.example.com/{{contact_first_name}}.jpg' } },
    cardActions: [actionOf('openUrl', { text: 'Go {{contact_first_name}}', openUrlAction: { url: 'https://x.example/{{contact_first_name}}' } })],
    cardContents: [
      card({ title: 'a {{contact_first_name}}', description: 'b {{contact_first_name}}', cardActions: [actionOf('openUrlInWebview', { openUrlInWebviewAction: { url: 'https://x.example/?n={{contact_first_name}}' } })] }),
    ],
    suggestions: [reply({ text: 'r {{contact_first_name}}' }), chipAction('unsubscribeLink'), chipAction('dial', { dialAction: { phoneNumber: '{{contact_first_name}}' } })],
  });

  it('mergeContent changes exactly the text and action-URL items', () => {
    const merged = mergeContent(content, ctx);
    const changed = (v: unknown, w: unknown, at: string, out: string[]): string[] => {
      if (typeof v === 'string' || typeof w === 'string') {
        if (v !== w) out.push(at);
      } else if (Array.isArray(v)) v.forEach((x, i) => changed(x, (w as unknown[])[i], `${at}[${i}]`, out));
      else if (v && typeof v === 'object') for (const k of Object.keys(v)) changed((v as Record<string, unknown>)[k], (w as Record<string, unknown>)[k], `${at}.${k}`, out);
      return out;
    };
    const walked = contentItems(content)
      .filter((i) => i.kind === 'text' || i.kind === 'actionUrl')
      .map((i) => i.path);
    expect(changed(content, merged, 'content', []).sort()).toEqual(walked.sort());
  });
});

describe('shownCardOf: cards as the phone numbers them', () => {
  it('a rich card is card 0, carousel cards keep their index, chips and other types have none', () => {
    const rich = contentItems(asContent(richCard()));
    expect(rich.filter((i) => i.kind === 'button').map((i) => shownCardOf('richCard', i))).toEqual([0, null]);
    const items = contentItems(asContent(carousel(3, { suggestions: [reply()] })));
    expect(items.filter((i) => i.kind === 'text').map((i) => shownCardOf('carousel', i))).toEqual([0, 0, 1, 1, 2, 2]);
    expect(items.filter((i) => i.kind === 'button').map((i) => shownCardOf('carousel', i))).toEqual([null]);
    expect(rich.map((i) => shownCardOf('text', i)).every((c) => c === null)).toBe(true);
  });

  it("shownCardCount: one rich card, a carousel's cards, none otherwise", () => {
    expect(shownCardCount('richCard', asContent(richCard()))).toBe(1);
    expect(shownCardCount('carousel', asContent(carousel(4)))).toBe(4);
    expect(shownCardCount('text', asContent(carousel(4)))).toBe(0);
  });
});

describe('key paths', () => {
  it('contentPath writes a request path', () => {
    expect(contentPath(['richCard', 'cardContents', 1, 'suggestions', 0, 'action', 'openUrlAction', 'url'])).toBe('content.richCard.cardContents[1].suggestions[0].action.openUrlAction.url');
    expect(contentPath([])).toBe('content');
  });

  it('valueAt reads every item back; withValueAt copies the path and shares the rest', () => {
    const content = asContent(carousel(2, { suggestions: [chipAction('openUrl')] }));
    for (const item of contentItems(content)) {
      const v = valueAt(content, item.at);
      if (item.kind === 'button' || item.kind === 'action') expect(typeof v).toBe('object');
      else expect(v).toBe(item.value);
    }
    expect(valueAt(content, ['cardContents', 9, 'title'])).toBeUndefined();
    const at = ['cardContents', 1, 'media', 'contentInfo', 'fileUrl'] as const;
    const before = JSON.stringify(content);
    const out = withValueAt(content, at, 'https://other.example/x.png');
    expect(JSON.stringify(content)).toBe(before);
    expect(valueAt(out, at)).toBe('https://other.example/x.png');
    expect(out.cardContents![0]).toBe(content.cardContents![0]);
    expect(out.suggestions).toBe(content.suggestions);
    expect({ ...out, cardContents: undefined }).toEqual({ ...content, cardContents: undefined });
  });
});

describe('hasTitleOrDescription: the one card rule', () => {
  it('needs a title or a description with text in it', () => {
    expect(hasTitleOrDescription({ title: 'T' })).toBe(true);
    expect(hasTitleOrDescription({ description: 'D' })).toBe(true);
    expect(hasTitleOrDescription({ title: ' \n', description: '' })).toBe(false);
    expect(hasTitleOrDescription({ title: 5 })).toBe(false);
    expect(hasTitleOrDescription({})).toBe(false);
  });
});
