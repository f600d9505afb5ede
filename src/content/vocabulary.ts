/** The closed value sets of §2.1–2.3, shared by the zod schemas, the validator and the guidelines. */

export const MESSAGE_TYPES = [
  'text',
  'textBasic',
  'richCard',
  'carousel',
  'media',
  'file',
  'image',
  'video',
  'audio',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const ACTION_TYPES = [
  'postback',
  'openUrl',
  'openUrlInWebview',
  'dial',
  'addToCalendar',
  'createCalendarEvent',
  'viewLocation',
  'shareLocation',
  'unsubscribeLink',
  'unsubscribe',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const CARD_ORIENTATIONS = ['VERTICAL', 'HORIZONTAL'] as const;
export const IMAGE_ALIGNMENTS = ['LEFT', 'RIGHT'] as const;
export const MEDIA_HEIGHTS = ['SHORT', 'MEDIUM', 'TALL'] as const;
export const WEBVIEW_VIEW_MODES = ['FULL', 'TALL', 'HALF'] as const;
export const MEDIA_CONTENT_TYPES = [
  'image/jpeg',
  'image/jpg',
  'image/png',
  'image/gif',
  'video/h263',
  'video/mp4',
  'video/mpeg',
  'video/webm',
] as const;

export type CardOrientation = (typeof CARD_ORIENTATIONS)[number];
export type ImageAlignment = (typeof IMAGE_ALIGNMENTS)[number];
export type MediaHeight = (typeof MEDIA_HEIGHTS)[number];
export type WebviewViewMode = (typeof WEBVIEW_VIEW_MODES)[number];
export type MediaContentType = (typeof MEDIA_CONTENT_TYPES)[number];

export const DEFAULT_CARD_ORIENTATION: CardOrientation = 'VERTICAL';
export const DEFAULT_IMAGE_ALIGNMENT: ImageAlignment = 'RIGHT';
export const DEFAULT_MEDIA_HEIGHT: MediaHeight = 'TALL';
export const DEFAULT_WEBVIEW_VIEW_MODE: WebviewViewMode = 'FULL';
export const DEFAULT_STOP_KEYWORD = 'STOP';

/** §2.3 rule 1: on chips a reply with postbackData does the job of a postback. */
export const CARD_BUTTON_ONLY_ACTION_TYPES = ['postback', 'addToCalendar'] as const satisfies readonly ActionType[];
/** §2.3 rule 2. */
export const CHIP_ONLY_ACTION_TYPES = ['createCalendarEvent', 'unsubscribe'] as const satisfies readonly ActionType[];

export type ActionPlacement = 'cardButton' | 'chip';

export function actionAllowedOn(type: ActionType, placement: ActionPlacement): boolean {
  const excluded: readonly ActionType[] = placement === 'chip' ? CARD_BUTTON_ONLY_ACTION_TYPES : CHIP_ONLY_ACTION_TYPES;
  return !excluded.includes(type);
}

export const ACTION_PAYLOAD_FIELDS = [
  'openUrlAction',
  'openUrlInWebviewAction',
  'dialAction',
  'calendarAction',
  'createCalendarEventAction',
  'viewLocationAction',
  'shareLocationAction',
  'unsubscribeAction',
] as const;
export type ActionPayloadField = (typeof ACTION_PAYLOAD_FIELDS)[number];

/** The payload object each action type must carry (null: none needed). */
export const ACTION_PAYLOAD_FIELD: Readonly<Record<ActionType, ActionPayloadField | null>> = {
  postback: null,
  openUrl: 'openUrlAction',
  openUrlInWebview: 'openUrlInWebviewAction',
  dial: 'dialAction',
  addToCalendar: 'calendarAction',
  createCalendarEvent: 'createCalendarEventAction',
  viewLocation: 'viewLocationAction',
  shareLocation: 'shareLocationAction',
  unsubscribeLink: 'openUrlAction',
  unsubscribe: 'unsubscribeAction',
};

/** Payload fields that must be present for the type (shareLocation and unsubscribe have defaults). */
export const ACTION_REQUIRED_FIELDS: Readonly<Record<ActionType, readonly string[]>> = {
  postback: [],
  openUrl: ['openUrlAction.url'],
  openUrlInWebview: ['openUrlInWebviewAction.url'],
  dial: ['dialAction.phoneNumber'],
  addToCalendar: ['calendarAction.startTime', 'calendarAction.endTime', 'calendarAction.title'],
  createCalendarEvent: [
    'createCalendarEventAction.startTime',
    'createCalendarEventAction.endTime',
    'createCalendarEventAction.title',
  ],
  viewLocation: ['viewLocationAction.latLong.latitude', 'viewLocationAction.latLong.longitude'],
  shareLocation: [],
  unsubscribeLink: ['openUrlAction.url'],
  unsubscribe: [],
};

export const CONTENT_FIELDS = [
  'text',
  'url',
  'caption',
  'title',
  'description',
  'cardOrientation',
  'imageAlignment',
  'media',
  'cardActions',
  'cardContents',
  'suggestions',
] as const;
export type ContentField = (typeof CONTENT_FIELDS)[number];

/** §2.1 table: the content fields each message type uses; anything else is ignored and dropped. */
export const CONTENT_FIELDS_BY_TYPE: Readonly<Record<MessageType, readonly ContentField[]>> = {
  text: ['text', 'suggestions'],
  textBasic: ['text'],
  richCard: ['title', 'description', 'media', 'cardActions', 'suggestions', 'cardOrientation', 'imageAlignment'],
  carousel: ['cardContents', 'suggestions'],
  media: ['url', 'caption', 'media', 'suggestions'],
  file: ['url', 'media'],
  image: ['url', 'media', 'caption'],
  video: ['url', 'media', 'caption'],
  audio: ['url', 'media'],
};

export const isMessageType = (v: unknown): v is MessageType =>
  typeof v === 'string' && (MESSAGE_TYPES as readonly string[]).includes(v);
export const isActionType = (v: unknown): v is ActionType =>
  typeof v === 'string' && (ACTION_TYPES as readonly string[]).includes(v);
