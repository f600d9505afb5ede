/**
 * The one walk over message content (issue #32): every text, button, action, action URL and
 * media URL of a content object, each with its key path and its request path, in the order they
 * appear in the content. Code that visits content (merge, merge checks, the sandbox, webhooks,
 * the carriers, the virtual phone, the in-chat view) asks this walk instead of spelling out
 * `cardContents[i].cardActions[j]` itself, so a new content field is taught here once.
 *
 * The walk is structural: it visits every field present, whatever the message type uses, because
 * stored content is read back as written. Pass the message type to visit only the fields that
 * type uses (§2.1 table, CONTENT_FIELDS_BY_TYPE). It reads defensively (stored JSON may hold
 * anything): a value of the wrong shape is skipped, never thrown on.
 */
import { isRecord } from '../platform/guards.js';
import type { Action, CardContent, Content, SuggestedReply, Suggestion } from './schemas.js';
import { CONTENT_FIELDS_BY_TYPE, type ActionPlacement, type ContentField, type MediaContentType, type MessageType } from './vocabulary.js';

/** A key path into a content object: `['cardContents', 1, 'title']`. */
export type ContentKeyPath = readonly (string | number)[];

interface Place {
  /** Key path into the content object (read with `valueAt`, write a copy with `withValueAt`). */
  at: ContentKeyPath;
  /** The same as a request path: `content.cardContents[1].title`. */
  path: string;
  /** Index of the carousel card holding the item; null on the message itself (a rich card's own fields). */
  card: number | null;
}

/** The texts the person reads and merge fills in. */
export type TextField = 'text' | 'title' | 'description' | 'caption';

export interface TextItem extends Place {
  kind: 'text';
  field: TextField;
  value: string;
}

/**
 * A media URL: the message's `url`, or `fileUrl` / `thumbnailUrl` of a media object (the file's
 * thumbnail under `contentInfo`, or the placeholder image beside it; `path` tells them apart).
 */
export interface MediaItem extends Place {
  kind: 'media';
  field: 'url' | 'fileUrl' | 'thumbnailUrl';
  value: string;
  /** `contentInfo.contentType`, on a fileUrl item that has one. */
  contentType: MediaContentType | undefined;
}

/** A chip (reply and/or action as written; a valid chip has exactly one) or a card button. */
export type ButtonItem = Place & { kind: 'button'; index: number } & (
    | { placement: 'chip'; reply: SuggestedReply | undefined; action: Action | undefined }
    | { placement: 'cardButton'; reply: undefined; action: Action }
  );

/** The action of a chip (`…suggestions[i].action`) or a card button (the button itself). */
export interface ActionItem extends Place {
  kind: 'action';
  placement: ActionPlacement;
  action: Action;
}

/** A URL an action opens: `openUrlAction.url` (openUrl, unsubscribeLink) or `openUrlInWebviewAction.url`. */
export interface ActionUrlItem extends Place {
  kind: 'actionUrl';
  placement: ActionPlacement;
  field: 'openUrlAction' | 'openUrlInWebviewAction';
  value: string;
  action: Action;
}

export type ContentItem = TextItem | MediaItem | ButtonItem | ActionItem | ActionUrlItem;

const TEXT_FIELDS: readonly TextField[] = ['text', 'title', 'description', 'caption'];
const CARD_TEXT_FIELDS: readonly TextField[] = ['title', 'description'];
const URL_PAYLOADS = ['openUrlAction', 'openUrlInWebviewAction'] as const;

/** `['cardContents', 1, 'title']` → `content.cardContents[1].title`. */
export function contentPath(at: ContentKeyPath): string {
  let p = 'content';
  for (const k of at) p += typeof k === 'number' ? `[${k}]` : `.${k}`;
  return p;
}

/**
 * Every item of a content object, in document order: the message's texts, its url and media, its
 * card buttons, then each carousel card (title, description, media, buttons), then the chips. A
 * button comes before its action, an action before its URLs.
 */
export function contentItems(content: Content, messageType?: MessageType): ContentItem[] {
  const out: ContentItem[] = [];
  if (!isRecord(content)) return out;
  const uses: ReadonlySet<ContentField> | null = messageType === undefined ? null : new Set(CONTENT_FIELDS_BY_TYPE[messageType]);
  const used = (field: ContentField) => uses === null || uses.has(field);
  const place = (at: ContentKeyPath, card: number | null): Place => ({ at, path: contentPath(at), card });

  const texts = (holder: Record<string, unknown>, fields: readonly TextField[], prefix: ContentKeyPath, card: number | null) => {
    for (const field of fields) {
      const value = holder[field];
      if ((card !== null || used(field)) && typeof value === 'string') out.push({ kind: 'text', field, value, ...place([...prefix, field], card) });
    }
  };
  const media = (m: unknown, at: ContentKeyPath, card: number | null) => {
    if (!isRecord(m)) return;
    const info = m.contentInfo;
    if (isRecord(info)) {
      if (typeof info.fileUrl === 'string') {
        const contentType = typeof info.contentType === 'string' ? (info.contentType as MediaContentType) : undefined;
        out.push({ kind: 'media', field: 'fileUrl', value: info.fileUrl, contentType, ...place([...at, 'contentInfo', 'fileUrl'], card) });
      }
      if (typeof info.thumbnailUrl === 'string') {
        out.push({ kind: 'media', field: 'thumbnailUrl', value: info.thumbnailUrl, contentType: undefined, ...place([...at, 'contentInfo', 'thumbnailUrl'], card) });
      }
    }
    if (typeof m.thumbnailUrl === 'string') out.push({ kind: 'media', field: 'thumbnailUrl', value: m.thumbnailUrl, contentType: undefined, ...place([...at, 'thumbnailUrl'], card) });
  };
  const action = (a: Action, at: ContentKeyPath, placement: ActionPlacement, card: number | null) => {
    out.push({ kind: 'action', placement, action: a, ...place(at, card) });
    for (const field of URL_PAYLOADS) {
      const payload: unknown = a[field];
      if (isRecord(payload) && typeof payload.url === 'string') {
        out.push({ kind: 'actionUrl', placement, field, value: payload.url, action: a, ...place([...at, field, 'url'], card) });
      }
    }
  };
  const cardButtons = (list: unknown, prefix: ContentKeyPath, card: number | null) => {
    if (!Array.isArray(list)) return;
    list.forEach((a: unknown, index) => {
      if (!isRecord(a)) return;
      const at = [...prefix, index];
      out.push({ kind: 'button', placement: 'cardButton', index, reply: undefined, action: a as Action, ...place(at, card) });
      action(a as Action, at, 'cardButton', card);
    });
  };

  texts(content, TEXT_FIELDS, [], null);
  if (used('url') && typeof content.url === 'string') out.push({ kind: 'media', field: 'url', value: content.url, contentType: undefined, ...place(['url'], null) });
  if (used('media')) media(content.media, ['media'], null);
  if (used('cardActions')) cardButtons(content.cardActions, ['cardActions'], null);
  if (used('cardContents') && Array.isArray(content.cardContents)) {
    content.cardContents.forEach((c: unknown, i) => {
      if (!isRecord(c)) return;
      const card = c as CardContent;
      texts(card, CARD_TEXT_FIELDS, ['cardContents', i], i);
      media(card.media, ['cardContents', i, 'media'], i);
      cardButtons(card.cardActions, ['cardContents', i, 'cardActions'], i);
    });
  }
  if (used('suggestions') && Array.isArray(content.suggestions)) {
    content.suggestions.forEach((s: unknown, index) => {
      if (!isRecord(s)) return;
      const chip = s as Suggestion;
      const at = ['suggestions', index];
      const reply = isRecord(chip.reply) ? chip.reply : undefined;
      const a = isRecord(chip.action) ? chip.action : undefined;
      out.push({ kind: 'button', placement: 'chip', index, reply, action: a, ...place(at, null) });
      if (a) action(a, [...at, 'action'], 'chip', null);
    });
  }
  return out;
}

/**
 * The card an item is drawn on, numbered as the phone shows a message's cards: a rich card is
 * card 0 (its own fields), a carousel's cards are 0…n−1. Null when the item is on no card of this
 * type (the chips, a carousel's own fields, anything of a text or media message).
 */
export function shownCardOf(messageType: string | undefined, item: ContentItem): number | null {
  if (messageType === 'richCard') return item.card === null && item.at[0] !== 'suggestions' ? 0 : null;
  if (messageType === 'carousel') return item.card;
  return null;
}

/** How many cards the phone shows for a message: one for a rich card, a carousel's cards, else none. */
export function shownCardCount(messageType: string | undefined, content: Content): number {
  if (messageType === 'richCard') return 1;
  if (messageType === 'carousel' && isRecord(content) && Array.isArray(content.cardContents)) return content.cardContents.length;
  return 0;
}

/** The value at a key path of a content object (undefined where the path leads nowhere). */
export function valueAt(content: Content, at: ContentKeyPath): unknown {
  let v: unknown = content;
  for (const k of at) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/**
 * A copy of the content with `value` at the key path: the objects and arrays along the path are
 * copied, every other branch is shared with the input, which is never mutated. The path must lead
 * through existing objects (an item's `at` does).
 */
export function withValueAt(content: Content, at: ContentKeyPath, value: unknown): Content {
  const set = (node: unknown, depth: number): unknown => {
    if (depth === at.length) return value;
    const key = at[depth]!;
    if (Array.isArray(node)) {
      const copy = [...(node as unknown[])];
      copy[key as number] = set(copy[key as number], depth + 1);
      return copy;
    }
    const obj = (isRecord(node) ? node : {}) as Record<string | number, unknown>;
    return { ...obj, [key]: set(obj[key], depth + 1) };
  };
  return set(content, 0) as Content;
}
