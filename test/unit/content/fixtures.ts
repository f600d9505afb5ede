/** Valid building blocks; tests change one thing at a time. */
import type { ActionType } from '../../../src/content/vocabulary.js';

export type Json = Record<string, unknown>;

export const httpsUrlOfLength = (length: number, prefix = 'https://cdn.example.com/'): string =>
  prefix + 'a'.repeat(length - prefix.length);

export const media = (over: Json = {}): Json => ({
  height: 'MEDIUM',
  contentInfo: { fileUrl: 'https://cdn.example.com/a.jpg', contentType: 'image/jpeg' },
  ...over,
});

/** A valid action of each type, with its payload. */
export function actionOf(type: ActionType, over: Json = {}): Json {
  const base: Record<ActionType, Json> = {
    postback: { postbackData: 'pb' },
    openUrl: { openUrlAction: { url: 'https://example.com/shop' } },
    openUrlInWebview: { openUrlInWebviewAction: { url: 'https://example.com/app', viewMode: 'HALF' } },
    dial: { dialAction: { phoneNumber: '+4930123456' } },
    addToCalendar: {
      calendarAction: { startTime: '2026-05-01T10:00:00Z', endTime: '2026-05-01T11:00:00Z', title: 'Event', description: 'd' },
    },
    createCalendarEvent: {
      createCalendarEventAction: { startTime: '2026-05-01T10:00:00+02:00', endTime: '2026-05-01T11:00:00+02:00', title: 'Event' },
    },
    viewLocation: { viewLocationAction: { latLong: { latitude: 52.52, longitude: 13.4 }, label: 'Shop' } },
    shareLocation: { shareLocationAction: {} },
    unsubscribeLink: { openUrlAction: { url: '{{unsubscribe_link}}' } },
    unsubscribe: { unsubscribeAction: { stopKeyword: 'STOP' } },
  };
  return { text: 'Tap', type, ...base[type], ...over };
}

export const reply = (over: Json = {}): Json => ({ reply: { text: 'Yes', postbackData: 'yes', ...over } });
export const chipAction = (type: ActionType, over: Json = {}): Json => ({ action: actionOf(type, over) });

export const richCard = (over: Json = {}): Json => ({
  title: 'Title',
  description: 'Description',
  media: media(),
  cardActions: [actionOf('openUrl')],
  suggestions: [reply()],
  ...over,
});

export const card = (over: Json = {}): Json => ({ title: 'Card', description: 'Text', media: media(), ...over });

export const carousel = (cards: number, over: Json = {}): Json => ({
  cardContents: Array.from({ length: cards }, (_, i) => card({ title: `Card ${i}` })),
  ...over,
});

export const repeat = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
