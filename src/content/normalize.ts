import { UNSUBSCRIBE_PLACEHOLDER } from '../merge/fields.js';
import { isUnsubscribePlaceholder } from '../merge/placeholders.js';
import type { Issue } from './issues.js';
import type { Action, CardContent, Content, Media, Suggestion } from './schemas.js';
import {
  ACTION_PAYLOAD_FIELD,
  ACTION_PAYLOAD_FIELDS,
  CONTENT_FIELDS,
  CONTENT_FIELDS_BY_TYPE,
  DEFAULT_CARD_ORIENTATION,
  DEFAULT_IMAGE_ALIGNMENT,
  DEFAULT_MEDIA_HEIGHT,
  DEFAULT_STOP_KEYWORD,
  DEFAULT_WEBVIEW_VIEW_MODE,
  isActionType,
  isMessageType,
  type MessageType,
} from './vocabulary.js';
import { isRecord } from '../platform/guards.js';


/**
 * Content as renderers and carriers should see it: defaults written out, fields the message
 * type does not use removed (validation warned about them), card media without a file dropped.
 * Expects content that passed validateContent; anything else comes back best-effort, never throws.
 */
export function normalizeContent(messageType: MessageType, content: Content): Content {
  if (!isRecord(content)) return content;
  const used = isMessageType(messageType) ? CONTENT_FIELDS_BY_TYPE[messageType] : CONTENT_FIELDS;
  const out: Record<string, unknown> = {};
  for (const key of used) {
    if (content[key] !== undefined) out[key] = content[key];
  }
  const result = out as Content;

  if (messageType === 'richCard') {
    result.cardOrientation ??= DEFAULT_CARD_ORIENTATION;
    if (result.cardOrientation === 'HORIZONTAL') result.imageAlignment ??= DEFAULT_IMAGE_ALIGNMENT;
    else delete result.imageAlignment;
  }
  if (result.media !== undefined) {
    const cardMedia = messageType === 'richCard';
    const media = normalizeMedia(result.media, cardMedia);
    if (media === undefined) delete result.media;
    else result.media = media;
  }
  if (Array.isArray(result.cardActions)) result.cardActions = result.cardActions.map(normalizeAction);
  if (Array.isArray(result.cardContents)) result.cardContents = result.cardContents.map(normalizeCard);
  if (Array.isArray(result.suggestions)) {
    if (result.suggestions.length === 0) delete result.suggestions;
    else result.suggestions = result.suggestions.map(normalizeSuggestion);
  }
  return result;
}

function normalizeCard(card: CardContent): CardContent {
  if (!isRecord(card)) return card;
  const out: CardContent = { ...card };
  if (out.media !== undefined) {
    const media = normalizeMedia(out.media, true);
    if (media === undefined) delete out.media;
    else out.media = media;
  }
  if (Array.isArray(out.cardActions)) out.cardActions = out.cardActions.map(normalizeAction);
  return out;
}

/** Card media without a file has nothing to show and is removed (§2.1); message media keeps its shape. */
function normalizeMedia(media: Media, onCard: boolean): Media | undefined {
  if (!isRecord(media)) return media;
  const hasFile = isRecord(media.contentInfo) && typeof media.contentInfo.fileUrl === 'string';
  if (onCard && !hasFile) return undefined;
  const out: Media = { ...media, height: media.height ?? DEFAULT_MEDIA_HEIGHT };
  if (isRecord(media.contentInfo)) out.contentInfo = { ...media.contentInfo, forceRefresh: media.contentInfo.forceRefresh ?? false };
  return out;
}

function normalizeSuggestion(chip: Suggestion): Suggestion {
  if (!isRecord(chip) || chip.action === undefined) return chip;
  return { ...chip, action: normalizeAction(chip.action) };
}

function normalizeAction(action: Action): Action {
  if (!isRecord(action) || !isActionType(action.type)) return action;
  const keep = ACTION_PAYLOAD_FIELD[action.type];
  const out: Action = { ...action };
  for (const field of ACTION_PAYLOAD_FIELDS) if (field !== keep) delete out[field];
  if (action.type !== 'postback') delete out.webhookUrl;
  switch (action.type) {
    case 'openUrlInWebview':
      if (isRecord(out.openUrlInWebviewAction)) {
        out.openUrlInWebviewAction = { ...out.openUrlInWebviewAction, viewMode: out.openUrlInWebviewAction.viewMode ?? DEFAULT_WEBVIEW_VIEW_MODE };
      }
      break;
    case 'unsubscribe':
      out.unsubscribeAction = { ...(isRecord(out.unsubscribeAction) ? out.unsubscribeAction : {}) };
      out.unsubscribeAction.stopKeyword ??= DEFAULT_STOP_KEYWORD;
      break;
    case 'shareLocation':
      out.shareLocationAction = {};
      break;
    case 'unsubscribeLink':
      // `{{ unsubscribe_link }}` is the same placeholder; carriers and renderers match the canonical text.
      if (isRecord(out.openUrlAction) && typeof out.openUrlAction.url === 'string' && isUnsubscribePlaceholder(out.openUrlAction.url)) {
        out.openUrlAction = { ...out.openUrlAction, url: UNSUBSCRIBE_PLACEHOLDER };
      }
      break;
    default:
      break;
  }
  return out;
}

/**
 * Spec §2.3: an unsubscribe chip's keyword is corrected to the sender's active trigger
 * (senders.stop_keyword), so the phone sends a word that opts out. Chips without a keyword send the
 * default (STOP) and are corrected too when the sender's trigger is another word. Returns the
 * content with the corrected keywords (a copy; the input is not changed) and one
 * `stop_keyword_corrected` warning per chip corrected. Pure; content that is not a record comes back as is.
 */
export function correctStopKeywords(content: Content, trigger: string): { content: Content; warnings: Issue<'stop_keyword_corrected'>[] } {
  const warnings: Issue<'stop_keyword_corrected'>[] = [];
  const want = trigger.trim().toUpperCase();
  if (!isRecord(content) || !Array.isArray(content.suggestions) || want === '') return { content, warnings };
  let changed = false;
  const suggestions = content.suggestions.map((chip, i) => {
    if (!isRecord(chip) || !isRecord(chip.action) || chip.action.type !== 'unsubscribe') return chip;
    const ua = isRecord(chip.action.unsubscribeAction) ? chip.action.unsubscribeAction : {};
    const sends = typeof ua.stopKeyword === 'string' ? ua.stopKeyword : DEFAULT_STOP_KEYWORD;
    if (sends.trim().toUpperCase() === want) return chip;
    changed = true;
    warnings.push({
      path: `content.suggestions[${i}].action.unsubscribeAction.stopKeyword`,
      code: 'stop_keyword_corrected',
      message: `The unsubscribe chip sends ${sends}, but this sender's opt-out word is ${want}: corrected to ${want}.`,
    });
    return { ...chip, action: { ...chip.action, unsubscribeAction: { ...ua, stopKeyword: want } } };
  });
  return { content: changed ? { ...content, suggestions } : content, warnings };
}
