/**
 * Our message content (spec §2.1–2.4, normalized and merged) → Google RBM `AgentMessage` JSON
 * (`contentMessage`). Pure: no I/O. The mapping table is in docs/carriers.md ("Google RBM").
 *
 * postbackData: RBM echoes a chip's postbackData when it is tapped, and that is all it echoes —
 * no reference to the message it belonged to. Where our content gives no postbackData we send a
 * reserved marker (`rcsx:<kind>`) so a tap can still be told apart (reply chip, card postback
 * button, action) and reported with `postbackData: null`; the unsubscribe chip becomes a reply
 * whose marker carries the stop keyword. decodePostback() reverses this.
 */
import type { Action, CardContent, Content, Media, Suggestion } from '../../content/schemas.js';
import { DEFAULT_CARD_ORIENTATION, DEFAULT_IMAGE_ALIGNMENT, DEFAULT_MEDIA_HEIGHT, DEFAULT_STOP_KEYWORD, DEFAULT_WEBVIEW_VIEW_MODE } from '../../content/vocabulary.js';
import { isRecord } from '../../platform/guards.js';

export interface RbmContentInfo {
  fileUrl: string;
  thumbnailUrl?: string;
  forceRefresh: boolean;
}

export interface RbmMedia {
  height: 'SHORT' | 'MEDIUM' | 'TALL';
  contentInfo: RbmContentInfo;
}

export interface RbmSuggestedReply {
  text: string;
  postbackData: string;
}

export interface RbmSuggestedAction {
  text: string;
  postbackData: string;
  openUrlAction?: { url: string; application?: 'BROWSER' | 'WEBVIEW'; webviewViewMode?: 'FULL' | 'HALF' | 'TALL'; description?: string };
  dialAction?: { phoneNumber: string };
  viewLocationAction?: { latLong?: { latitude: number; longitude: number }; label?: string; query?: string };
  createCalendarEventAction?: { startTime: string; endTime: string; title: string; description: string };
  shareLocationAction?: Record<string, never>;
}

export type RbmSuggestion = { reply: RbmSuggestedReply } | { action: RbmSuggestedAction };

export interface RbmCardContent {
  title?: string;
  description?: string;
  media?: RbmMedia;
  suggestions?: RbmSuggestion[];
}

export interface RbmRichCard {
  standaloneCard?: {
    cardOrientation: 'VERTICAL' | 'HORIZONTAL';
    thumbnailImageAlignment?: 'LEFT' | 'RIGHT';
    cardContent: RbmCardContent;
  };
  carouselCard?: { cardWidth: 'SMALL' | 'MEDIUM'; cardContents: RbmCardContent[] };
}

export interface RbmContentMessage {
  text?: string;
  richCard?: RbmRichCard;
  contentInfo?: RbmContentInfo;
  suggestions?: RbmSuggestion[];
}

export interface RbmAgentMessage {
  contentMessage: RbmContentMessage;
}

/** Carousel card width: the spec has no field for it; MEDIUM fits two lines of title and TALL media. */
export const CAROUSEL_CARD_WIDTH = 'MEDIUM' as const;

/** Marker prefix of postbackData we generate; see decodePostback. */
export const POSTBACK_MARKER = 'rcsx:';

export type PostbackKind = 'reply' | 'postback' | 'action';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The body of `POST /v1/phones/{E.164}/agentMessages` for one of our messages. */
export function toRbmAgentMessage(messageType: string, content: Record<string, unknown>): RbmAgentMessage {
  return { contentMessage: toRbmContentMessage(messageType, content) };
}

export function toRbmContentMessage(messageType: string, c: Content): RbmContentMessage {
  const chips = suggestionsOf(c.suggestions);
  const withChips = (m: RbmContentMessage): RbmContentMessage => (chips ? { ...m, suggestions: chips } : m);
  switch (messageType) {
    case 'textBasic':
      return { text: c.text ?? '' };
    case 'text':
      return withChips({ text: c.text ?? '' });
    case 'richCard': {
      const orientation = c.cardOrientation ?? DEFAULT_CARD_ORIENTATION;
      return withChips({
        richCard: {
          standaloneCard: {
            cardOrientation: orientation,
            ...(orientation === 'HORIZONTAL' ? { thumbnailImageAlignment: c.imageAlignment ?? DEFAULT_IMAGE_ALIGNMENT } : {}),
            cardContent: cardContent({ title: c.title, description: c.description, media: c.media, cardActions: c.cardActions }),
          },
        },
      });
    }
    case 'carousel':
      return withChips({
        richCard: { carouselCard: { cardWidth: CAROUSEL_CARD_WIDTH, cardContents: (c.cardContents ?? []).map((card) => cardContent(card)) } },
      });
    case 'media':
    case 'image':
    case 'video':
    case 'file':
    case 'audio': {
      const info = contentInfoOf(c);
      const caption = messageType === 'file' || messageType === 'audio' ? undefined : str(c.caption);
      // Only media messages carry chips (§2.1); with a caption the file becomes a rich card.
      const wrap = messageType === 'media' ? withChips : (m: RbmContentMessage) => m;
      if (caption !== undefined && info) {
        return wrap({
          richCard: {
            standaloneCard: {
              cardOrientation: 'VERTICAL',
              cardContent: { description: caption, media: { height: c.media?.height ?? DEFAULT_MEDIA_HEIGHT, contentInfo: info } },
            },
          },
        });
      }
      if (!info) return wrap({ text: caption ?? '' });
      return wrap({ contentInfo: info });
    }
    default:
      // An unknown type never passes validation; send its text rather than nothing.
      return withChips({ text: c.text ?? '' });
  }
}

function cardContent(card: CardContent): RbmCardContent {
  const out: RbmCardContent = {};
  if (str(card.title) !== undefined) out.title = card.title!;
  if (str(card.description) !== undefined) out.description = card.description!;
  const media = cardMedia(card.media);
  if (media) out.media = media;
  const buttons = (card.cardActions ?? []).map(actionSuggestion);
  if (buttons.length > 0) out.suggestions = buttons;
  return out;
}

function cardMedia(media: Media | undefined): RbmMedia | undefined {
  if (!isRecord(media)) return undefined;
  const info = mediaContentInfo(media);
  if (!info) return undefined;
  return { height: media.height ?? DEFAULT_MEDIA_HEIGHT, contentInfo: info };
}

function mediaContentInfo(media: Media | undefined): RbmContentInfo | undefined {
  if (!isRecord(media) || !isRecord(media.contentInfo)) return undefined;
  const fileUrl = str(media.contentInfo.fileUrl);
  if (!fileUrl) return undefined;
  const thumbnailUrl = str(media.contentInfo.thumbnailUrl) ?? str(media.thumbnailUrl);
  return { fileUrl, ...(thumbnailUrl ? { thumbnailUrl } : {}), forceRefresh: media.contentInfo.forceRefresh === true };
}

/** The file of a media/file/image/video/audio message: `url`, else `media.contentInfo`. */
function contentInfoOf(c: Content): RbmContentInfo | undefined {
  const fromMedia = mediaContentInfo(c.media);
  const url = str(c.url);
  if (url) {
    const thumbnailUrl = fromMedia?.thumbnailUrl ?? (isRecord(c.media) ? str(c.media.thumbnailUrl) : undefined);
    return { fileUrl: url, ...(thumbnailUrl ? { thumbnailUrl } : {}), forceRefresh: fromMedia?.forceRefresh ?? false };
  }
  return fromMedia;
}

function suggestionsOf(chips: Suggestion[] | undefined): RbmSuggestion[] | undefined {
  if (!Array.isArray(chips) || chips.length === 0) return undefined;
  return chips.map((chip) => {
    if (isRecord(chip.reply)) return { reply: { text: chip.reply.text, postbackData: encodePostback(chip.reply.postbackData, 'reply') } };
    return actionSuggestion(chip.action!);
  });
}

/** One card button or action chip. */
function actionSuggestion(a: Action): RbmSuggestion {
  const text = a.text;
  const postbackData = encodePostback(a.postbackData, a.type === 'postback' ? 'postback' : a.type);
  switch (a.type) {
    case 'postback':
      // RBM has no postback button: a suggested reply on the card does the job.
      return { reply: { text, postbackData } };
    case 'unsubscribe': {
      const keyword = str(a.unsubscribeAction?.stopKeyword) ?? DEFAULT_STOP_KEYWORD;
      return { reply: { text, postbackData: `${POSTBACK_MARKER}unsubscribe:${keyword}` } };
    }
    case 'openUrl':
    case 'unsubscribeLink':
      return { action: { text, postbackData, openUrlAction: { url: a.openUrlAction?.url ?? '' } } };
    case 'openUrlInWebview': {
      const w = a.openUrlInWebviewAction;
      return {
        action: {
          text,
          postbackData,
          openUrlAction: {
            url: w?.url ?? '',
            application: 'WEBVIEW',
            webviewViewMode: w?.viewMode ?? DEFAULT_WEBVIEW_VIEW_MODE,
            ...(str(w?.description) ? { description: w!.description! } : {}),
          },
        },
      };
    }
    case 'dial':
      return { action: { text, postbackData, dialAction: { phoneNumber: a.dialAction?.phoneNumber ?? '' } } };
    case 'addToCalendar':
    case 'createCalendarEvent': {
      const ev = a.type === 'addToCalendar' ? a.calendarAction : a.createCalendarEventAction;
      const title = ev?.title ?? text;
      return {
        action: {
          text,
          postbackData,
          // RBM requires a description; the title stands in when none was given.
          createCalendarEventAction: { startTime: ev?.startTime ?? '', endTime: ev?.endTime ?? '', title, description: str(ev?.description) ?? title },
        },
      };
    }
    case 'viewLocation': {
      const v = a.viewLocationAction as { latLong?: { latitude: number; longitude: number }; label?: string; query?: string } | undefined;
      const label = str(v?.label);
      const query = str(v?.query);
      const loc: NonNullable<RbmSuggestedAction['viewLocationAction']> = v?.latLong
        ? { latLong: { latitude: v.latLong.latitude, longitude: v.latLong.longitude }, ...(label ? { label } : {}) }
        : { query: query ?? label ?? '' };
      return { action: { text, postbackData, viewLocationAction: loc } };
    }
    case 'shareLocation':
      return { action: { text, postbackData, shareLocationAction: {} } };
    default:
      return { reply: { text, postbackData } };
  }
}

/** Our postbackData as sent to RBM: the caller's own, or a marker naming the kind of button. */
export function encodePostback(own: string | undefined, kind: string): string {
  if (own !== undefined && own !== '') return own.startsWith(POSTBACK_MARKER) ? `${POSTBACK_MARKER}raw:${own}` : own;
  return `${POSTBACK_MARKER}${kind}`;
}

export interface DecodedPostback {
  /** The postbackData our content carried; null when it had none. */
  postbackData: string | null;
  /** What was tapped, when the marker says so. */
  kind: PostbackKind | null;
  /** Set for the unsubscribe chip: the stop keyword it stands for. */
  unsubscribeKeyword: string | null;
}

export function decodePostback(data: string | undefined | null): DecodedPostback {
  if (data === undefined || data === null || data === '') return { postbackData: null, kind: null, unsubscribeKeyword: null };
  if (!data.startsWith(POSTBACK_MARKER)) return { postbackData: data, kind: null, unsubscribeKeyword: null };
  const rest = data.slice(POSTBACK_MARKER.length);
  if (rest.startsWith('raw:')) return { postbackData: rest.slice(4), kind: null, unsubscribeKeyword: null };
  if (rest.startsWith('unsubscribe:')) return { postbackData: null, kind: 'action', unsubscribeKeyword: rest.slice('unsubscribe:'.length) || DEFAULT_STOP_KEYWORD };
  if (rest === 'reply') return { postbackData: null, kind: 'reply', unsubscribeKeyword: null };
  if (rest === 'postback') return { postbackData: null, kind: 'postback', unsubscribeKeyword: null };
  return { postbackData: null, kind: 'action', unsubscribeKeyword: null };
}
