/**
 * One valid content per message type and per card/chip/action shape of spec §2.1–2.4, used by the
 * RBM translation snapshots and the fake-RBM end-to-end test. The unsubscribe link is the placeholder
 * (merged per recipient at send time; `merged()` stands in for that in pure tests).
 */
export const IMG = 'https://cdn.example.com/img/hero.jpg';
export const THUMB = 'https://cdn.example.com/img/hero-thumb.jpg';
export const VID = 'https://cdn.example.com/video/clip.mp4';

const CAL = { startTime: '2030-05-01T18:00:00Z', endTime: '2030-05-01T20:00:00Z', title: 'Launch party', description: 'Rooftop, bring a friend' };

/** Every chip kind: reply (with and without postbackData) and every chip-capable action type. */
export const ALL_CHIPS = [
  { reply: { text: 'Yes please', postbackData: 'answer=yes' } },
  { reply: { text: 'No thanks' } },
  { action: { text: 'Visit site', type: 'openUrl', openUrlAction: { url: 'https://example.com/offer' } } },
  { action: { text: 'Open in app', type: 'openUrlInWebview', postbackData: 'webview', openUrlInWebviewAction: { url: 'https://example.com/checkout', description: 'Checkout', viewMode: 'HALF' } } },
  { action: { text: 'Call us', type: 'dial', dialAction: { phoneNumber: '+4930123456' } } },
  { action: { text: 'Find us', type: 'viewLocation', viewLocationAction: { latLong: { latitude: 52.52, longitude: 13.405 }, label: 'Berlin store' } } },
  { action: { text: 'Save the date', type: 'createCalendarEvent', createCalendarEventAction: CAL } },
  { action: { text: 'Share location', type: 'shareLocation', shareLocationAction: {} } },
  { action: { text: 'Unsubscribe', type: 'unsubscribe', unsubscribeAction: { stopKeyword: 'STOP' } } },
  { action: { text: 'Opt out', type: 'unsubscribeLink', openUrlAction: { url: '{{unsubscribe_link}}' } } },
];

/** Every card-button kind: postback (with and without data), addToCalendar and shared types. */
export const CARD_BUTTONS = [
  { text: 'Buy now', type: 'postback', postbackData: 'buy:sku-42' },
  { text: 'Details', type: 'postback' },
  { text: 'Add to calendar', type: 'addToCalendar', calendarAction: { startTime: CAL.startTime, endTime: CAL.endTime, title: 'Sale ends' } },
  { text: 'Webview', type: 'openUrlInWebview', openUrlInWebviewAction: { url: 'https://example.com/w' } },
];

export const CONTENT_CASES: Array<{ name: string; messageType: string; content: Record<string, unknown> }> = [
  { name: 'text-all-chips', messageType: 'text', content: { text: 'Hello Ada, our spring sale starts today!', suggestions: ALL_CHIPS } },
  { name: 'textBasic', messageType: 'textBasic', content: { text: 'Your code is 123456' } },
  {
    name: 'richCard-vertical',
    messageType: 'richCard',
    content: {
      title: 'Spring sale',
      description: 'Up to 50% off everything.',
      media: { height: 'MEDIUM', contentInfo: { fileUrl: IMG, contentType: 'image/jpeg', thumbnailUrl: THUMB, forceRefresh: true } },
      cardActions: CARD_BUTTONS,
      suggestions: [{ reply: { text: 'Later', postbackData: 'later' } }],
    },
  },
  {
    name: 'richCard-horizontal-left',
    messageType: 'richCard',
    content: { title: 'Side by side', cardOrientation: 'HORIZONTAL', imageAlignment: 'LEFT', media: { height: 'SHORT', contentInfo: { fileUrl: IMG } } },
  },
  { name: 'richCard-no-media-defaults', messageType: 'richCard', content: { description: 'Only a description' } },
  {
    name: 'carousel',
    messageType: 'carousel',
    content: {
      cardContents: [
        { title: 'Red', description: 'The red one', media: { height: 'TALL', contentInfo: { fileUrl: IMG } }, cardActions: [CARD_BUTTONS[0]] },
        { title: 'Blue', media: { contentInfo: { fileUrl: VID, thumbnailUrl: THUMB } }, cardActions: [{ text: 'Call', type: 'dial', dialAction: { phoneNumber: '+4930123456' } }] },
        { description: 'Green, no media' },
      ],
      suggestions: [{ reply: { text: 'More colours' } }],
    },
  },
  { name: 'media-url-caption', messageType: 'media', content: { url: IMG, caption: 'Our new store', suggestions: [{ reply: { text: 'Nice' } }] } },
  { name: 'media-object', messageType: 'media', content: { media: { height: 'TALL', thumbnailUrl: THUMB, contentInfo: { fileUrl: VID, contentType: 'video/mp4' } } } },
  { name: 'file', messageType: 'file', content: { url: 'https://cdn.example.com/docs/terms.pdf' } },
  { name: 'image', messageType: 'image', content: { url: IMG } },
  { name: 'image-caption', messageType: 'image', content: { url: IMG, caption: 'Look at this' } },
  { name: 'video-caption', messageType: 'video', content: { media: { contentInfo: { fileUrl: VID, thumbnailUrl: THUMB } }, caption: 'Watch the clip' } },
  { name: 'audio', messageType: 'audio', content: { url: 'https://cdn.example.com/audio/jingle.mp4' } },
];

/** The link the unsubscribe placeholder becomes in pure tests. */
export const UNSUBSCRIBE_URL = 'https://rcs.example.com/u/tok123';

/** What merging does to the placeholder, for tests that skip the engine. */
export function merged(content: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(content).replaceAll('{{unsubscribe_link}}', UNSUBSCRIBE_URL)) as Record<string, unknown>;
}
