import { describe, expect, it } from 'vitest';
import { normalizeContent, validateContent, type MessageType } from '../../src/content/index.js';
import { decodePostback, encodePostback, toRbmAgentMessage } from '../../src/carriers/rbm/translate.js';
import { CONTENT_CASES, merged } from './fixtures.js';

/** What the dispatcher hands the carrier: validated, normalized, merged content. */
function prepared(messageType: string, content: Record<string, unknown>): Record<string, unknown> {
  const v = validateContent(messageType, content);
  expect(v.errors, `${messageType} fixture must be valid`).toEqual([]);
  return merged(normalizeContent(messageType as MessageType, content));
}

describe('RBM translation', () => {
  it.each(CONTENT_CASES)('$name → contentMessage (snapshot)', async ({ name, messageType, content }) => {
    const body = toRbmAgentMessage(messageType, prepared(messageType, content));
    await expect(`${JSON.stringify(body, null, 2)}\n`).toMatchFileSnapshot(`./__snapshots__/rbm/${name}.json`);
  });

  it('maps every chip kind to the RBM suggestion it stands for', () => {
    const text = CONTENT_CASES.find((c) => c.name === 'text-all-chips')!;
    const { contentMessage } = toRbmAgentMessage('text', prepared(text.messageType, text.content));
    const s = contentMessage.suggestions!;
    expect(s).toHaveLength(10);
    expect(s[0]).toEqual({ reply: { text: 'Yes please', postbackData: 'answer=yes' } });
    expect(s[1]).toEqual({ reply: { text: 'No thanks', postbackData: 'rcsx:reply' } });
    expect(s[2]).toMatchObject({ action: { openUrlAction: { url: 'https://example.com/offer' } } });
    expect(s[3]).toMatchObject({ action: { postbackData: 'webview', openUrlAction: { application: 'WEBVIEW', webviewViewMode: 'HALF', description: 'Checkout' } } });
    expect(s[4]).toMatchObject({ action: { dialAction: { phoneNumber: '+4930123456' } } });
    expect(s[5]).toMatchObject({ action: { viewLocationAction: { latLong: { latitude: 52.52, longitude: 13.405 }, label: 'Berlin store' } } });
    expect(s[6]).toMatchObject({ action: { createCalendarEventAction: { title: 'Launch party', description: 'Rooftop, bring a friend' } } });
    expect(s[7]).toMatchObject({ action: { shareLocationAction: {} } });
    expect(s[8]).toEqual({ reply: { text: 'Unsubscribe', postbackData: 'rcsx:unsubscribe:STOP' } });
    expect(s[9]).toMatchObject({ action: { openUrlAction: { url: 'https://rcs.example.com/u/tok123' } } });
  });

  it('writes card layout, media height and card buttons', () => {
    const card = CONTENT_CASES.find((c) => c.name === 'richCard-vertical')!;
    const { contentMessage } = toRbmAgentMessage('richCard', prepared('richCard', card.content));
    const sc = contentMessage.richCard!.standaloneCard!;
    expect(sc.cardOrientation).toBe('VERTICAL');
    expect(sc.thumbnailImageAlignment).toBeUndefined();
    expect(sc.cardContent.media).toEqual({ height: 'MEDIUM', contentInfo: { fileUrl: expect.any(String), thumbnailUrl: expect.any(String), forceRefresh: true } });
    expect(sc.cardContent.suggestions![0]).toEqual({ reply: { text: 'Buy now', postbackData: 'buy:sku-42' } });
    expect(sc.cardContent.suggestions![1]).toEqual({ reply: { text: 'Details', postbackData: 'rcsx:postback' } });
    // addToCalendar without a description: the title stands in (RBM requires one).
    expect(sc.cardContent.suggestions![2]).toMatchObject({ action: { createCalendarEventAction: { title: 'Sale ends', description: 'Sale ends' } } });
    expect(contentMessage.suggestions).toEqual([{ reply: { text: 'Later', postbackData: 'later' } }]);

    const horizontal = CONTENT_CASES.find((c) => c.name === 'richCard-horizontal-left')!;
    const h = toRbmAgentMessage('richCard', prepared('richCard', horizontal.content)).contentMessage.richCard!.standaloneCard!;
    expect(h).toMatchObject({ cardOrientation: 'HORIZONTAL', thumbnailImageAlignment: 'LEFT', cardContent: { media: { height: 'SHORT' } } });
  });

  it('sends a carousel with MEDIUM card width and TALL as the default media height', () => {
    const c = CONTENT_CASES.find((x) => x.name === 'carousel')!;
    const card = toRbmAgentMessage('carousel', prepared('carousel', c.content)).contentMessage.richCard!.carouselCard!;
    expect(card.cardWidth).toBe('MEDIUM');
    expect(card.cardContents).toHaveLength(3);
    expect(card.cardContents[1]!.media!.height).toBe('TALL');
    expect(card.cardContents[2]!.media).toBeUndefined();
  });

  it('sends media with a caption as a rich card and without one as contentInfo', () => {
    const withCaption = toRbmAgentMessage('image', prepared('image', { url: 'https://cdn.example.com/a.png', caption: 'Hi' })).contentMessage;
    expect(withCaption.richCard!.standaloneCard!.cardContent).toEqual({ description: 'Hi', media: { height: 'TALL', contentInfo: { fileUrl: 'https://cdn.example.com/a.png', forceRefresh: false } } });
    const bare = toRbmAgentMessage('file', prepared('file', { url: 'https://cdn.example.com/a.pdf' })).contentMessage;
    expect(bare).toEqual({ contentInfo: { fileUrl: 'https://cdn.example.com/a.pdf', forceRefresh: false } });
  });

  it('round-trips postbackData markers', () => {
    expect(decodePostback(encodePostback('x=1', 'reply'))).toEqual({ postbackData: 'x=1', kind: null, unsubscribeKeyword: null });
    expect(decodePostback(encodePostback(undefined, 'reply'))).toEqual({ postbackData: null, kind: 'reply', unsubscribeKeyword: null });
    expect(decodePostback(encodePostback(undefined, 'postback'))).toEqual({ postbackData: null, kind: 'postback', unsubscribeKeyword: null });
    expect(decodePostback(encodePostback(undefined, 'dial'))).toEqual({ postbackData: null, kind: 'action', unsubscribeKeyword: null });
    expect(decodePostback(encodePostback('rcsx:looks-like-ours', 'reply'))).toEqual({ postbackData: 'rcsx:looks-like-ours', kind: null, unsubscribeKeyword: null });
    expect(decodePostback('rcsx:unsubscribe:HALT')).toEqual({ postbackData: null, kind: 'action', unsubscribeKeyword: 'HALT' });
  });
});
