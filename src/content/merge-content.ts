import type { Action, CardContent, Content, Suggestion } from './schemas.js';
import { mergeText, mergeUrl, type MergeContext } from '../merge/merge-text.js';

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
  at: readonly (string | number)[];
  /** `url`: a button/chip URL; `unsubscribe`: the URL of an unsubscribeLink action (our own link). */
  kind: 'text' | 'url' | 'unsubscribe';
  literal: string;
}

/**
 * The strings mergeContent touches that carry a placeholder, in a fixed order. Kept beside
 * mergeContent so the two walk the same fields: callers validate these per recipient and
 * fingerprint the values put into them, and nothing else of the content changes by merging.
 */
export function mergedStrings(content: Content): MergedString[] {
  const out: MergedString[] = [];
  const text = (v: unknown, at: (string | number)[]) => {
    if (typeof v === 'string' && v.includes('{{')) out.push({ path: pathOf(at), at, kind: 'text', literal: v });
  };
  const actions = (list: unknown, at: (string | number)[]) => {
    if (!Array.isArray(list)) return;
    list.forEach((a: Action, i) => action(a, [...at, i]));
  };
  const action = (a: Action | undefined, at: (string | number)[]) => {
    if (typeof a !== 'object' || a === null) return;
    const open = a.openUrlAction?.url;
    if (typeof open === 'string' && open.includes('{{')) {
      out.push({ path: pathOf([...at, 'openUrlAction', 'url']), at: [...at, 'openUrlAction', 'url'], kind: a.type === 'unsubscribeLink' ? 'unsubscribe' : 'url', literal: open });
    }
    const webview = a.openUrlInWebviewAction?.url;
    if (typeof webview === 'string' && webview.includes('{{')) {
      out.push({ path: pathOf([...at, 'openUrlInWebviewAction', 'url']), at: [...at, 'openUrlInWebviewAction', 'url'], kind: 'url', literal: webview });
    }
  };
  for (const key of ['text', 'title', 'description', 'caption'] as const) text(content[key], [key]);
  actions(content.cardActions, ['cardActions']);
  if (Array.isArray(content.cardContents)) {
    content.cardContents.forEach((card: CardContent, i) => {
      if (typeof card !== 'object' || card === null) return;
      text(card.title, ['cardContents', i, 'title']);
      text(card.description, ['cardContents', i, 'description']);
      actions(card.cardActions, ['cardContents', i, 'cardActions']);
    });
  }
  if (Array.isArray(content.suggestions)) content.suggestions.forEach((s: Suggestion, i) => action(s?.action, ['suggestions', i, 'action']));
  return out;
}

/** The value at a MergedString's `at` in a (merged) content object. */
export function readMerged(content: Content, at: readonly (string | number)[]): unknown {
  let v: unknown = content;
  for (const k of at) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

function pathOf(at: readonly (string | number)[]): string {
  let p = 'content';
  for (const k of at) p += typeof k === 'number' ? `[${k}]` : `.${k}`;
  return p;
}
