import type { Action, CardContent, Content, Suggestion } from './schemas.js';
import { mergeText, mergeUrl, type MergeContext } from '../merge/merge-text.js';
import { contentItems, valueAt, type ContentKeyPath } from './walk.js';

/**
 * Merges an RCS content object for one recipient (§2.1: text, titles, descriptions, captions and
 * button/chip URLs). Returns a new object sharing every untouched branch with the input, which
 * keeps 10,000-recipient batches cheap; the input is never mutated.
 */
export function mergeContent(content: Content, ctx: MergeContext): Content {
  const out: Content = { ...content };
  if (typeof content.text === 'string') out.text = mergeText(content.text, ctx, 'rcs');
  if (typeof content.title === 'string') out.title = mergeText(content.title, ctx, 'rcs');
  if (typeof content.description === 'string') out.description = mergeText(content.description, ctx, 'rcs');
  if (typeof content.caption === 'string') out.caption = mergeText(content.caption, ctx, 'rcs');
  if (Array.isArray(content.cardActions)) out.cardActions = content.cardActions.map((a) => mergeAction(a, ctx));
  if (Array.isArray(content.cardContents)) out.cardContents = content.cardContents.map((c) => mergeCard(c, ctx));
  if (Array.isArray(content.suggestions)) out.suggestions = content.suggestions.map((s) => mergeSuggestion(s, ctx));
  return out;
}

function mergeCard(card: CardContent, ctx: MergeContext): CardContent {
  const out: CardContent = { ...card };
  if (typeof card.title === 'string') out.title = mergeText(card.title, ctx, 'rcs');
  if (typeof card.description === 'string') out.description = mergeText(card.description, ctx, 'rcs');
  if (Array.isArray(card.cardActions)) out.cardActions = card.cardActions.map((a) => mergeAction(a, ctx));
  return out;
}

function mergeSuggestion(chip: Suggestion, ctx: MergeContext): Suggestion {
  return chip.action === undefined ? chip : { ...chip, action: mergeAction(chip.action, ctx) };
}

function mergeAction(action: Action, ctx: MergeContext): Action {
  let out = action;
  if (typeof action.openUrlAction?.url === 'string' && action.openUrlAction.url.includes('{{')) {
    out = { ...out, openUrlAction: { ...action.openUrlAction, url: mergeUrl(action.openUrlAction.url, ctx) } };
  }
  if (typeof action.openUrlInWebviewAction?.url === 'string' && action.openUrlInWebviewAction.url.includes('{{')) {
    out = {
      ...out,
      openUrlInWebviewAction: { ...action.openUrlInWebviewAction, url: mergeUrl(action.openUrlInWebviewAction.url, ctx) },
    };
  }
  return out;
}

/**
 * One string of an RCS content object that mergeContent fills in and whose literal form holds a
 * placeholder. `at` is the key path into the content (read it back from a merged copy with
 * `readMerged`); `path` is the same as a request path (`content.cardContents[1].title`).
 */
export interface MergedString {
  path: string;
  at: ContentKeyPath;
  /** `url`: a button/chip URL; `unsubscribe`: the URL of an unsubscribeLink action (our own link). */
  kind: 'text' | 'url' | 'unsubscribe';
  literal: string;
  /** The carousel card holding the string, null on the message itself (see ContentItem). */
  card: number | null;
}

/**
 * The strings mergeContent touches that carry a placeholder, in document order: the texts and the
 * action URLs of the content walk (./walk.ts), which are exactly the fields mergeContent merges.
 * Callers validate these per recipient and fingerprint the values put into them, and nothing else
 * of the content changes by merging.
 */
export function mergedStrings(content: Content): MergedString[] {
  const out: MergedString[] = [];
  for (const item of contentItems(content)) {
    if ((item.kind !== 'text' && item.kind !== 'actionUrl') || !item.value.includes('{{')) continue;
    const kind = item.kind === 'text' ? 'text' : item.field === 'openUrlAction' && item.action.type === 'unsubscribeLink' ? 'unsubscribe' : 'url';
    out.push({ path: item.path, at: item.at, kind, literal: item.value, card: item.card });
  }
  return out;
}

/** The value at a MergedString's `at` in a (merged) content object. */
export function readMerged(content: Content, at: ContentKeyPath): unknown {
  return valueAt(content, at);
}
