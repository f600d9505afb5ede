/**
 * Every media URL the phone mockup would show for a message, with the JSON path the mockup uses
 * for it (see phone.tsx: CardMedia, MediaMessage) and the kind it would render it as. Pure; used by
 * the pages that must decide, before rendering, which media they load, proxy or replace.
 */
import type { Content, Media, MessageType } from '../../src/content/index.js';
import { mediaKind, type MediaKind, type ReplacedMedia } from './phone.js';

export interface MediaItem {
  /** JSON path of the URL, e.g. `content.cardContents[1].media.contentInfo.fileUrl`. */
  path: string;
  url: string;
  /** How the mockup renders it. */
  kind: MediaKind;
}

function cardMedia(media: Media | undefined, path: string, out: MediaItem[]): void {
  const info = media?.contentInfo;
  if (typeof info?.fileUrl === 'string') out.push({ path: `${path}.contentInfo.fileUrl`, url: info.fileUrl, kind: mediaKind(info.fileUrl, info.contentType, 'image') });
  if (typeof info?.thumbnailUrl === 'string') out.push({ path: `${path}.contentInfo.thumbnailUrl`, url: info.thumbnailUrl, kind: 'image' });
  if (typeof media?.thumbnailUrl === 'string') out.push({ path: `${path}.thumbnailUrl`, url: media.thumbnailUrl, kind: 'image' });
}

/** The media of one message, in the order the mockup draws them. */
export function mediaItems(messageType: MessageType, content: Content | null | undefined): MediaItem[] {
  const out: MediaItem[] = [];
  if (!content || typeof content !== 'object') return out;
  switch (messageType) {
    case 'text':
    case 'textBasic':
      return out;
    case 'richCard':
      cardMedia(content.media, 'content.media', out);
      return out;
    case 'carousel':
      (Array.isArray(content.cardContents) ? content.cardContents : []).forEach((card, i) => cardMedia(card?.media, `content.cardContents[${i}].media`, out));
      return out;
    default: {
      const fallback: MediaKind = messageType === 'video' ? 'video' : messageType === 'audio' ? 'audio' : messageType === 'file' ? 'file' : 'image';
      const byType = (url: string, contentType: string | undefined): MediaKind => (messageType === 'file' ? 'file' : messageType === 'audio' ? 'audio' : mediaKind(url, contentType, fallback));
      if (typeof content.url === 'string') {
        out.push({ path: 'content.url', url: content.url, kind: byType(content.url, undefined) });
        return out;
      }
      const info = content.media?.contentInfo;
      if (typeof info?.fileUrl === 'string') out.push({ path: 'content.media.contentInfo.fileUrl', url: info.fileUrl, kind: byType(info.fileUrl, info.contentType) });
      if (typeof info?.thumbnailUrl === 'string') out.push({ path: 'content.media.contentInfo.thumbnailUrl', url: info.thumbnailUrl, kind: 'image' });
      if (typeof content.media?.thumbnailUrl === 'string') out.push({ path: 'content.media.thumbnailUrl', url: content.media.thumbnailUrl, kind: 'image' });
      return out;
    }
  }
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
