/**
 * The one description of message content (§2.1–2.5, §8): these zod schemas are the types, the
 * JSON Schema of the MCP tools and OpenAPI, and the validator. Shape rules (types, lengths,
 * enums, unknown keys) are plain zod; rules across fields (a chip has exactly one of reply or
 * action, the payload matches the action type, placement, what each messageType needs) are
 * refinements beside the shape they constrain, so JSON Schema stays a plain object tree while
 * every door reports the same issues. Broken strings (too long, blank, bad URL) do not stop the
 * rules around them, so a caller gets those problems together; a wrong type or an unknown key
 * does (zod's default), since a rule across fields means little until the fields have their
 * types. Refinements still read their value defensively. The schemas are compiled (`z.compile`)
 * where they are parsed in bulk; reusable parts carry stable ids (`.meta({ id })`) so a JSON
 * Schema built from several of them holds each once under `$defs`.
 *
 * Issues are turned into `{path, code, message}` by ./zod-issues.ts; a custom issue names its
 * stable code in `params.code` and may write `$field` for the field's name. Warnings (legal but
 * probably unintended) are not schema rules; they live in ./warnings.ts.
 */
import { z } from 'zod';
import { containsUnsubscribePlaceholder, isUnsubscribePlaceholder, placeholderPattern, startsWithPlaceholder } from '../merge/placeholders.js';
import { isRecord } from '../platform/guards.js';
import { findForbiddenCharacter, forbiddenCharacterMessage } from './characters.js';
import { bidiControls, invisibleCharacters, urlHasHiddenCharacters } from './text-risks.js';
import { hasTitleOrDescription } from './title-or-description.js';
import type { ContentErrorCode } from './issues.js';
import {
  ACTION_TEXT_MAX_LENGTH,
  CAPTION_MAX_LENGTH,
  CARD_ACTIONS_MAX,
  CAROUSEL_MAX_CARDS,
  CAROUSEL_MIN_CARDS,
  DESCRIPTION_MAX_LENGTH,
  POSTBACK_DATA_MAX_LENGTH,
  SMS_MAX_LENGTH,
  SUGGESTIONS_MAX,
  TEXT_BASIC_MAX_LENGTH,
  TEXT_MAX_LENGTH,
  TITLE_MAX_LENGTH,
  URL_MAX_LENGTH,
} from './limits.js';
import {
  ACTION_PAYLOAD_FIELD,
  ACTION_TYPES,
  CARD_ORIENTATIONS,
  IMAGE_ALIGNMENTS,
  MEDIA_CONTENT_TYPES,
  MEDIA_HEIGHTS,
  MESSAGE_TYPES,
  WEBVIEW_VIEW_MODES,
  actionAllowedOn,
  isActionType,
  isMessageType,
  type ActionType,
} from './vocabulary.js';

// ---------------------------------------------------------------------------------------------
// Refinement helpers

type Ctx = z.core.$RefinementCtx<unknown>;

function fail(ctx: Ctx, code: ContentErrorCode, message: string, path: PropertyKey[] = []): void {
  ctx.addIssue({ code: 'custom', message, path, params: { code }, input: ctx.value, continue: true });
}

function tryUrl(s: string): URL | null {
  try {
    return new URL(s);
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Strings

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/;
const LOOSE_PHONE = /^\+?\d{3,20}$/;
const PHONE_PUNCTUATION = /[\s\-().]/g;

/** Milliseconds of an RFC 3339 date-time with Z or offset, or NaN. */
export function rfc3339Millis(s: string): number {
  return RFC3339.test(s) ? Date.parse(s) : Number.NaN;
}

/** Digits with an optional leading + once spaces, dashes, dots and brackets are removed, or null. */
export function loosePhone(s: string): string | null {
  const compact = s.replace(PHONE_PUNCTUATION, '');
  return LOOSE_PHONE.test(compact) ? compact : null;
}

type Payload = z.core.ParsePayload<string>;

/** A module-level function, not a closure per call: content holds many strings. */
function report(payload: Payload, code: ContentErrorCode, message: string): void {
  payload.issues.push({ code: 'custom', message, input: payload.value, path: [], params: { code }, continue: true });
}

interface TextRule {
  /** At most this many UTF-16 code units (§8 counts JavaScript string length; an emoji is 2). */
  max?: number;
  /** `''` and whitespace-only are `empty` (labels and texts, not payload data). */
  nonBlank?: boolean;
  /** The rule of this kind of string, for a value that is not blank and not too long. */
  kind?: (s: string, payload: Payload) => void;
  format?: 'uri' | 'date-time';
}

/**
 * A content string: one zod check per string holds all its rules, because content carries many
 * strings and validation has a throughput bar (DESIGN §8). JSON Schema gets minLength/maxLength
 * and format as metadata (zod's own `.max()` counts code points, not the units §8 counts).
 * Every string ends up at the carrier, so the forbidden characters are checked on all of them.
 */
function text(rule: TextRule): z.ZodString {
  const { max, nonBlank, kind } = rule;
  const schema = z.string().check((payload) => {
    const s = payload.value;
    if (nonBlank && s.trim() === '') {
      report(payload, 'empty', s === '' ? '$field must not be empty.' : '$field must not be blank.');
      return;
    }
    const tooLong = max !== undefined && s.length > max;
    if (tooLong) report(payload, 'too_long', `$field must be at most ${max} characters (got ${s.length}).`);
    const bad = findForbiddenCharacter(s);
    if (bad) report(payload, 'invalid_character', forbiddenCharacterMessage('$field', bad));
    if (kind && !tooLong && s.trim() !== '') kind(s, payload);
  });
  const meta: Record<string, unknown> = {};
  if (nonBlank) meta.minLength = 1;
  if (max !== undefined) meta.maxLength = max;
  if (rule.format) meta.format = rule.format;
  return Object.keys(meta).length > 0 ? schema.meta(meta) : schema;
}

/** Bidi controls and invisible characters have no place in a link: refused, not warned (text-risks.ts). */
function hiddenInUrl(s: string, payload: Payload): boolean {
  if (!urlHasHiddenCharacters(s)) return false;
  report(payload, 'invalid_character', `$field holds a text-direction control or an invisible character (${[...bidiControls(s), ...invisibleCharacters(s)].join(', ')}): a link must read as it goes.`);
  return true;
}

function httpOrHttps(s: string): URL | null {
  const url = tryUrl(s);
  return url && url.hostname !== '' && (url.protocol === 'https:' || url.protocol === 'http:') ? url : null;
}

/** Media URLs go to the carrier as written: absolute HTTPS, no placeholders (nothing merges them). */
const MEDIA_URL: TextRule = {
  max: URL_MAX_LENGTH,
  nonBlank: true,
  format: 'uri',
  kind: (s, payload) => {
    if (s.includes('{{')) {
      report(payload, 'placeholder_not_allowed', 'Merge placeholders are not replaced in media URLs; give the direct URL of the file.');
      return;
    }
    if (hiddenInUrl(s, payload)) return;
    const url = tryUrl(s);
    if (!url || url.hostname === '') report(payload, 'invalid_url', '$field must be an absolute HTTPS URL.');
    else if (url.protocol !== 'https:') report(payload, 'https_required', `$field must use HTTPS (got ${url.protocol.slice(0, -1)}).`);
  },
};
const mediaUrl = (what: string) =>
  text(MEDIA_URL).describe(`${what}. HTTPS, at most ${URL_MAX_LENGTH} characters; merge placeholders are not replaced here.`);

/**
 * Button and chip URLs: merge placeholders allowed (a leading one supplies scheme and host, so
 * only the merged result can be checked, per recipient); http is accepted with a warning.
 */
const buttonUrl = (what: string) =>
  text({
    max: URL_MAX_LENGTH,
    nonBlank: true,
    kind: (s, payload) => {
      if (hiddenInUrl(s, payload) || startsWithPlaceholder(s)) return;
      if (!httpOrHttps(s.includes('{{') ? s.replace(placeholderPattern(), 'x') : s)) {
        report(payload, 'invalid_url', '$field must be an absolute http(s) URL or start with a merge placeholder.');
      }
    },
  }).describe(`${what}. http(s) URL, at most ${URL_MAX_LENGTH} characters; may contain merge placeholders such as {{contact_first_name}}.`);

/**
 * A button or chip URL after merging, for one recipient: the placeholders are gone, so the whole
 * URL is checked — a leading placeholder may not smuggle in another scheme or an empty host.
 */
export const MergedButtonUrlSchema = text({
  max: URL_MAX_LENGTH,
  nonBlank: true,
  kind: (s, payload) => {
    if (hiddenInUrl(s, payload)) return;
    if (httpOrHttps(s)) return;
    const url = tryUrl(s);
    report(payload, 'invalid_url', `$field must be an absolute http(s) URL after merge fields are filled in (got ${url ? `a ${url.protocol.slice(0, -1)} URL` : 'no URL'}).`);
  },
});

const webhookUrl = text({
  max: URL_MAX_LENGTH,
  nonBlank: true,
  format: 'uri',
  kind: (s, payload) => {
    if (hiddenInUrl(s, payload)) return;
    if (!httpOrHttps(s)) report(payload, 'invalid_url', 'webhookUrl must be an absolute http(s) URL.');
  },
});

const dateTime = (what: string) =>
  text({
    format: 'date-time',
    kind: (s, payload) => {
      if (Number.isNaN(rfc3339Millis(s))) report(payload, 'invalid_datetime', '$field must be an RFC 3339 date-time with Z or an offset, e.g. 2026-05-01T18:00:00+02:00.');
    },
  }).describe(`${what} (RFC 3339 date-time with Z or offset).`);

// ---------------------------------------------------------------------------------------------
// Vocabulary

export const MessageTypeSchema = z.enum(MESSAGE_TYPES).describe('Kind of RCS message; decides which content fields are used.');
export const ActionTypeSchema = z.enum(ACTION_TYPES).describe('What the button or chip does when tapped; carry the matching payload object.');
export const CardOrientationSchema = z.enum(CARD_ORIENTATIONS).describe('Card layout; default VERTICAL.');
export const ImageAlignmentSchema = z.enum(IMAGE_ALIGNMENTS).describe('Image side on HORIZONTAL cards; default RIGHT.');
export const MediaHeightSchema = z.enum(MEDIA_HEIGHTS).describe('Media height on a card; TALL is applied when omitted.');
export const MediaContentTypeSchema = z
  .enum(MEDIA_CONTENT_TYPES)
  .describe('MIME type of the media file; for file and audio messages omit it (the type is taken from the file).');
export const WebviewViewModeSchema = z.enum(WEBVIEW_VIEW_MODES).describe('Webview size; default FULL.');

// ---------------------------------------------------------------------------------------------
// Media

export const ContentInfoSchema = z
  .strictObject({
    fileUrl: mediaUrl('Direct URL of the media file').optional(),
    contentType: MediaContentTypeSchema.optional(),
    thumbnailUrl: mediaUrl('Image shown while the media loads').optional(),
    forceRefresh: z.boolean().optional().describe('Fetch the file again instead of using a cached copy; default false.'),
  })
  .meta({ id: 'ContentInfo' })
  .describe('The media file. Without fileUrl, media on a rich card or carousel card is dropped with a warning.');

export const MediaSchema = z
  .strictObject({
    height: MediaHeightSchema.optional(),
    contentInfo: ContentInfoSchema.optional(),
    thumbnailUrl: mediaUrl('Placeholder image URL (also accepted beside contentInfo)').optional(),
  })
  .meta({ id: 'Media' })
  .describe('Media of a card or media message (§2.2): contentInfo.fileUrl is the file; required for media messages. Maximum media size 100 MB.');

// ---------------------------------------------------------------------------------------------
// Action payloads

const calendarShape = {
  startTime: dateTime('Start of the event'),
  endTime: dateTime('End of the event; after startTime'),
  title: text({ nonBlank: true }).describe('Title of the event.'),
  description: text({}).optional().describe('Description of the event.'),
};

function endAfterStart(v: unknown, ctx: Ctx): void {
  if (!isRecord(v) || typeof v.startTime !== 'string' || typeof v.endTime !== 'string') return;
  const start = rfc3339Millis(v.startTime);
  const end = rfc3339Millis(v.endTime);
  if (!Number.isNaN(start) && !Number.isNaN(end) && end <= start) fail(ctx, 'end_before_start', 'endTime must be after startTime.', ['endTime']);
}

export const OpenUrlActionSchema = z
  .strictObject({ url: buttonUrl('URL to open') })
  .meta({ id: 'OpenUrlAction' })
  .describe('Payload of openUrl and unsubscribeLink (for unsubscribeLink the url is exactly {{unsubscribe_link}}).');
export const OpenUrlInWebviewActionSchema = z
  .strictObject({
    url: buttonUrl('URL to open in the webview (HTTPS recommended)'),
    description: text({}).optional().describe('Accessibility description of the webview.'),
    viewMode: WebviewViewModeSchema.optional(),
  })
  .meta({ id: 'OpenUrlInWebviewAction' })
  .describe('Payload of openUrlInWebview.');
export const DialActionSchema = z
  .strictObject({
    phoneNumber: text({
      nonBlank: true,
      kind: (s, payload) => {
        if (loosePhone(s) === null) report(payload, 'invalid_phone', 'phoneNumber must be a phone number (digits, optional leading +), e.g. +4915112345678.');
      },
    }).describe('Number to call, E.164 recommended (+4915112345678).'),
  })
  .meta({ id: 'DialAction' })
  .describe('Payload of dial.');
export const CalendarActionSchema = z
  .strictObject(calendarShape)
  .superRefine(endAfterStart)
  .meta({ id: 'CalendarAction' })
  .describe('Payload of addToCalendar (card buttons only).');
export const CreateCalendarEventActionSchema = z
  .strictObject(calendarShape)
  .superRefine(endAfterStart)
  .meta({ id: 'CreateCalendarEventAction' })
  .describe('Payload of createCalendarEvent (chips only).');
export const LatLongSchema = z
  .strictObject({
    latitude: z.number().min(-90).max(90).describe('Degrees, -90 to 90.'),
    longitude: z.number().min(-180).max(180).describe('Degrees, -180 to 180.'),
  })
  .describe('A point on the map.');
export const ViewLocationActionSchema = z
  .strictObject({ latLong: LatLongSchema, label: text({}).optional().describe('Label of the pin.') })
  .meta({ id: 'ViewLocationAction' })
  .describe('Payload of viewLocation.');
export const ShareLocationActionSchema = z.strictObject({}).describe('Payload of shareLocation: an empty object.');
export const UnsubscribeActionSchema = z
  .strictObject({
    stopKeyword: text({ nonBlank: true })
      .optional()
      .describe("Keyword sent when tapped; default STOP; corrected at preview time to the sender's active trigger."),
  })
  .describe('Payload of unsubscribe (chips only).');

const PAYLOAD_SHAPES: Readonly<Record<ActionType, string>> = {
  postback: '',
  openUrl: '{url}',
  unsubscribeLink: '{url: "{{unsubscribe_link}}"}',
  openUrlInWebview: '{url, description, viewMode}',
  dial: '{phoneNumber}',
  addToCalendar: '{startTime, endTime, title, description}',
  createCalendarEvent: '{startTime, endTime, title, description}',
  viewLocation: '{latLong: {latitude, longitude}, label}',
  shareLocation: '{}',
  unsubscribe: '{stopKeyword}',
};
/** shareLocation and unsubscribe have defaults; every other type with a payload needs it. */
const PAYLOAD_OPTIONAL: ReadonlySet<ActionType> = new Set(['shareLocation', 'unsubscribe']);

/** The payload matches the type; unsubscribe links go through unsubscribeLink and nothing else. */
function actionRules(v: unknown, ctx: Ctx): void {
  if (!isRecord(v) || !isActionType(v.type)) return;
  const type = v.type;
  const field = ACTION_PAYLOAD_FIELD[type];
  if (field === null) return;
  const payload = v[field];
  if (payload === undefined) {
    if (!PAYLOAD_OPTIONAL.has(type)) fail(ctx, 'required', `type ${type} needs ${field} ${PAYLOAD_SHAPES[type]}.`, [field]);
    return;
  }
  if (!isRecord(payload) || typeof payload.url !== 'string') return;
  if (type === 'unsubscribeLink') {
    if (!isUnsubscribePlaceholder(payload.url)) {
      fail(ctx, 'unsubscribe_link_placeholder', 'openUrlAction.url of an unsubscribeLink action must be exactly {{unsubscribe_link}}.', [field, 'url']);
    }
  } else if (containsUnsubscribePlaceholder(payload.url)) {
    fail(ctx, 'unsubscribe_link_placeholder', `A button that opens {{unsubscribe_link}} must use type unsubscribeLink, not ${type}.`, ['type']);
  }
}

const actionText = (what: string) => text({ max: ACTION_TEXT_MAX_LENGTH, nonBlank: true }).describe(what);
const postbackData = (what: string) => text({ max: POSTBACK_DATA_MAX_LENGTH }).optional().describe(what);

export const ActionSchema = z
  .strictObject({
    text: actionText(`Label, at most ${ACTION_TEXT_MAX_LENGTH} characters (placeholders are not merged).`),
    type: ActionTypeSchema,
    postbackData: postbackData(`Sent to the webhook on click, at most ${POSTBACK_DATA_MAX_LENGTH} characters.`),
    webhookUrl: webhookUrl.optional().describe('postback only: webhook for this click instead of the account webhook.'),
    openUrlAction: OpenUrlActionSchema.optional(),
    openUrlInWebviewAction: OpenUrlInWebviewActionSchema.optional(),
    dialAction: DialActionSchema.optional(),
    calendarAction: CalendarActionSchema.optional(),
    createCalendarEventAction: CreateCalendarEventActionSchema.optional(),
    viewLocationAction: ViewLocationActionSchema.optional(),
    shareLocationAction: ShareLocationActionSchema.optional(),
    unsubscribeAction: UnsubscribeActionSchema.optional(),
  })
  .superRefine(actionRules)
  .describe(
    'A card button or action chip (§2.3). Carry the payload object matching type. postback and addToCalendar: card buttons only; createCalendarEvent and unsubscribe: chips only.',
  );
/** ActionSchema where it is part of content: one `$defs` entry however many places use it. (ActionSchema itself stays a plain object root.) */
const ActionDef = ActionSchema.meta({ id: 'Action' });

export const SuggestedReplySchema = z
  .strictObject({
    text: actionText(`Chip label and the reply sent, at most ${ACTION_TEXT_MAX_LENGTH} characters (placeholders are not merged).`),
    postbackData: postbackData(`Sent to the webhook when tapped, at most ${POSTBACK_DATA_MAX_LENGTH} characters.`),
    webhookUrl: webhookUrl.optional().describe('Webhook for this reply instead of the account webhook.'),
  })
  .meta({ id: 'SuggestedReply' })
  .describe('A reply chip.');

function placementOf(action: unknown): ActionType | null {
  return isRecord(action) && isActionType(action.type) ? action.type : null;
}

function chipRules(v: unknown, ctx: Ctx): void {
  if (!isRecord(v)) return;
  const hasReply = v.reply !== undefined;
  const hasAction = v.action !== undefined;
  if (hasReply === hasAction) {
    fail(ctx, 'exactly_one_of', hasReply ? 'A chip has either reply or action, not both.' : 'A chip needs exactly one of reply or action.');
  }
  const type = placementOf(v.action);
  if (type !== null && !actionAllowedOn(type, 'chip')) {
    const instead = type === 'postback' ? 'use a reply chip with postbackData' : 'use createCalendarEvent';
    fail(ctx, 'not_allowed_on_chip', `${type} is valid on card buttons only; on chips ${instead}.`, ['action', 'type']);
  }
}

export const SuggestionSchema = z
  .strictObject({
    reply: SuggestedReplySchema.optional(),
    action: ActionDef.optional(),
  })
  .superRefine(chipRules)
  .meta({ id: 'Suggestion' })
  .describe('A chip (§2.4): exactly one of reply or action.');

function cardButtonRules(v: unknown, ctx: Ctx): void {
  if (!Array.isArray(v) || v.length > CARD_ACTIONS_MAX) return;
  for (let i = 0; i < v.length; i++) {
    const type = placementOf(v[i]);
    if (type !== null && !actionAllowedOn(type, 'cardButton')) {
      const instead = type === 'unsubscribe' ? 'use an unsubscribeLink button' : 'use addToCalendar';
      fail(ctx, 'not_allowed_on_card_button', `${type} is valid on chips only; on card buttons ${instead}.`, [i, 'type']);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Content

const Title = text({ max: TITLE_MAX_LENGTH }).describe(`Card title, at most ${TITLE_MAX_LENGTH} characters; merge placeholders allowed.`);
const Description = text({ max: DESCRIPTION_MAX_LENGTH })
  .describe(`Card description, at most ${DESCRIPTION_MAX_LENGTH} characters; merge placeholders allowed.`);
const CardActions = z
  .array(ActionDef)
  .max(CARD_ACTIONS_MAX)
  .superRefine(cardButtonRules)
  .describe(`Card buttons, at most ${CARD_ACTIONS_MAX}.`);
const Suggestions = z.array(SuggestionSchema).max(SUGGESTIONS_MAX).describe(`Chips, at most ${SUGGESTIONS_MAX} in total; not on textBasic.`);
const Text = text({ max: TEXT_MAX_LENGTH }).describe(`Message text, at most ${TEXT_MAX_LENGTH} characters (${TEXT_BASIC_MAX_LENGTH} for textBasic); merge placeholders allowed.`);
const Url = mediaUrl('Direct media URL (media, file, image, video, audio; instead of media)');
const Caption = text({ max: CAPTION_MAX_LENGTH }).describe(`Caption, at most ${CAPTION_MAX_LENGTH} characters; with a caption media is sent as a rich card.`);

function titleOrDescription(message: string) {
  return (v: unknown, ctx: Ctx): void => {
    if (isRecord(v) && !hasTitleOrDescription(v)) fail(ctx, 'title_or_description_required', message);
  };
}

export const CardContentSchema = z
  .strictObject({
    title: Title.optional(),
    description: Description.optional(),
    media: MediaSchema.optional(),
    cardActions: CardActions.optional(),
  })
  .superRefine(titleOrDescription('Each carousel card needs a title or a description.'))
  .meta({ id: 'CarouselCard' })
  .describe('One carousel card: title or description required.');

const CardContents = z
  .array(CardContentSchema)
  .min(CAROUSEL_MIN_CARDS)
  .max(CAROUSEL_MAX_CARDS)
  .describe(`Carousel cards, ${CAROUSEL_MIN_CARDS} to ${CAROUSEL_MAX_CARDS}.`);

/**
 * The content object as accepted on input: one object, every field optional (no top-level union,
 * which JSON Schema consumers handle badly). Which fields each messageType needs is a rule of
 * the message (RcsMessageSchema, the send bodies), where messageType is known.
 */
export const ContentSchema = z
  .strictObject({
    text: Text.optional(),
    url: Url.optional(),
    caption: Caption.optional(),
    title: Title.optional(),
    description: Description.optional(),
    cardOrientation: CardOrientationSchema.optional(),
    imageAlignment: ImageAlignmentSchema.optional(),
    media: MediaSchema.optional(),
    cardActions: CardActions.optional(),
    cardContents: CardContents.optional(),
    suggestions: Suggestions.optional(),
  })
  .describe(
    'Message content (§2.1). text/textBasic: text; richCard: title or description, media, cardActions; carousel: cardContents; media/file/image/video/audio: url or media. Suggestions on all but textBasic. Fields a type does not use are dropped with a warning.',
  );

// ---------------------------------------------------------------------------------------------
// SMS fallback

const smsFallbackMessage = text({ max: SMS_MAX_LENGTH, nonBlank: true })
  .describe(`SMS text for devices without RCS, at most ${SMS_MAX_LENGTH} characters; same merge fields as the RCS body.`);
const smsSenderId = text({ nonBlank: true }).describe('ID of an approved SMS sender.');

export const SmsFallbackSchema = z
  .strictObject({ message: smsFallbackMessage, sendernameId: smsSenderId })
  .meta({ id: 'SmsFallback' })
  .describe('SMS sent instead when the recipient cannot receive RCS (§2.5).');

/** The fallback while drafting (validate, sandbox): the sender is the send's business. */
export const SmsFallbackDraftSchema = z
  .strictObject({ message: smsFallbackMessage, sendernameId: smsSenderId.optional() })
  .meta({ id: 'SmsFallbackDraft' })
  .describe('SMS sent instead when the recipient cannot receive RCS (§2.5); sendernameId is needed only to send.');

// ---------------------------------------------------------------------------------------------
// The message: what each messageType needs of its content

const MEDIA_MESSAGE_TYPES: ReadonlySet<string> = new Set(['media', 'file', 'image', 'video', 'audio']);

/**
 * The rules that need messageType and content together (§2.1 table). A refinement on every
 * envelope that carries both (RcsMessageSchema, the send bodies); exported for those.
 */
export function rcsMessageRules(v: unknown, ctx: Ctx): void {
  if (!isRecord(v) || !isMessageType(v.messageType) || !isRecord(v.content)) return;
  const type = v.messageType;
  const c = v.content;
  if (type === 'text' || type === 'textBasic') {
    if (c.text === undefined || c.text === null) fail(ctx, 'required', 'text is required.', ['content', 'text']);
    else if (c.text === '') fail(ctx, 'empty', 'text must not be empty.', ['content', 'text']);
    else if (typeof c.text === 'string' && c.text.trim() === '') fail(ctx, 'empty', 'text must not be blank.', ['content', 'text']);
  }
  if (type === 'textBasic') {
    if (typeof c.text === 'string' && c.text.length > TEXT_BASIC_MAX_LENGTH && c.text.length <= TEXT_MAX_LENGTH) {
      fail(ctx, 'too_long', `text must be at most ${TEXT_BASIC_MAX_LENGTH} characters for textBasic (got ${c.text.length}).`, ['content', 'text']);
    }
    if (c.suggestions !== undefined) fail(ctx, 'not_allowed', 'textBasic messages cannot carry suggestions; use messageType text.', ['content', 'suggestions']);
  }
  if (type === 'richCard' && !hasTitleOrDescription(c)) {
    fail(ctx, 'title_or_description_required', 'A rich card needs a title or a description (or both).', ['content']);
  }
  if (type === 'carousel' && (c.cardContents === undefined || c.cardContents === null)) {
    fail(ctx, 'required', `A carousel needs cardContents (${CAROUSEL_MIN_CARDS} to ${CAROUSEL_MAX_CARDS} cards).`, ['content', 'cardContents']);
  }
  if (MEDIA_MESSAGE_TYPES.has(type)) {
    const hasUrl = c.url !== undefined;
    const hasMedia = c.media !== undefined;
    if (!hasUrl && !hasMedia) fail(ctx, 'url_or_media_required', `A ${type} message needs content.url or content.media.`, ['content']);
    else if (hasUrl && hasMedia) fail(ctx, 'exactly_one_of', 'Give either content.url or content.media, not both.', ['content', 'media']);
    // The media is the message here, so its file is required (on cards it is only dropped).
    if (isRecord(c.media)) {
      const info = c.media.contentInfo;
      if (info === undefined || info === null) {
        fail(ctx, 'required', 'media.contentInfo with fileUrl is required for a media message.', ['content', 'media', 'contentInfo']);
      } else if (isRecord(info) && info.fileUrl === undefined) {
        fail(ctx, 'required', 'fileUrl is required for a media message.', ['content', 'media', 'contentInfo', 'fileUrl']);
      }
    }
  }
}

/** The shape of a message as /validate, the sandbox and rcs_validate take it. */
export const rcsMessageShape = {
  messageType: MessageTypeSchema,
  content: ContentSchema,
  smsFallback: SmsFallbackDraftSchema.optional(),
};

/** messageType + content (+ a draft fallback): the message every door checks, with every rule. */
export const RcsMessageSchema = z
  .strictObject(rcsMessageShape)
  .superRefine(rcsMessageRules)
  .describe('An RCS message: messageType, content and optionally its SMS fallback.');

/** Adds the messageType-dependent rules to an envelope schema (send bodies). */
export function withRcsMessageRules<S extends z.ZodType>(schema: S): S {
  return schema.superRefine(rcsMessageRules);
}

// ---------------------------------------------------------------------------------------------
// One schema per messageType, for documentation and typed construction.

export const TextContentSchema = z
  .strictObject({ text: text({ max: TEXT_MAX_LENGTH, nonBlank: true }).describe(`Message text, at most ${TEXT_MAX_LENGTH} characters; merge placeholders allowed.`), suggestions: Suggestions.optional() })
  .describe('Content of a text message.');
export const TextBasicContentSchema = z
  .strictObject({
    text: text({ max: TEXT_BASIC_MAX_LENGTH, nonBlank: true }).describe(`At most ${TEXT_BASIC_MAX_LENGTH} characters, no suggestions.`),
  })
  .describe('Content of a textBasic message.');
export const RichCardContentSchema = z
  .strictObject({
    title: Title.optional(),
    description: Description.optional(),
    media: MediaSchema.optional(),
    cardActions: CardActions.optional(),
    suggestions: Suggestions.optional(),
    cardOrientation: CardOrientationSchema.optional(),
    imageAlignment: ImageAlignmentSchema.optional(),
  })
  .superRefine(titleOrDescription('A rich card needs a title or a description (or both).'))
  .describe('Content of a rich card: title or description required.');
export const CarouselContentSchema = z
  .strictObject({ cardContents: CardContents, suggestions: Suggestions.optional() })
  .describe('Content of a carousel.');
export const MediaMessageContentSchema = z
  .strictObject({ url: Url.optional(), caption: Caption.optional(), media: MediaSchema.optional(), suggestions: Suggestions.optional() })
  .describe('Content of a media message: url (plus optional caption) or media.');
export const FileContentSchema = z
  .strictObject({ url: Url.optional(), media: MediaSchema.optional() })
  .describe('Content of a file message: url or media with a file URL.');
export const ImageContentSchema = z
  .strictObject({ url: Url.optional(), media: MediaSchema.optional(), caption: Caption.optional() })
  .describe('Content of an image message: url or media; optional caption.');
export const VideoContentSchema = z
  .strictObject({ url: Url.optional(), media: MediaSchema.optional(), caption: Caption.optional() })
  .describe('Content of a video message: url or media; optional caption.');
export const AudioContentSchema = z
  .strictObject({ url: Url.optional(), media: MediaSchema.optional() })
  .describe('Content of an audio message: url or media.');

export const CONTENT_SCHEMAS = {
  text: TextContentSchema,
  textBasic: TextBasicContentSchema,
  richCard: RichCardContentSchema,
  carousel: CarouselContentSchema,
  media: MediaMessageContentSchema,
  file: FileContentSchema,
  image: ImageContentSchema,
  video: VideoContentSchema,
  audio: AudioContentSchema,
} as const;

/** Leaf schemas a merged value is checked against again, per recipient (./merged.ts). */
export const MergedTextSchemas = {
  text: Text,
  textBasic: text({ max: TEXT_BASIC_MAX_LENGTH }),
  title: Title,
  description: Description,
  caption: Caption,
  sms: text({ max: SMS_MAX_LENGTH }),
} as const;

export type RcsMessage = z.infer<typeof RcsMessageSchema>;
export type Content = z.infer<typeof ContentSchema>;
export type CardContent = z.infer<typeof CardContentSchema>;
export type Media = z.infer<typeof MediaSchema>;
export type ContentInfo = z.infer<typeof ContentInfoSchema>;
export type Action = z.infer<typeof ActionSchema>;
export type SuggestedReply = z.infer<typeof SuggestedReplySchema>;
export type Suggestion = z.infer<typeof SuggestionSchema>;
export type SmsFallback = z.infer<typeof SmsFallbackSchema>;
export type OpenUrlAction = z.infer<typeof OpenUrlActionSchema>;
export type OpenUrlInWebviewAction = z.infer<typeof OpenUrlInWebviewActionSchema>;
export type DialAction = z.infer<typeof DialActionSchema>;
export type CalendarAction = z.infer<typeof CalendarActionSchema>;
export type CreateCalendarEventAction = z.infer<typeof CreateCalendarEventActionSchema>;
export type ViewLocationAction = z.infer<typeof ViewLocationActionSchema>;
export type UnsubscribeAction = z.infer<typeof UnsubscribeActionSchema>;
export type TextContent = z.infer<typeof TextContentSchema>;
export type TextBasicContent = z.infer<typeof TextBasicContentSchema>;
export type RichCardContent = z.infer<typeof RichCardContentSchema>;
export type CarouselContent = z.infer<typeof CarouselContentSchema>;
export type MediaMessageContent = z.infer<typeof MediaMessageContentSchema>;
export type FileContent = z.infer<typeof FileContentSchema>;
export type ImageContent = z.infer<typeof ImageContentSchema>;
export type VideoContent = z.infer<typeof VideoContentSchema>;
export type AudioContent = z.infer<typeof AudioContentSchema>;
