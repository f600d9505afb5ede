import { isRecord } from '../platform/guards.js';

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

function joinNonEmpty(parts: string[], sep: string): string {
  return parts.filter((p) => p !== '').join(sep);
}

function mediaFileUrl(media: unknown): string {
  return isRecord(media) && isRecord(media.contentInfo) ? text(media.contentInfo.fileUrl) : '';
}

/**
 * The flat text of a message for the log's `content` column (§2.7): the text, the card's title
 * and description, each carousel card's, or a media caption, falling back to the media URL.
 * Takes anything and never throws, because log rows are written for rejected sends too.
 */
export function contentSummary(messageType: unknown, content: unknown): string {
  if (!isRecord(content)) return '';
  switch (messageType) {
    case 'text':
    case 'textBasic':
      return text(content.text);
    case 'richCard':
      return joinNonEmpty([text(content.title), text(content.description)], '\n');
    case 'carousel':
      if (!Array.isArray(content.cardContents)) return '';
      return joinNonEmpty(
        content.cardContents.map((card: unknown) => (isRecord(card) ? joinNonEmpty([text(card.title), text(card.description)], '\n') : '')),
        '\n\n',
      );
    case 'media':
    case 'file':
    case 'image':
    case 'video':
    case 'audio':
      return text(content.caption) || text(content.url) || mediaFileUrl(content.media);
    default:
      return text(content.text) || joinNonEmpty([text(content.title), text(content.description)], '\n');
  }
}
