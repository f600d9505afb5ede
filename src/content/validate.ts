/**
 * The one content validator (DESIGN §5.1) for /send, /send-batch, /validate, the sandbox and the
 * MCP tools. Hand-written rather than a zod parse: it must report every problem with a precise
 * path and a stable code, never throw on arbitrary JSON, and run well above 20,000 rich cards/s.
 * The zod schemas in schemas.ts describe the same shapes for types and JSON Schema.
 */
import {
  containsUnsubscribePlaceholder,
  findMalformedPlaceholders,
  findPlaceholders,
  isUnsubscribePlaceholder,
  placeholderPattern,
  startsWithPlaceholder,
} from '../merge/placeholders.js';
import { BUILTIN_MERGE_FIELD_SET } from '../merge/fields.js';
import { analyzeSms } from '../sms/analyze.js';
import { findForbiddenCharacter, forbiddenCharacterMessage } from './characters.js';
import type { ContentErrorCode, ContentWarningCode, Issue, SmsFacts, ValidationResult } from './issues.js';
import {
  ACTION_TEXT_MAX_LENGTH,
  CAPTION_MAX_LENGTH,
  CARD_ACTIONS_MAX,
  CAROUSEL_MAX_CARDS,
  CAROUSEL_MIN_CARDS,
  DESCRIPTION_MAX_LENGTH,
  GSM7_MULTI_SEGMENT_UNITS,
  GSM7_SINGLE_SEGMENT_UNITS,
  POSTBACK_DATA_MAX_LENGTH,
  SMS_MAX_LENGTH,
  SMS_MAX_SEGMENTS,
  SUGGESTIONS_MAX,
  TEXT_BASIC_MAX_LENGTH,
  TEXT_MAX_LENGTH,
  TITLE_MAX_LENGTH,
  UCS2_SINGLE_SEGMENT_UNITS,
  URL_MAX_LENGTH,
} from './limits.js';
import {
  ACTION_PAYLOAD_FIELD,
  ACTION_PAYLOAD_FIELDS,
  ACTION_TYPES,
  CARD_ORIENTATIONS,
  CONTENT_FIELDS,
  CONTENT_FIELDS_BY_TYPE,
  DEFAULT_MEDIA_HEIGHT,
  IMAGE_ALIGNMENTS,
  MEDIA_CONTENT_TYPES,
  MEDIA_HEIGHTS,
  MESSAGE_TYPES,
  WEBVIEW_VIEW_MODES,
  actionAllowedOn,
  isActionType,
  isMessageType,
  type ActionPlacement,
  type ActionType,
  type ContentField,
  type MessageType,
} from './vocabulary.js';
import { isRecord } from '../platform/guards.js';

export interface ValidateContentOptions {
  /** The request's smsFallback, checked at path `smsFallback`. */
  smsFallback?: unknown;
  /** The account's custom-field tags; placeholders outside these and the built-ins are warned about. */
  knownMergeFields?: ReadonlySet<string>;
}

type Obj = Record<string, unknown>;

/** Arrays longer than this are reported as too long and only their head is inspected. */
const ITEM_INSPECTION_CAP = 100;
/** Beyond this many issues the input is garbage; more detail helps nobody and costs time. */
const ISSUE_CAP = 200;

const CONTENT_KEYS: ReadonlySet<string> = new Set(CONTENT_FIELDS);
const FIELDS_BY_TYPE = new Map<MessageType, ReadonlySet<ContentField>>(
  MESSAGE_TYPES.map((t) => [t, new Set(CONTENT_FIELDS_BY_TYPE[t])]),
);
const MEDIA_KEYS: ReadonlySet<string> = new Set(['height', 'contentInfo', 'thumbnailUrl']);
const CONTENT_INFO_KEYS: ReadonlySet<string> = new Set(['fileUrl', 'contentType', 'thumbnailUrl', 'forceRefresh']);
const CARD_KEYS: ReadonlySet<string> = new Set(['title', 'description', 'media', 'cardActions']);
const SUGGESTION_KEYS: ReadonlySet<string> = new Set(['reply', 'action']);
const REPLY_KEYS: ReadonlySet<string> = new Set(['text', 'postbackData', 'webhookUrl']);
const ACTION_KEYS: ReadonlySet<string> = new Set(['text', 'type', 'postbackData', 'webhookUrl', ...ACTION_PAYLOAD_FIELDS]);
const OPEN_URL_KEYS: ReadonlySet<string> = new Set(['url']);
const WEBVIEW_KEYS: ReadonlySet<string> = new Set(['url', 'description', 'viewMode']);
const DIAL_KEYS: ReadonlySet<string> = new Set(['phoneNumber']);
const CALENDAR_KEYS: ReadonlySet<string> = new Set(['startTime', 'endTime', 'title', 'description']);
const LOCATION_KEYS: ReadonlySet<string> = new Set(['latLong', 'label']);
const LAT_LONG_KEYS: ReadonlySet<string> = new Set(['latitude', 'longitude']);
const UNSUBSCRIBE_KEYS: ReadonlySet<string> = new Set(['stopKeyword']);
const NO_KEYS: ReadonlySet<string> = new Set();
const SMS_FALLBACK_KEYS: ReadonlySet<string> = new Set(['message', 'sendernameId']);
const MEDIA_MESSAGE_TYPES: ReadonlySet<MessageType> = new Set(['media', 'file', 'image', 'video', 'audio']);

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
const PAYLOAD_REQUIRED = Object.fromEntries(
  ACTION_TYPES.map((t) => [t, `type ${t} needs ${ACTION_PAYLOAD_FIELD[t] ?? 'no payload'} ${PAYLOAD_SHAPES[t]}.`]),
) as Readonly<Record<ActionType, string>>;

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/;
const LOOSE_PHONE = /^\+?\d{3,20}$/;
const PHONE_PUNCTUATION = /[\s\-().]/g;

/** Look-alikes that quietly turn an SMS into Unicode, with the GSM-7 text to use instead. */
const GSM_SUBSTITUTES: Readonly<Record<string, string>> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u2013': '-',
  '\u2014': '-',
  '\u2026': '...',
  '\u00a0': ' ',
  '\u00e7': 'Ç',
};

const hasText = (v: unknown): boolean => typeof v === 'string' && v.trim() !== '';

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** Last path segment without its index, for messages: `content.cardActions[0].text` → `text`. */
function leaf(path: string): string {
  const dot = path.lastIndexOf('.');
  return (dot === -1 ? path : path.slice(dot + 1)).replace(/\[\d+\]$/, '');
}

function codePointLabel(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  return `"${ch}" (U+${cp.toString(16).toUpperCase().padStart(4, '0')})`;
}

function tryUrl(s: string): URL | null {
  try {
    return new URL(s);
  } catch {
    return null;
  }
}

interface StringRule {
  max?: number;
  required?: boolean;
  /** Reject whitespace-only strings as `empty` (labels and texts, not payload data). */
  nonBlank?: boolean;
}

interface MediaFacts {
  hasFile: boolean;
  height: string | undefined;
  contentType: string | undefined;
}

class Checker {
  readonly errors: Issue<ContentErrorCode>[] = [];
  readonly warnings: Issue<ContentWarningCode>[] = [];

  constructor(private readonly knownMergeFields: ReadonlySet<string> | null) {}

  err(path: string, code: ContentErrorCode, message: string): void {
    if (this.errors.length < ISSUE_CAP) this.errors.push({ path, code, message });
  }

  warn(path: string, code: ContentWarningCode, message: string): void {
    if (this.warnings.length < ISSUE_CAP) this.warnings.push({ path, code, message });
  }

  unknownKeys(obj: Obj, allowed: ReadonlySet<string>, path: string): void {
    for (const key of Object.keys(obj)) {
      if (!allowed.has(key)) {
        const hint = allowed.size > 0 ? ` (allowed: ${[...allowed].join(', ')})` : ' (it must be an empty object)';
        this.err(`${path}.${key}`, 'unknown_field', `Unknown field "${key}"${hint}.`);
      }
    }
  }

  str(v: unknown, path: string, rule: StringRule): string | undefined {
    if (v === undefined || (v === null && rule.required)) {
      if (rule.required) this.err(path, 'required', `${leaf(path)} is required.`);
      return undefined;
    }
    if (typeof v !== 'string') {
      this.err(path, 'invalid_type', `${leaf(path)} must be a string, got ${describe(v)}.`);
      return undefined;
    }
    if (rule.nonBlank && v.trim() === '') {
      this.err(path, 'empty', `${leaf(path)} must not be empty.`);
      return v;
    }
    if (rule.max !== undefined && v.length > rule.max) {
      this.err(path, 'too_long', `${leaf(path)} must be at most ${rule.max} characters (got ${v.length}).`);
    }
    // Every string of the content ends up at the carrier (texts, labels, payloads, URLs).
    const bad = findForbiddenCharacter(v);
    if (bad) this.err(path, 'invalid_character', forbiddenCharacterMessage(leaf(path), bad));
    return v;
  }

  enumValue<T extends string>(v: unknown, path: string, allowed: readonly T[], required = false): T | undefined {
    if (v === undefined) {
      if (required) this.err(path, 'required', `${leaf(path)} is required (one of ${allowed.join(', ')}).`);
      return undefined;
    }
    if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
    const got = typeof v === 'string' ? `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"` : describe(v);
    this.err(path, 'invalid_enum', `${leaf(path)} must be one of ${allowed.join(', ')} (got ${got}).`);
    return undefined;
  }

  /** For fields that §2.13 merges: unknown and malformed placeholders. */
  mergedText(s: string, path: string): void {
    if (s.indexOf('{{') === -1 && s.indexOf('}}') === -1) return;
    for (const name of findPlaceholders(s)) {
      if (!BUILTIN_MERGE_FIELD_SET.has(name) && !this.knownMergeFields?.has(name)) {
        this.warn(
          path,
          'unknown_merge_field',
          `{{${name}}} is neither a built-in merge field nor a custom field of this account; it will not be replaced in RCS and becomes empty in SMS.`,
        );
      }
    }
    for (const fragment of findMalformedPlaceholders(s)) {
      this.warn(path, 'malformed_placeholder', `"${fragment}" is not a valid placeholder ({{name}}, letters, digits and _); it will be sent as written.`);
    }
  }

  /** For fields that are sent verbatim although a placeholder in them looks intentional. */
  unmergedText(s: string, path: string): void {
    if (s.indexOf('{{') !== -1 && findPlaceholders(s).length > 0) {
      this.warn(path, 'placeholder_not_merged', `Placeholders are not replaced in ${leaf(path)}; it is sent exactly as written.`);
    }
  }

  mediaUrl(v: unknown, path: string, required: boolean): string | undefined {
    const s = this.str(v, path, { required, max: URL_MAX_LENGTH, nonBlank: true });
    if (s === undefined || s.trim() === '' || s.length > URL_MAX_LENGTH) return s;
    if (s.indexOf('{{') !== -1) {
      this.err(path, 'placeholder_not_allowed', 'Merge placeholders are not replaced in media URLs; give the direct URL of the file.');
      return s;
    }
    const url = tryUrl(s);
    if (!url || url.hostname === '') this.err(path, 'invalid_url', `${leaf(path)} must be an absolute HTTPS URL.`);
    else if (url.protocol !== 'https:') this.err(path, 'https_required', `${leaf(path)} must use HTTPS (got ${url.protocol.slice(0, -1)}).`);
    return s;
  }

  /** Button/chip URLs: merge placeholders allowed, http accepted with a warning. */
  buttonUrl(v: unknown, path: string): string | undefined {
    const s = this.str(v, path, { required: true, max: URL_MAX_LENGTH, nonBlank: true });
    if (s === undefined || s.trim() === '' || s.length > URL_MAX_LENGTH) return s;
    this.mergedText(s, path);
    // A leading placeholder supplies scheme and host; only the merged result can be checked.
    if (startsWithPlaceholder(s)) return s;
    const probe = s.indexOf('{{') === -1 ? s : s.replace(placeholderPattern(), 'x');
    const url = tryUrl(probe);
    if (!url || url.hostname === '' || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      this.err(path, 'invalid_url', `${leaf(path)} must be an absolute http(s) URL or start with a merge placeholder.`);
    } else if (url.protocol === 'http:') {
      this.warn(path, 'insecure_url', `${leaf(path)} is not HTTPS; some devices refuse or warn about plain http links.`);
    }
    return s;
  }

  /**
   * A button/chip URL after merging: the placeholders are gone, so the whole URL is checked — a
   * leading placeholder may not smuggle in another scheme (`javascript:`) or an empty host.
   */
  mergedButtonUrl(v: string, path: string): void {
    const s = this.str(v, path, { required: true, max: URL_MAX_LENGTH, nonBlank: true });
    if (s === undefined || s.trim() === '' || s.length > URL_MAX_LENGTH) return;
    const url = tryUrl(s);
    if (!url || url.hostname === '' || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      this.err(path, 'invalid_url', `${leaf(path)} must be an absolute http(s) URL after merge fields are filled in (got ${url ? `a ${url.protocol.slice(0, -1)} URL` : 'no URL'}).`);
    }
  }

  webhookUrl(v: unknown, path: string): void {
    const s = this.str(v, path, { max: URL_MAX_LENGTH, nonBlank: true });
    if (s === undefined || s.trim() === '' || s.length > URL_MAX_LENGTH) return;
    const url = tryUrl(s);
    if (!url || url.hostname === '' || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      this.err(path, 'invalid_url', 'webhookUrl must be an absolute http(s) URL.');
    } else if (url.protocol === 'http:') {
      this.warn(path, 'insecure_url', 'webhookUrl is not HTTPS; click data would travel unencrypted.');
    }
  }

  number(v: unknown, path: string, min: number, max: number): void {
    if (v === undefined || v === null) {
      this.err(path, 'required', `${leaf(path)} is required.`);
    } else if (typeof v !== 'number' || !Number.isFinite(v)) {
      this.err(path, 'invalid_type', `${leaf(path)} must be a number, got ${describe(v)}.`);
    } else if (v < min || v > max) {
      this.err(path, 'out_of_range', `${leaf(path)} must be between ${min} and ${max} (got ${v}).`);
    }
  }

  dateTime(v: unknown, path: string): number | undefined {
    const s = this.str(v, path, { required: true });
    if (s === undefined) return undefined;
    const ms = RFC3339.test(s) ? Date.parse(s) : Number.NaN;
    if (Number.isNaN(ms)) {
      this.err(path, 'invalid_datetime', `${leaf(path)} must be an RFC 3339 date-time with Z or an offset, e.g. 2026-05-01T18:00:00+02:00.`);
      return undefined;
    }
    return ms;
  }

  /** An optional object field; undefined when absent or reported as the wrong type. */
  object(v: unknown, path: string, required: boolean, requiredMessage?: string): Obj | undefined {
    if (v === undefined || (v === null && required)) {
      if (required) this.err(path, 'required', requiredMessage ?? `${leaf(path)} is required.`);
      return undefined;
    }
    if (!isRecord(v)) {
      this.err(path, 'invalid_type', `${leaf(path)} must be an object, got ${describe(v)}.`);
      return undefined;
    }
    return v;
  }

  array(v: unknown, path: string): unknown[] | undefined {
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) {
      this.err(path, 'invalid_type', `${leaf(path)} must be an array, got ${describe(v)}.`);
      return undefined;
    }
    return v as unknown[];
  }
}


export function validateContent(messageType: unknown, content: unknown, opts?: ValidateContentOptions): ValidationResult {
  const options: ValidateContentOptions = isRecord(opts) ? opts : {};
  const known = options.knownMergeFields instanceof Set ? options.knownMergeFields : null;
  const c = new Checker(known);
  let sms: SmsFacts | undefined;
  try {
    const type = checkMessageType(messageType, c);
    if (content === undefined || content === null) c.err('content', 'required', 'content is required.');
    else if (!isRecord(content)) c.err('content', 'invalid_type', `content must be an object, got ${describe(content)}.`);
    else checkContent(type, content, c);
    if (options.smsFallback !== undefined && options.smsFallback !== null) sms = checkSmsFallback(options.smsFallback, c);
  } catch {
    // Defence in depth for inputs no JSON parser produces (throwing getters, proxies).
    c.err('content', 'unprocessable', 'content could not be inspected; send plain JSON.');
  }
  const result: ValidationResult = { valid: c.errors.length === 0, errors: c.errors, warnings: c.warnings };
  if (sms) result.sms = sms;
  return result;
}

/** What a merged string is, for checkMergedValue: the field it fills decides the rules. */
export type MergedSlot = 'text' | 'textBasic' | 'title' | 'description' | 'caption' | 'buttonUrl' | 'sms';

const MERGED_TEXT_MAX: Readonly<Record<Exclude<MergedSlot, 'buttonUrl'>, number>> = {
  text: TEXT_MAX_LENGTH,
  textBasic: TEXT_BASIC_MAX_LENGTH,
  title: TITLE_MAX_LENGTH,
  description: DESCRIPTION_MAX_LENGTH,
  caption: CAPTION_MAX_LENGTH,
  sms: SMS_MAX_LENGTH,
};
const NO_ISSUES: readonly Issue<ContentErrorCode>[] = Object.freeze([]);

/**
 * The rules of the literal field, applied to one recipient's merged value (DESIGN §6: merged
 * values are validated per recipient). Called only for strings whose literal held a placeholder,
 * so a 10,000-recipient batch costs one length comparison per such string in the common case.
 * `required`: the field must not end up blank (a text message's text, an SMS).
 */
export function checkMergedValue(slot: MergedSlot, value: string, path: string, required = false): readonly Issue<ContentErrorCode>[] {
  if (slot !== 'buttonUrl' && value.length <= MERGED_TEXT_MAX[slot] && (!required || value.trim() !== '')) return NO_ISSUES;
  const c = new Checker(null);
  if (slot === 'buttonUrl') c.mergedButtonUrl(value, path);
  else {
    const max = MERGED_TEXT_MAX[slot];
    c.str(value, path, { required, max, nonBlank: required });
    const last = c.errors[c.errors.length - 1];
    if (last) last.message = `${last.message.replace(/\.$/, '')} after merge fields are filled in.`;
  }
  return c.errors;
}

function checkMessageType(v: unknown, c: Checker): MessageType | null {
  if (v === undefined || v === null) {
    c.err('messageType', 'required', `messageType is required (one of ${MESSAGE_TYPES.join(', ')}).`);
    return null;
  }
  if (isMessageType(v)) return v;
  c.enumValue(v, 'messageType', MESSAGE_TYPES);
  return null;
}

/** null = unknown messageType: check every field generically. */
function uses(used: ReadonlySet<ContentField> | null, field: ContentField): boolean {
  return used === null || used.has(field);
}

function checkContent(type: MessageType | null, content: Obj, c: Checker): void {
  const used = type ? (FIELDS_BY_TYPE.get(type) ?? null) : null;
  for (const key of Object.keys(content)) {
    const path = `content.${key}`;
    if (!CONTENT_KEYS.has(key)) {
      c.err(path, 'unknown_field', `Unknown content field "${key}" (allowed: ${CONTENT_FIELDS.join(', ')}).`);
    } else if (used && !used.has(key as ContentField)) {
      if (type === 'textBasic' && key === 'suggestions') {
        c.err(path, 'not_allowed', 'textBasic messages cannot carry suggestions; use messageType text.');
      } else {
        c.warn(path, 'field_ignored', `${key} is not used by ${type} messages and is dropped (used: ${[...used].join(', ')}).`);
      }
    }
  }

  if (uses(used, 'text')) {
    const required = type === 'text' || type === 'textBasic';
    const max = type === 'textBasic' ? TEXT_BASIC_MAX_LENGTH : TEXT_MAX_LENGTH;
    const text = c.str(content.text, 'content.text', { required, max, nonBlank: required });
    if (text !== undefined) c.mergedText(text, 'content.text');
  }
  if (uses(used, 'title')) {
    const title = c.str(content.title, 'content.title', { max: TITLE_MAX_LENGTH });
    if (title !== undefined) c.mergedText(title, 'content.title');
  }
  if (uses(used, 'description')) {
    const description = c.str(content.description, 'content.description', { max: DESCRIPTION_MAX_LENGTH });
    if (description !== undefined) c.mergedText(description, 'content.description');
  }
  if (uses(used, 'caption')) {
    const caption = c.str(content.caption, 'content.caption', { max: CAPTION_MAX_LENGTH });
    if (caption !== undefined) c.mergedText(caption, 'content.caption');
  }
  let orientation: string | undefined;
  if (uses(used, 'cardOrientation')) orientation = c.enumValue(content.cardOrientation, 'content.cardOrientation', CARD_ORIENTATIONS);
  if (uses(used, 'imageAlignment')) {
    const alignment = c.enumValue(content.imageAlignment, 'content.imageAlignment', IMAGE_ALIGNMENTS);
    if (alignment !== undefined && type === 'richCard' && orientation !== 'HORIZONTAL') {
      c.warn('content.imageAlignment', 'field_ignored', 'imageAlignment only applies to HORIZONTAL cards; it is dropped.');
    }
  }
  if (uses(used, 'url')) c.mediaUrl(content.url, 'content.url', false);

  const isMediaMessage = type !== null && MEDIA_MESSAGE_TYPES.has(type);
  let media: MediaFacts | undefined;
  if (uses(used, 'media') && content.media !== undefined) {
    media = checkMedia(content.media, 'content.media', isMediaMessage ? 'message' : 'card', type, c);
  }
  if (uses(used, 'cardActions')) checkActions(content.cardActions, 'content.cardActions', c);
  if (uses(used, 'cardContents')) checkCarousel(content.cardContents, type === 'carousel', c);
  if (uses(used, 'suggestions')) checkSuggestions(content.suggestions, c);

  if (type === 'richCard' && !hasText(content.title) && !hasText(content.description)) {
    c.err('content', 'title_or_description_required', 'A rich card needs a title or a description (or both).');
  }
  if (type !== null && isMediaMessage) {
    const hasUrl = content.url !== undefined;
    const hasMedia = content.media !== undefined;
    if (!hasUrl && !hasMedia) {
      c.err('content', 'url_or_media_required', `A ${type} message needs content.url or content.media.`);
    } else if (hasUrl && hasMedia) {
      c.err('content.media', 'exactly_one_of', 'Give either content.url or content.media, not both.');
    }
    if (media?.contentType !== undefined) checkContentTypeMatches(type, media.contentType, c);
  }
}

function checkContentTypeMatches(type: MessageType, contentType: string, c: Checker): void {
  const family = contentType.slice(0, contentType.indexOf('/'));
  const expected = type === 'image' ? 'image' : type === 'video' ? 'video' : type === 'audio' ? 'audio' : null;
  if (expected !== null && family !== expected) {
    c.warn('content.media.contentInfo.contentType', 'content_type_mismatch', `${contentType} does not look like ${expected === 'audio' ? 'an' : 'a'} ${expected} for a ${type} message.`);
  }
}

/**
 * `card` media (rich card, carousel card) without a file is dropped with a warning (§2.1);
 * `message` media (media/file/image/video/audio) is the message, so the file is required.
 */
function checkMedia(
  v: unknown,
  path: string,
  placement: 'card' | 'message',
  messageType: MessageType | null,
  c: Checker,
): MediaFacts | undefined {
  // §2.2's contentType enum has no document or audio types; say what to do instead.
  const noMimeEnum = messageType === 'file' || messageType === 'audio';
  const media = c.object(v, path, false);
  if (!media) return undefined;
  c.unknownKeys(media, MEDIA_KEYS, path);
  const height = c.enumValue(media.height, `${path}.height`, MEDIA_HEIGHTS);
  if (media.thumbnailUrl !== undefined) c.mediaUrl(media.thumbnailUrl, `${path}.thumbnailUrl`, false);

  let hasFile = false;
  let contentType: string | undefined;
  const info = c.object(
    media.contentInfo,
    `${path}.contentInfo`,
    placement === 'message',
    'media.contentInfo with fileUrl is required for a media message.',
  );
  if (info) {
    c.unknownKeys(info, CONTENT_INFO_KEYS, `${path}.contentInfo`);
    if (info.fileUrl !== undefined || placement === 'message') {
      hasFile = c.mediaUrl(info.fileUrl, `${path}.contentInfo.fileUrl`, true) !== undefined;
    }
    if (noMimeEnum && info.contentType !== undefined && !(MEDIA_CONTENT_TYPES as readonly unknown[]).includes(info.contentType)) {
      c.err(
        `${path}.contentInfo.contentType`,
        'invalid_enum',
        `contentType must be one of ${MEDIA_CONTENT_TYPES.join(', ')}; for ${messageType} messages omit it and the type is taken from the file.`,
      );
    } else {
      contentType = c.enumValue(info.contentType, `${path}.contentInfo.contentType`, MEDIA_CONTENT_TYPES);
    }
    if (info.thumbnailUrl !== undefined) c.mediaUrl(info.thumbnailUrl, `${path}.contentInfo.thumbnailUrl`, false);
    if (info.forceRefresh !== undefined && typeof info.forceRefresh !== 'boolean') {
      c.err(`${path}.contentInfo.forceRefresh`, 'invalid_type', `forceRefresh must be a boolean, got ${describe(info.forceRefresh)}.`);
    }
  }
  if (placement === 'card') {
    if (!hasFile) {
      c.warn(path, 'media_dropped', 'media has no contentInfo.fileUrl; the card is sent without media.');
    } else if (media.height === undefined) {
      c.warn(`${path}.height`, 'media_height_missing', `media.height is missing; ${DEFAULT_MEDIA_HEIGHT} is applied.`);
    }
  }
  return { hasFile, height: height ?? (media.height === undefined ? DEFAULT_MEDIA_HEIGHT : undefined), contentType };
}

function checkActions(v: unknown, path: string, c: Checker): void {
  const actions = c.array(v, path);
  if (!actions) return;
  if (actions.length > CARD_ACTIONS_MAX) {
    c.err(path, 'too_many', `At most ${CARD_ACTIONS_MAX} card buttons per card (got ${actions.length}).`);
  }
  const n = Math.min(actions.length, ITEM_INSPECTION_CAP);
  for (let i = 0; i < n; i++) checkAction(actions[i], `${path}[${i}]`, 'cardButton', c);
}

function checkCarousel(v: unknown, required: boolean, c: Checker): void {
  const path = 'content.cardContents';
  if (v === undefined || (v === null && required)) {
    if (required) c.err(path, 'required', `A carousel needs cardContents (${CAROUSEL_MIN_CARDS} to ${CAROUSEL_MAX_CARDS} cards).`);
    return;
  }
  const cards = c.array(v, path);
  if (!cards) return;
  if (cards.length < CAROUSEL_MIN_CARDS) {
    c.err(path, 'too_few', `A carousel needs at least ${CAROUSEL_MIN_CARDS} cards (got ${cards.length}); use a richCard for one.`);
  } else if (cards.length > CAROUSEL_MAX_CARDS) {
    c.err(path, 'too_many', `A carousel holds at most ${CAROUSEL_MAX_CARDS} cards (got ${cards.length}).`);
  }
  const heights = new Set<string>();
  const n = Math.min(cards.length, ITEM_INSPECTION_CAP);
  for (let i = 0; i < n; i++) {
    const media = checkCard(cards[i], `${path}[${i}]`, c);
    if (media?.hasFile && media.height !== undefined) heights.add(media.height);
  }
  if (heights.size > 1) {
    c.warn(path, 'mixed_media_heights', `Carousel cards use different media heights (${[...heights].join(', ')}); cards render unevenly.`);
  }
}

function checkCard(v: unknown, path: string, c: Checker): MediaFacts | undefined {
  const card = c.object(v, path, true);
  if (!card) return undefined;
  c.unknownKeys(card, CARD_KEYS, path);
  const title = c.str(card.title, `${path}.title`, { max: TITLE_MAX_LENGTH });
  if (title !== undefined) c.mergedText(title, `${path}.title`);
  const description = c.str(card.description, `${path}.description`, { max: DESCRIPTION_MAX_LENGTH });
  if (description !== undefined) c.mergedText(description, `${path}.description`);
  if (!hasText(card.title) && !hasText(card.description)) {
    c.err(path, 'title_or_description_required', 'Each carousel card needs a title or a description.');
  }
  const media = card.media === undefined ? undefined : checkMedia(card.media, `${path}.media`, 'card', 'carousel', c);
  checkActions(card.cardActions, `${path}.cardActions`, c);
  return media;
}

function checkSuggestions(v: unknown, c: Checker): void {
  const path = 'content.suggestions';
  const chips = c.array(v, path);
  if (!chips) return;
  if (chips.length === 0) c.warn(path, 'empty_suggestions', 'suggestions is an empty array; omit it.');
  if (chips.length > SUGGESTIONS_MAX) {
    c.err(path, 'too_many', `At most ${SUGGESTIONS_MAX} chips in total (got ${chips.length}).`);
  }
  const n = Math.min(chips.length, ITEM_INSPECTION_CAP);
  for (let i = 0; i < n; i++) checkSuggestion(chips[i], `${path}[${i}]`, c);
}

function checkSuggestion(v: unknown, path: string, c: Checker): void {
  const chip = c.object(v, path, true);
  if (!chip) return;
  c.unknownKeys(chip, SUGGESTION_KEYS, path);
  const hasReply = chip.reply !== undefined;
  const hasAction = chip.action !== undefined;
  if (hasReply === hasAction) {
    c.err(path, 'exactly_one_of', hasReply ? 'A chip has either reply or action, not both.' : 'A chip needs exactly one of reply or action.');
  }
  if (hasReply) {
    const reply = c.object(chip.reply, `${path}.reply`, false);
    if (reply) {
      c.unknownKeys(reply, REPLY_KEYS, `${path}.reply`);
      const text = c.str(reply.text, `${path}.reply.text`, { required: true, max: ACTION_TEXT_MAX_LENGTH, nonBlank: true });
      if (text !== undefined) c.unmergedText(text, `${path}.reply.text`);
      const data = c.str(reply.postbackData, `${path}.reply.postbackData`, { max: POSTBACK_DATA_MAX_LENGTH });
      if (data !== undefined) c.unmergedText(data, `${path}.reply.postbackData`);
      c.webhookUrl(reply.webhookUrl, `${path}.reply.webhookUrl`);
    }
  }
  if (hasAction) checkAction(chip.action, `${path}.action`, 'chip', c);
}

function checkAction(v: unknown, path: string, placement: ActionPlacement, c: Checker): void {
  const action = c.object(v, path, true);
  if (!action) return;
  c.unknownKeys(action, ACTION_KEYS, path);
  const text = c.str(action.text, `${path}.text`, { required: true, max: ACTION_TEXT_MAX_LENGTH, nonBlank: true });
  if (text !== undefined) c.unmergedText(text, `${path}.text`);
  const data = c.str(action.postbackData, `${path}.postbackData`, { max: POSTBACK_DATA_MAX_LENGTH });
  if (data !== undefined) c.unmergedText(data, `${path}.postbackData`);
  c.webhookUrl(action.webhookUrl, `${path}.webhookUrl`);

  const rawType = action.type;
  if (rawType === undefined || rawType === null) {
    c.err(`${path}.type`, 'required', `type is required (one of ${ACTION_TYPES.join(', ')}).`);
    return;
  }
  if (!isActionType(rawType)) {
    c.enumValue(rawType, `${path}.type`, ACTION_TYPES);
    return;
  }
  const type: ActionType = rawType;
  if (!actionAllowedOn(type, placement)) {
    if (placement === 'chip') {
      const instead = type === 'postback' ? 'use a reply chip with postbackData' : 'use createCalendarEvent';
      c.err(`${path}.type`, 'not_allowed_on_chip', `${type} is valid on card buttons only; on chips ${instead}.`);
    } else {
      const instead = type === 'unsubscribe' ? 'use an unsubscribeLink button' : 'use addToCalendar';
      c.err(`${path}.type`, 'not_allowed_on_card_button', `${type} is valid on chips only; on card buttons ${instead}.`);
    }
  }
  const payloadField = ACTION_PAYLOAD_FIELD[type];
  for (const field of ACTION_PAYLOAD_FIELDS) {
    if (field !== payloadField && action[field] !== undefined) {
      c.warn(`${path}.${field}`, 'field_ignored', `${field} is not used by ${type} actions and is dropped.`);
    }
  }
  if (action.webhookUrl !== undefined && type !== 'postback') {
    c.warn(`${path}.webhookUrl`, 'field_ignored', 'webhookUrl is only used by postback actions.');
  }
  checkPayload(type, action, path, c);
}

function checkPayload(type: ActionType, action: Obj, path: string, c: Checker): void {
  const field = ACTION_PAYLOAD_FIELD[type];
  const p = field === null ? '' : `${path}.${field}`;
  switch (type) {
    case 'postback':
      return;
    case 'openUrl': {
      const payload = c.object(action.openUrlAction, p, true, PAYLOAD_REQUIRED[type]);
      if (!payload) return;
      c.unknownKeys(payload, OPEN_URL_KEYS, p);
      const url = c.buttonUrl(payload.url, `${p}.url`);
      if (url !== undefined && containsUnsubscribePlaceholder(url)) {
        c.err(`${path}.type`, 'unsubscribe_link_placeholder', 'A button that opens {{unsubscribe_link}} must use type unsubscribeLink, not openUrl.');
      }
      return;
    }
    case 'unsubscribeLink': {
      const payload = c.object(action.openUrlAction, p, true, PAYLOAD_REQUIRED[type]);
      if (!payload) return;
      c.unknownKeys(payload, OPEN_URL_KEYS, p);
      const url = c.str(payload.url, `${p}.url`, { required: true });
      if (url !== undefined && !isUnsubscribePlaceholder(url)) {
        c.err(`${p}.url`, 'unsubscribe_link_placeholder', 'openUrlAction.url of an unsubscribeLink action must be exactly {{unsubscribe_link}}.');
      }
      return;
    }
    case 'openUrlInWebview': {
      const payload = c.object(action.openUrlInWebviewAction, p, true, PAYLOAD_REQUIRED[type]);
      if (!payload) return;
      c.unknownKeys(payload, WEBVIEW_KEYS, p);
      const url = c.buttonUrl(payload.url, `${p}.url`);
      if (url !== undefined && containsUnsubscribePlaceholder(url)) {
        c.err(`${path}.type`, 'unsubscribe_link_placeholder', 'A button that opens {{unsubscribe_link}} must use type unsubscribeLink.');
      }
      c.str(payload.description, `${p}.description`, {});
      c.enumValue(payload.viewMode, `${p}.viewMode`, WEBVIEW_VIEW_MODES);
      return;
    }
    case 'dial': {
      const payload = c.object(action.dialAction, p, true, PAYLOAD_REQUIRED[type]);
      if (!payload) return;
      c.unknownKeys(payload, DIAL_KEYS, p);
      const phone = c.str(payload.phoneNumber, `${p}.phoneNumber`, { required: true, nonBlank: true });
      if (phone === undefined || phone.trim() === '') return;
      const compact = phone.replace(PHONE_PUNCTUATION, '');
      if (!LOOSE_PHONE.test(compact)) {
        c.err(`${p}.phoneNumber`, 'invalid_phone', 'phoneNumber must be a phone number (digits, optional leading +), e.g. +4915112345678.');
      } else if (!compact.startsWith('+')) {
        c.warn(`${p}.phoneNumber`, 'not_e164', 'phoneNumber should be in E.164 form with + and country code, e.g. +4915112345678.');
      }
      return;
    }
    case 'addToCalendar':
    case 'createCalendarEvent': {
      const raw = type === 'addToCalendar' ? action.calendarAction : action.createCalendarEventAction;
      const payload = c.object(raw, p, true, PAYLOAD_REQUIRED[type]);
      if (!payload) return;
      c.unknownKeys(payload, CALENDAR_KEYS, p);
      const start = c.dateTime(payload.startTime, `${p}.startTime`);
      const end = c.dateTime(payload.endTime, `${p}.endTime`);
      if (start !== undefined && end !== undefined && end <= start) {
        c.err(`${p}.endTime`, 'end_before_start', 'endTime must be after startTime.');
      }
      c.str(payload.title, `${p}.title`, { required: true, nonBlank: true });
      c.str(payload.description, `${p}.description`, {});
      return;
    }
    case 'viewLocation': {
      const payload = c.object(action.viewLocationAction, p, true, PAYLOAD_REQUIRED[type]);
      if (!payload) return;
      c.unknownKeys(payload, LOCATION_KEYS, p);
      const latLong = c.object(payload.latLong, `${p}.latLong`, true);
      if (latLong) {
        c.unknownKeys(latLong, LAT_LONG_KEYS, `${p}.latLong`);
        c.number(latLong.latitude, `${p}.latLong.latitude`, -90, 90);
        c.number(latLong.longitude, `${p}.latLong.longitude`, -180, 180);
      }
      c.str(payload.label, `${p}.label`, {});
      return;
    }
    case 'shareLocation': {
      const payload = c.object(action.shareLocationAction, p, false);
      if (payload) c.unknownKeys(payload, NO_KEYS, p);
      return;
    }
    case 'unsubscribe': {
      const payload = c.object(action.unsubscribeAction, p, false);
      if (!payload) return;
      c.unknownKeys(payload, UNSUBSCRIBE_KEYS, p);
      c.str(payload.stopKeyword, `${p}.stopKeyword`, { nonBlank: true });
      return;
    }
  }
}

function checkSmsFallback(v: unknown, c: Checker): SmsFacts | undefined {
  const path = 'smsFallback';
  const fallback = c.object(v, path, false);
  if (!fallback) return undefined;
  c.unknownKeys(fallback, SMS_FALLBACK_KEYS, path);
  // Presence of sendernameId is the send path's business: the sandbox accepts fallbacks without one.
  c.str(fallback.sendernameId, `${path}.sendernameId`, { nonBlank: true });
  const message = c.str(fallback.message, `${path}.message`, { required: true, nonBlank: true, max: SMS_MAX_LENGTH });
  if (message === undefined) return undefined;
  c.mergedText(message, `${path}.message`);
  const facts: SmsFacts = analyzeSms(message);
  if (facts.encoding === 'Unicode') {
    const shown = facts.unicodeCharacters.slice(0, 20);
    const more = facts.unicodeCharacters.length - shown.length;
    const swaps = shown.filter((ch) => GSM_SUBSTITUTES[ch] !== undefined).map((ch) => `${codePointLabel(ch)} → "${GSM_SUBSTITUTES[ch]}"`);
    c.warn(
      `${path}.message`,
      'sms_unicode',
      `These characters force Unicode (UCS-2, ${facts.perSegment} characters per segment instead of ${facts.perSegment === UCS2_SINGLE_SEGMENT_UNITS ? GSM7_SINGLE_SEGMENT_UNITS : GSM7_MULTI_SEGMENT_UNITS}): ` +
        `${shown.map(codePointLabel).join(', ')}${more > 0 ? ` and ${more} more` : ''}.` +
        (swaps.length > 0 ? ` Replace ${swaps.join(', ')} to stay in GSM-7.` : ''),
    );
  }
  if (facts.segments > SMS_MAX_SEGMENTS) {
    c.warn(`${path}.message`, 'sms_many_segments', `The fallback needs ${facts.segments} SMS segments (more than ${SMS_MAX_SEGMENTS}); each is billed.`);
  }
  return facts;
}
