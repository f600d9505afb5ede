import type { Content, MessageType } from '../content/index.js';
import { parseJson } from '../platform/db/sql.js';
import type { PreviewsTable } from './tables.js';
import { isSampleUrl, PLACEHOLDER_SRC } from '../sandbox/samples.js';
import { mediaItems, replacedMediaOf, type MediaItem } from '../../preview-pages/phone/media-list.js';
import type { ReplacedMedia } from '../../preview-pages/phone/index.js';

/**
 * How the share page (/preview/<slug>) shows media without the person's browser contacting a
 * host the assistant chose (DESIGN §6, issue #27):
 *  - this server's own samples: a same-origin relative path (works on http:// and https:// alike);
 *  - other images: /preview/<slug>/media/<n>, fetched by the server (media-fetch.ts), where n is the
 *    URL's index in shareMediaUrls(row);
 *  - other videos, audio and files: a placeholder naming the host (the URL is printed as text).
 */

interface StoredMessage {
  messageType: MessageType;
  content: Content | null;
}

/** The messages a preview row holds: the content as previewed, then each sample's merged content. */
function messagesOf(row: Pick<PreviewsTable, 'kind' | 'payload' | 'estimate'>): StoredMessage[] {
  if (row.kind === 'sms') return [];
  const payload = parseJson<Record<string, unknown>>(row.payload, {});
  const messageType = payload.messageType as MessageType;
  const out: StoredMessage[] = [{ messageType, content: (payload.content as Content | undefined) ?? null }];
  const estimate = parseJson<{ samples?: { messageType?: MessageType | null; content?: Content | null }[] } | null>(row.estimate, null);
  for (const s of estimate?.samples ?? []) if (s.content) out.push({ messageType: s.messageType ?? messageType, content: s.content });
  return out;
}

function itemsOf(row: Pick<PreviewsTable, 'kind' | 'payload' | 'estimate'>): MediaItem[] {
  return messagesOf(row).flatMap((m) => mediaItems(m.messageType, m.content));
}

/** Every distinct media URL stored in the preview, in a stable order: the index space of the media route. */
export function shareMediaUrls(row: Pick<PreviewsTable, 'kind' | 'payload' | 'estimate'>): string[] {
  return [...new Set(itemsOf(row).map((m) => m.url))];
}

export const shareMediaPath = (slug: string, index: number): string => `/preview/${slug}/media/${index}`;

export interface ShareMedia {
  /** Page source of a media URL (see the module comment). */
  src: (url: string) => string;
  /** Media shown as a placeholder naming its host, by JSON path. */
  replaced: ReplacedMedia[];
}

/** The media plan of one preview's share page. */
export function shareMedia(row: Pick<PreviewsTable, 'kind' | 'payload' | 'estimate' | 'slug'>, publicUrl: string): ShareMedia {
  const items = itemsOf(row);
  const index = new Map(shareMediaUrls(row).map((u, i) => [u, i]));
  const own = (url: string) => isSampleUrl(url, publicUrl);
  const images = new Set(items.filter((m) => m.kind === 'image').map((m) => m.url));
  return {
    src: (url) => {
      if (own(url)) return new URL(url).pathname;
      const i = index.get(url);
      return i !== undefined && images.has(url) ? shareMediaPath(row.slug, i) : PLACEHOLDER_SRC;
    },
    replaced: dedupe(replacedMediaOf(items, (m) => own(m.url) || m.kind === 'image')),
  };
}

function dedupe(list: ReplacedMedia[]): ReplacedMedia[] {
  const seen = new Map<string, ReplacedMedia>();
  for (const r of list) if (!seen.has(r.path)) seen.set(r.path, r);
  return [...seen.values()];
}
