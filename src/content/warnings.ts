/**
 * Warnings: content that is legal but probably not what the sender meant (§2.1 dropped fields,
 * card media without a file, merge placeholders that will not be replaced, http links, SMS
 * fallbacks that turn into Unicode or many segments). Not schema rules: nothing here makes
 * content invalid. Computed from the content as parsed; it reads every value defensively, so the
 * same warnings accompany errors when the content did not parse.
 */
import { BUILTIN_MERGE_FIELD_SET } from '../merge/fields.js';
import { findMalformedPlaceholders, findPlaceholders, startsWithPlaceholder } from '../merge/placeholders.js';
import { isRecord } from '../platform/guards.js';
import { textWarnings } from './text-risks.js';
import { analyzeSms } from '../sms/analyze.js';
import type { ContentWarningCode, Issue, SmsFacts } from './issues.js';
import { GSM7_MULTI_SEGMENT_UNITS, GSM7_SINGLE_SEGMENT_UNITS, SMS_MAX_SEGMENTS, UCS2_SINGLE_SEGMENT_UNITS } from './limits.js';
import { loosePhone } from './schemas.js';
import {
  ACTION_PAYLOAD_FIELD,
  ACTION_PAYLOAD_FIELDS,
  CONTENT_FIELDS,
  CONTENT_FIELDS_BY_TYPE,
  DEFAULT_MEDIA_HEIGHT,
  MEDIA_CONTENT_TYPES,
  MEDIA_HEIGHTS,
  isActionType,
  type ContentField,
  type MessageType,
} from './vocabulary.js';

/** Arrays longer than their limit are errors; warnings look at no more than this many items. */
const ITEM_INSPECTION_CAP = 100;
const ISSUE_CAP = 200;
const ALL_FIELDS: ReadonlySet<ContentField> = new Set(CONTENT_FIELDS);
const USES = new Map<MessageType | null, ReadonlySet<ContentField>>(
  Object.entries(CONTENT_FIELDS_BY_TYPE).map(([t, fields]) => [t as MessageType, new Set(fields)]),
);
const MEDIA_MESSAGE_TYPES: ReadonlySet<MessageType> = new Set(['media', 'file', 'image', 'video', 'audio']);

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

const isOneOf = <T extends string>(v: unknown, values: readonly T[]): v is T => typeof v === 'string' && (values as readonly string[]).includes(v);

function leaf(path: string): string {
  const dot = path.lastIndexOf('.');
  return (dot === -1 ? path : path.slice(dot + 1)).replace(/\[\d+\]$/, '');
}

function codePointLabel(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  return `"${ch}" (U+${cp.toString(16).toUpperCase().padStart(4, '0')})`;
}

function httpUrl(s: string): URL | null {
  try {
    const url = new URL(s);
    return url.hostname !== '' && (url.protocol === 'https:' || url.protocol === 'http:') ? url : null;
  } catch {
    return null;
  }
}

/** What happens to an unknown placeholder: RCS content keeps it as written, standalone SMS (§2.13 rule 2) empties it. */
const UNKNOWN_PLACEHOLDER_FATE = {
  rcs: 'it will not be replaced in RCS and becomes empty in SMS',
  sms: 'it becomes empty when sent',
} as const;

/**
 * The one rule for placeholders in merged text (RCS content, SMS fallbacks, standalone SMS and SMS templates):
 * `unknown_merge_field` for a name that is neither a built-in nor one of the account's custom-field tags
 * (`knownMergeFields`; null: none known), `malformed_placeholder` for braces that are no placeholder.
 */
export function placeholderWarnings(v: unknown, path: string, knownMergeFields: ReadonlySet<string> | null, channel: 'rcs' | 'sms'): Issue<ContentWarningCode>[] {
  if (typeof v !== 'string' || (!v.includes('{{') && !v.includes('}}'))) return [];
  const out: Issue<ContentWarningCode>[] = [];
  for (const name of findPlaceholders(v)) {
    if (!BUILTIN_MERGE_FIELD_SET.has(name) && !knownMergeFields?.has(name)) {
      out.push({ path, code: 'unknown_merge_field', message: `{{${name}}} is neither a built-in merge field nor a custom field of this account; ${UNKNOWN_PLACEHOLDER_FATE[channel]}.` });
    }
  }
  for (const fragment of findMalformedPlaceholders(v)) {
    out.push({ path, code: 'malformed_placeholder', message: `"${fragment}" is not a valid placeholder ({{name}}, letters, digits and _); it will be sent as written.` });
  }
  return out;
}

/**
 * The warnings of a standalone SMS text (sms_preview, POST /previews/send-sms): its placeholders, as RCS
 * content gets them, and hidden or look-alike characters. Its encoding and segments are the dry run's.
 */
export function smsTextWarnings(message: unknown, knownMergeFields: ReadonlySet<string> | null, path = 'message'): Issue<ContentWarningCode>[] {
  const out = placeholderWarnings(message, path, knownMergeFields, 'sms');
  for (const t of textWarnings(message, path)) out.push({ path: t.path, code: t.code, message: t.message });
  return out.slice(0, ISSUE_CAP);
}

class Warnings {
  readonly list: Issue<ContentWarningCode>[] = [];

  constructor(private readonly knownMergeFields: ReadonlySet<string> | null) {}

  add(path: string, code: ContentWarningCode, message: string): void {
    if (this.list.length < ISSUE_CAP) this.list.push({ path, code, message });
  }

  /** Fields §2.13 merges: unknown and malformed placeholders. */
  merged(v: unknown, path: string): void {
    for (const i of placeholderWarnings(v, path, this.knownMergeFields, 'rcs')) this.add(i.path, i.code, i.message);
  }

  /** Fields sent verbatim although a placeholder in them looks intentional. */
  unmerged(v: unknown, path: string): void {
    if (typeof v === 'string' && v.includes('{{') && findPlaceholders(v).length > 0) {
      this.add(path, 'placeholder_not_merged', `Placeholders are not replaced in ${leaf(path)}; it is sent exactly as written.`);
    }
  }

  buttonUrl(v: unknown, path: string): void {
    if (typeof v !== 'string') return;
    this.merged(v, path);
    if (startsWithPlaceholder(v) || v.slice(0, 5).toLowerCase() !== 'http:') return;
    if (httpUrl(v.replace(/\{\{[^}]*\}\}/g, 'x'))) this.add(path, 'insecure_url', `${leaf(path)} is not HTTPS; some devices refuse or warn about plain http links.`);
  }

  webhookUrl(v: unknown, path: string): void {
    if (typeof v === 'string' && v.slice(0, 5).toLowerCase() === 'http:' && httpUrl(v)) this.add(path, 'insecure_url', 'webhookUrl is not HTTPS; click data would travel unencrypted.');
  }
}

/** How many items of an array to look at (0 for a non-array). */
function count(v: unknown): number {
  return Array.isArray(v) ? Math.min(v.length, ITEM_INSPECTION_CAP) : 0;
}

/** Card media (rich card, carousel card); returns the height it renders with, or null without a file. */
function cardMedia(media: unknown, path: string, w: Warnings): string | null {
  if (!isRecord(media)) return null;
  const hasFile = isRecord(media.contentInfo) && typeof media.contentInfo.fileUrl === 'string';
  if (!hasFile) {
    w.add(path, 'media_dropped', 'media has no contentInfo.fileUrl; the card is sent without media.');
    return null;
  }
  if (media.height === undefined) {
    w.add(`${path}.height`, 'media_height_missing', `media.height is missing; ${DEFAULT_MEDIA_HEIGHT} is applied.`);
    return DEFAULT_MEDIA_HEIGHT;
  }
  return isOneOf(media.height, MEDIA_HEIGHTS) ? media.height : null;
}

function action(a: unknown, path: string, w: Warnings): void {
  if (!isRecord(a)) return;
  w.unmerged(a.text, `${path}.text`);
  w.unmerged(a.postbackData, `${path}.postbackData`);
  w.webhookUrl(a.webhookUrl, `${path}.webhookUrl`);
  if (!isActionType(a.type)) return;
  const type = a.type;
  const payloadField = ACTION_PAYLOAD_FIELD[type];
  for (const field of ACTION_PAYLOAD_FIELDS) {
    if (field !== payloadField && a[field] !== undefined) w.add(`${path}.${field}`, 'field_ignored', `${field} is not used by ${type} actions and is dropped.`);
  }
  if (a.webhookUrl !== undefined && type !== 'postback') w.add(`${path}.webhookUrl`, 'field_ignored', 'webhookUrl is only used by postback actions.');
  const payload = payloadField === null ? undefined : a[payloadField];
  if (!isRecord(payload)) return;
  const p = `${path}.${payloadField}`;
  if (type === 'openUrl' || type === 'openUrlInWebview') w.buttonUrl(payload.url, `${p}.url`);
  if (type === 'dial' && typeof payload.phoneNumber === 'string') {
    const phone = loosePhone(payload.phoneNumber);
    if (phone !== null && !phone.startsWith('+')) {
      w.add(`${p}.phoneNumber`, 'not_e164', 'phoneNumber should be in E.164 form with + and country code, e.g. +4915112345678.');
    }
  }
}

function cardActions(v: unknown, path: string, w: Warnings): void {
  const n = count(v);
  for (let i = 0; i < n; i++) action((v as unknown[])[i], `${path}[${i}]`, w);
}

function suggestions(v: unknown, w: Warnings): void {
  const path = 'content.suggestions';
  if (Array.isArray(v) && v.length === 0) w.add(path, 'empty_suggestions', 'suggestions is an empty array; omit it.');
  const n = count(v);
  for (let i = 0; i < n; i++) {
    const chip = (v as unknown[])[i];
    if (!isRecord(chip)) continue;
    const at = `${path}[${i}]`;
    if (isRecord(chip.reply)) {
      w.unmerged(chip.reply.text, `${at}.reply.text`);
      w.unmerged(chip.reply.postbackData, `${at}.reply.postbackData`);
      w.webhookUrl(chip.reply.webhookUrl, `${at}.reply.webhookUrl`);
    }
    action(chip.action, `${at}.action`, w);
  }
}

function carousel(v: unknown, w: Warnings): void {
  const path = 'content.cardContents';
  const heights = new Set<string>();
  const n = count(v);
  for (let i = 0; i < n; i++) {
    const card = (v as unknown[])[i];
    if (!isRecord(card)) continue;
    const at = `${path}[${i}]`;
    w.merged(card.title, `${at}.title`);
    w.merged(card.description, `${at}.description`);
    if (card.media !== undefined) {
      const height = cardMedia(card.media, `${at}.media`, w);
      if (height !== null) heights.add(height);
    }
    cardActions(card.cardActions, `${at}.cardActions`, w);
  }
  if (heights.size > 1) w.add(path, 'mixed_media_heights', `Carousel cards use different media heights (${[...heights].join(', ')}); cards render unevenly.`);
}

function content(type: MessageType | null, c: unknown, w: Warnings): void {
  if (!isRecord(c)) return;
  const used: readonly ContentField[] = type ? CONTENT_FIELDS_BY_TYPE[type] : CONTENT_FIELDS;
  const uses = USES.get(type) ?? ALL_FIELDS;
  for (const key of Object.keys(c)) {
    if (!isOneOf(key, CONTENT_FIELDS) || uses.has(key) || (type === 'textBasic' && key === 'suggestions')) continue;
    w.add(`content.${key}`, 'field_ignored', `${key} is not used by ${type ?? 'this'} messages and is dropped (used: ${used.join(', ')}).`);
  }
  for (const field of ['text', 'title', 'description', 'caption'] as const) if (uses.has(field)) w.merged(c[field], `content.${field}`);
  if (type === 'richCard' && c.imageAlignment !== undefined && c.cardOrientation !== 'HORIZONTAL') {
    w.add('content.imageAlignment', 'field_ignored', 'imageAlignment only applies to HORIZONTAL cards; it is dropped.');
  }
  const mediaMessage = type !== null && MEDIA_MESSAGE_TYPES.has(type);
  if (uses.has('media') && c.media !== undefined) {
    if (!mediaMessage) cardMedia(c.media, 'content.media', w);
    else if (type === 'image' || type === 'video' || type === 'audio') {
      const info = isRecord(c.media) ? c.media.contentInfo : undefined;
      const contentType = isRecord(info) ? info.contentType : undefined;
      if (isOneOf(contentType, MEDIA_CONTENT_TYPES) && !contentType.startsWith(`${type}/`)) {
        w.add('content.media.contentInfo.contentType', 'content_type_mismatch', `${contentType} does not look like ${type === 'audio' ? 'an' : 'a'} ${type} for a ${type} message.`);
      }
    }
  }
  if (uses.has('cardActions')) cardActions(c.cardActions, 'content.cardActions', w);
  if (uses.has('cardContents')) carousel(c.cardContents, w);
  if (uses.has('suggestions')) suggestions(c.suggestions, w);
}

/** What an SMS fallback message costs as written (placeholders unresolved), or undefined. */
export function smsFactsOf(smsFallback: unknown): SmsFacts | undefined {
  return isRecord(smsFallback) && typeof smsFallback.message === 'string' ? analyzeSms(smsFallback.message) : undefined;
}

function smsFallback(v: unknown, facts: SmsFacts | undefined, w: Warnings): void {
  if (!isRecord(v)) return;
  const path = 'smsFallback.message';
  w.merged(v.message, path);
  if (!facts) return;
  if (facts.encoding === 'Unicode') {
    const shown = facts.unicodeCharacters.slice(0, 20);
    const more = facts.unicodeCharacters.length - shown.length;
    const swaps = shown.filter((ch) => GSM_SUBSTITUTES[ch] !== undefined).map((ch) => `${codePointLabel(ch)} → "${GSM_SUBSTITUTES[ch]}"`);
    w.add(
      path,
      'sms_unicode',
      `These characters force Unicode (UCS-2, ${facts.perSegment} characters per segment instead of ${facts.perSegment === UCS2_SINGLE_SEGMENT_UNITS ? GSM7_SINGLE_SEGMENT_UNITS : GSM7_MULTI_SEGMENT_UNITS}): ` +
        `${shown.map(codePointLabel).join(', ')}${more > 0 ? ` and ${more} more` : ''}.` +
        (swaps.length > 0 ? ` Replace ${swaps.join(', ')} to stay in GSM-7.` : ''),
    );
  }
  if (facts.segments > SMS_MAX_SEGMENTS) {
    w.add(path, 'sms_many_segments', `The fallback needs ${facts.segments} SMS segments (more than ${SMS_MAX_SEGMENTS}); each is billed.`);
  }
}

export interface WarningInput {
  /** null when messageType is not one of the nine: every field is then looked at. */
  messageType: MessageType | null;
  content: unknown;
  smsFallback?: unknown;
  /** The account's custom-field tags; placeholders outside these and the built-ins are warned about. */
  knownMergeFields?: ReadonlySet<string> | null;
  /** The fallback's SMS facts when the caller has them already. */
  sms?: SmsFacts;
}

/** The warnings of a message, in the order its fields are read. */
export function contentWarnings(input: WarningInput): Issue<ContentWarningCode>[] {
  const w = new Warnings(input.knownMergeFields ?? null);
  content(input.messageType, input.content, w);
  smsFallback(input.smsFallback, input.sms ?? smsFactsOf(input.smsFallback), w);
  // Hidden and look-alike text: the same rules as merged values on the share page (text-risks.ts).
  for (const t of textWarnings(input.content, 'content')) w.add(t.path, t.code, t.message);
  if (isRecord(input.smsFallback)) for (const t of textWarnings(input.smsFallback.message, 'smsFallback.message')) w.add(t.path, t.code, t.message);
  return w.list;
}
