/**
 * Every media URL the phone mockup would show for a message, with the JSON path the mockup uses
 * for it (see phone.tsx: CardMedia, MediaMessage) and the kind it would render it as. Pure; used by
 * the pages that must decide, before rendering, which media they load, proxy or replace.
 */
import type { Content, MessageType } from '../../src/content/index.js';
import { contentItems } from '../../src/content/walk.js';
import { mediaKind, type MediaKind, type ReplacedMedia } from './phone.js';

export interface MediaItem {
  /** JSON path of the URL, e.g. `content.cardContents[1].media.contentInfo.fileUrl`. */
  path: string;
  url: string;
  /** How the mockup renders it. */
  kind: MediaKind;
}

/** The media of one message, in the order the mockup draws them (the content walk's order). */
export function mediaItems(messageType: MessageType, content: Content | null | undefined): MediaItem[] {
  if (!content || typeof content !== 'object') return [];
  // Only the fields the type uses: a text message draws no media, a rich card its own, a carousel its cards'.
  const found = contentItems(content, messageType).flatMap((i) => (i.kind === 'media' ? [i] : []));
  if (messageType === 'richCard' || messageType === 'carousel') {
    return found.map((i) => ({ path: i.path, url: i.value, kind: i.field === 'fileUrl' ? mediaKind(i.value, i.contentType, 'image') : 'image' }));
  }
  const fallback: MediaKind = messageType === 'video' ? 'video' : messageType === 'audio' ? 'audio' : messageType === 'file' ? 'file' : 'image';
  const byType = (url: string, contentType: string | undefined): MediaKind => (messageType === 'file' ? 'file' : messageType === 'audio' ? 'audio' : mediaKind(url, contentType, fallback));
  // A media message draws `url` when it has one, else its media object.
  const url = found.find((i) => i.field === 'url');
  if (url) return [{ path: url.path, url: url.value, kind: byType(url.value, undefined) }];
  return found.map((i) => ({ path: i.path, url: i.value, kind: i.field === 'fileUrl' ? byType(i.value, i.contentType) : 'image' }));
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host || 'an unknown host';
  } catch {
    return 'an invalid address';
  }
}

/**
 * The media a page shows as a placeholder naming the host instead of loading it: every item
 * `keep` does not accept (keep: this server's own files, or images the page proxies).
 */
export function replacedMediaOf(items: readonly MediaItem[], keep: (item: MediaItem) => boolean): ReplacedMedia[] {
  return items.filter((m) => !keep(m)).map((m) => ({ path: m.path, host: hostOf(m.url) }));
}
