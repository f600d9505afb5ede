/**
 * The phone mockup: renders normalized RCS content (and an SMS fallback) the way a recipient's
 * messaging app shows it. Server-rendered with Preact, so every string is escaped by
 * construction; no script and no inline style (the CSP forbids both): layout is the classes of
 * the "Phone mockup" section of assets/app.css, and the carousel and chip rows scroll with CSS
 * scroll-snap, so they swipe without JavaScript.
 *
 * Reused by the sandbox share page, the approval page and the virtual phone. Buttons and chips
 * are deliberately not links: a preview must not turn sender-supplied URLs into clickable links
 * on this server's pages. Each names its target in a tooltip; where a person decides whether it
 * goes out (the approval page), the targets and media URLs are also printed as text beside them.
 */
import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import type { Action, CardContent, Content, Media, MessageType, Suggestion } from '../../src/content/index.js';
import { Icon, type IconName } from './icons.js';
import { linkView, visibleText } from '../../src/content/text-risks.js';

/** Media the page must not load (foreign URLs in the sandbox): JSON path of the URL → its host. */
export interface ReplacedMedia {
  path: string;
  host: string;
}

/** How media URLs become page sources; built once per message by mediaResolver(). */
export interface MediaResolver {
  /** The src the page loads for a URL (e.g. this server's samples as relative paths). */
  src(url: string): string;
  /** The host when the URL at this JSON path was replaced by a placeholder, else null. */
  replacedHost(path: string): string | null;
}

export function mediaResolver(opts: { replacedMedia?: readonly ReplacedMedia[] | undefined; mediaSrc?: ((url: string) => string) | undefined } = {}): MediaResolver {
  const replaced = new Map((opts.replacedMedia ?? []).map((r) => [r.path, r.host]));
  const map = opts.mediaSrc ?? ((u: string) => u);
  return { src: (url) => safeSrc(map(url)), replacedHost: (path) => replaced.get(path) ?? null };
}

/**
 * Only https:, http: and same-origin paths reach a src attribute; anything else (javascript:,
 * data:, protocol-relative) becomes an empty src. Validation already demands HTTPS media; this
 * keeps the renderer safe for callers that render unvalidated content.
 */
export function safeSrc(url: string): string {
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : '';
  } catch {
    return '';
  }
}

export type MediaKind = 'image' | 'video' | 'audio' | 'file';

/** Kind of a media URL: contentType first, then the file extension, then the fallback. */
export function mediaKind(url: string | undefined, contentType: string | undefined, fallback: MediaKind): MediaKind {
  if (contentType?.startsWith('image/')) return 'image';
  if (contentType?.startsWith('video/')) return 'video';
  if (contentType?.startsWith('audio/')) return 'audio';
  let ext = '';
  try {
    ext = (new URL(url ?? '', 'https://x.invalid').pathname.match(/\.([A-Za-z0-9]+)$/)?.[1] ?? '').toLowerCase();
  } catch {
    ext = '';
  }
  if (/^(png|jpe?g|gif|webp|bmp|svg)$/.test(ext)) return 'image';
  if (/^(mp4|m4v|webm|mpe?g|3gp|h263|mov)$/.test(ext)) return 'video';
  if (/^(mp3|m4a|aac|ogg|oga|opus|wav|amr|flac)$/.test(ext)) return 'audio';
  if (ext !== '') return fallback === 'image' || fallback === 'video' ? 'file' : fallback;
  return fallback;
}

function fileName(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last) : new URL(url).host;
  } catch {
    return 'file';
  }
}

/**
 * Print link targets, dial numbers, calendar and location data and media URLs as visible text in
 * the mockup (not only in tooltips), and say in words when an image cannot be shown. Off by
 * default: the virtual phone shows what a recipient sees, nothing more.
 */
const RevealContext = createContext(false);

// ---------------------------------------------------------------------------------------------
// Frame

export function SenderHeader({ name, channel = 'rcs' }: { name: string; channel?: 'rcs' | 'sms' }) {
  const initial = (name.trim()[0] ?? '?').toUpperCase();
  return (
    <header class="phone-header">
      <Icon name="back" class="phone-back" />
      <span class={`phone-avatar${channel === 'sms' ? ' sms' : ''}`} aria-hidden="true">
        {initial}
      </span>
      <span class="phone-who">
        <span class="phone-sender">
          {name}
          {channel === 'rcs' ? <Icon name="verified" class="phone-verified" /> : null}
        </span>
        <span class="phone-channel">{channel === 'rcs' ? 'RCS business message' : 'Text message (SMS)'}</span>
      </span>
    </header>
  );
}

export function PhoneFrame({ senderName, channel = 'rcs', label, children }: { senderName: string; channel?: 'rcs' | 'sms'; label?: string; children: ComponentChildren }) {
  return (
    <figure class={`phone phone-${channel}`}>
      {label ? <figcaption class="phone-label">{label}</figcaption> : null}
      <div class="phone-screen">
        <SenderHeader name={senderName} channel={channel} />
        <div class="phone-thread">{children}</div>
        <div class="phone-compose" aria-hidden="true">
          {channel === 'rcs' ? 'RCS message' : 'Text message'}
        </div>
      </div>
    </figure>
  );
}

// ---------------------------------------------------------------------------------------------
// Buttons and chips

/** What tapping the action does, in words (shown as the tooltip). */
export function describeAction(action: Action): string {
  switch (action.type) {
    case 'openUrl':
      return `Opens ${action.openUrlAction?.url ? shownLink(action.openUrlAction.url) : 'a link'}`;
    case 'openUrlInWebview':
      return `Opens ${action.openUrlInWebviewAction?.url ?? 'a page'} inside the app (${action.openUrlInWebviewAction?.viewMode ?? 'FULL'})`;
    case 'dial':
      return `Calls ${action.dialAction?.phoneNumber ?? 'a number'}`;
    case 'addToCalendar':
      return `Adds “${action.calendarAction?.title ?? 'an event'}” to the calendar`;
    case 'createCalendarEvent':
      return `Creates the event “${action.createCalendarEventAction?.title ?? 'an event'}”`;
    case 'viewLocation': {
      const l = action.viewLocationAction;
      return `Shows ${l?.label ? `“${l.label}”` : l?.latLong ? `${l.latLong.latitude}, ${l.latLong.longitude}` : 'a place'} on a map`;
    }
    case 'shareLocation':
      return 'Asks the recipient to share their location';
    case 'unsubscribeLink':
      return 'Opens the unsubscribe page';
    case 'unsubscribe':
      return `Sends ${action.unsubscribeAction?.stopKeyword ?? 'STOP'} to unsubscribe`;
    case 'postback':
      return action.postbackData ? `Sends “${action.postbackData}” to the webhook` : 'Notifies the webhook';
    default:
      return '';
  }
}

const when = (start: string | undefined, end: string | undefined): string => {
  const fmt = (x: string) => x.replace('T', ' ').replace(/:00(\.0+)?Z$/, 'Z').replace(/Z$/, ' UTC');
  return start && end ? `${fmt(start)} → ${fmt(end)}` : start ? fmt(start) : end ? `until ${fmt(end)}` : '';
};

/**
 * What the action carries that a person must check before approving, as plain text: the URL it
 * opens, the number it dials, the event it adds, the place it shows. Null when there is nothing
 * beyond the label (reply, share location).
 */
export function actionTarget(action: Action): string | null {
  const join = (parts: (string | undefined)[]) => parts.filter((x): x is string => !!x).join(' · ') || null;
  switch (action.type) {
    case 'openUrl':
      return action.openUrlAction?.url ? shownLink(action.openUrlAction.url) : null;
    case 'openUrlInWebview':
      return action.openUrlInWebviewAction?.url ? `${shownLink(action.openUrlInWebviewAction.url)} (in app, ${action.openUrlInWebviewAction.viewMode ?? 'FULL'})` : null;
    case 'dial':
      return action.dialAction?.phoneNumber ? `Calls ${action.dialAction.phoneNumber}` : null;
    case 'addToCalendar': {
      const c = action.calendarAction;
      return c ? join([c.title && `“${c.title}”`, when(c.startTime, c.endTime), c.description]) : null;
    }
    case 'createCalendarEvent': {
      const c = action.createCalendarEventAction;
      return c ? join([c.title && `“${c.title}”`, when(c.startTime, c.endTime), c.description]) : null;
    }
    case 'viewLocation': {
      const l = action.viewLocationAction;
      return l ? join([l.label && `“${l.label}”`, l.latLong && `${l.latLong.latitude}, ${l.latLong.longitude}`]) : null;
    }
    case 'unsubscribeLink':
      return action.openUrlAction?.url ? `Unsubscribe page (${action.openUrlAction.url})` : 'Unsubscribe page';
    case 'unsubscribe':
      return `Sends ${action.unsubscribeAction?.stopKeyword ?? 'STOP'}`;
    case 'postback':
      return tapSends(action.postbackData, action.webhookUrl);
    default:
      return null;
  }
}

/**
 * A link as the person must read it: invisible and direction characters made visible, and the host
 * it really goes to (punycode) when that is not what it looks like (content/text-risks.ts).
 */
export function shownLink(url: string): string {
  const v = linkView(url);
  return v.unicodeHost ? `${v.url} — really goes to ${v.host}` : v.url;
}

/**
 * What a reply or postback tap sends, and where (spec §6 button_interaction): the recipient's phone
 * number and name go to the button's own webhookUrl — a host the assistant chose — or to the
 * account's webhooks.
 */
export function tapSends(postbackData: string | undefined, webhookUrl: string | undefined): string {
  const data = postbackData ? ` and “${visibleText(postbackData)}”` : '';
  if (!webhookUrl) return `Tapping sends the recipient's phone number and name${data} to this account's webhooks`;
  const v = linkView(webhookUrl);
  return `Tapping sends the recipient's phone number and name${data} to ${v.host || v.url} (${shownLink(webhookUrl)})`;
}

/** The label, with the action's target as a second line when the page reveals targets. */
function Labelled({ action, reply, labelClass, children }: { action: Action | undefined; reply?: Suggestion['reply']; labelClass: string; children: ComponentChildren }) {
  const reveal = useContext(RevealContext);
  const target = !reveal ? null : action ? actionTarget(action) : reply ? tapSends(reply.postbackData, reply.webhookUrl) : null;
  if (target === null) return <>{children}</>;
  return (
    <>
      <span class={labelClass}>{children}</span>
      <span class="action-target" data-testid="action-target">
        {target}
      </span>
    </>
  );
}

export function ActionButton({ action }: { action: Action }) {
  return (
    <li class="card-action" title={describeAction(action)} data-action-type={action.type}>
      <Labelled action={action} labelClass="card-action-label">
        <Icon name={action.type} />
        <span class="card-action-text">{action.text}</span>
      </Labelled>
    </li>
  );
}

export function Chip({ suggestion }: { suggestion: Suggestion }) {
  const action = suggestion.action;
  const reply = suggestion.reply;
  const icon: IconName = action ? action.type : 'reply';
  const text = action?.text ?? reply?.text ?? '';
  const title = action ? describeAction(action) : `Replies “${text}”`;
  return (
    <li class={`chip${action ? ' chip-action' : ' chip-reply'}`} title={title} data-action-type={action ? action.type : 'reply'}>
      <Labelled action={action} reply={reply} labelClass="chip-label">
        {action ? <Icon name={icon} /> : null}
        <span class="chip-text">{text}</span>
      </Labelled>
    </li>
  );
}

export function ChipList({ suggestions }: { suggestions: readonly Suggestion[] | undefined }) {
  if (!suggestions || suggestions.length === 0) return null;
  return (
    <ul class="chips" aria-label="Suggested replies and actions">
      {suggestions.map((s) => (
        <Chip suggestion={s} />
      ))}
    </ul>
  );
}

function ActionList({ actions }: { actions: readonly Action[] | undefined }) {
  if (!actions || actions.length === 0) return null;
  return (
    <ul class="card-actions">
      {actions.map((a) => (
        <ActionButton action={a} />
      ))}
    </ul>
  );
}

// ---------------------------------------------------------------------------------------------
// Media

export function PlaceholderNote({ host }: { host: string }) {
  return <span class="media-note">{`Media from ${host} is not shown here`}</span>;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid address';
  }
}

/**
 * An image whose failure is visible: on the approval page its alt text (styled by CSS, shown by
 * the browser only when the image does not load) says that it could not be loaded and from where.
 * There the src is this server's fetch of the image (src/previews/share-media.ts), never the host.
 */
function PreviewImage({ src, url }: { src: string; url: string }) {
  const reveal = useContext(RevealContext);
  return <img src={src} alt={reveal ? `Image could not be loaded from ${hostOf(url)} — it may not show for recipients either` : ''} loading={reveal ? undefined : 'lazy'} />;
}

/** The media URL as text under the media (approval page only). */
function MediaUrl({ url, kind }: { url: string | undefined; kind: MediaKind }) {
  const reveal = useContext(RevealContext);
  const label = { image: 'Image', video: 'Video', audio: 'Audio', file: 'File' }[kind];
  return reveal && url ? (
    <p class="media-url" data-testid="media-url">
      <span class="media-url-label">{label}:</span> {url}
    </p>
  ) : null;
}

/** The thumbnail of a media object with its JSON path: under `contentInfo`, or the placeholder image beside it. */
function thumbnailOf(media: Media | undefined, path: string): { url: string; path: string } | null {
  const info = media?.contentInfo;
  if (info?.thumbnailUrl !== undefined) return { url: info.thumbnailUrl, path: `${path}.contentInfo.thumbnailUrl` };
  if (media?.thumbnailUrl !== undefined) return { url: media.thumbnailUrl, path: `${path}.thumbnailUrl` };
  return null;
}

/**
 * A thumbnail the recipient's phone loads before (or instead of) the media, on the approval page only
 * (issue #42): the image as this server fetched it (never from its host), or its host named when the
 * page does not load it, and its URL as text — every media URL a phone loads is shown or named.
 */
function MediaThumbnail({ thumb, resolver }: { thumb: { url: string; path: string } | null; resolver: MediaResolver }) {
  const reveal = useContext(RevealContext);
  if (!reveal || !thumb) return null;
  const host = resolver.replacedHost(thumb.path);
  return (
    <div class="media-thumb" data-testid="media-thumbnail">
      {host === null ? <img src={resolver.src(thumb.url)} alt={`Thumbnail from ${hostOf(thumb.url)}`} /> : null}
      <p class="media-url">
        <span class="media-url-label">{host === null ? 'Thumbnail:' : `Thumbnail (from ${host}, not shown here):`}</span> {thumb.url}
      </p>
    </div>
  );
}

/** An image or video inside a card (height class applied by the card). */
export function CardMedia({ media, path, resolver, heightClass }: { media: Media; path: string; resolver: MediaResolver; heightClass: string }) {
  const url = media.contentInfo?.fileUrl;
  if (!url) return null;
  const thumb = thumbnailOf(media, path);
  const kind = mediaKind(url, media.contentInfo?.contentType, 'image');
  const host = resolver.replacedHost(`${path}.contentInfo.fileUrl`);
  if (host !== null) {
    return (
      <div class={`card-media ${heightClass} replaced`}>
        <img src={resolver.src(url)} alt="" loading="lazy" />
        {kind === 'video' ? <Icon name="play" class="media-play" /> : null}
        <PlaceholderNote host={host} />
      </div>
    );
  }
  if (kind === 'video') {
    const poster = thumb && resolver.replacedHost(thumb.path) === null ? resolver.src(thumb.url) : undefined;
    return (
      <div class={`card-media ${heightClass}`}>
        <video src={resolver.src(url)} poster={poster} controls preload="metadata" playsInline />
      </div>
    );
  }
  return (
    <div class={`card-media ${heightClass}`}>
      <PreviewImage src={resolver.src(url)} url={url} />
    </div>
  );
}

const HEIGHT_CLASS = { SHORT: 'h-short', MEDIUM: 'h-medium', TALL: 'h-tall' } as const;
const heightClass = (m: Media | undefined): string => HEIGHT_CLASS[m?.height ?? 'TALL'] ?? 'h-tall';

export function FileTile({ url, path, resolver }: { url: string; path: string; resolver: MediaResolver }) {
  const host = resolver.replacedHost(path);
  const name = host !== null ? `File on ${host}` : fileName(url);
  const src = resolver.src(url);
  const local = host === null && src.startsWith('/');
  const ext = host === null ? (name.match(/\.([A-Za-z0-9]{1,5})$/)?.[1] ?? '').toUpperCase() : '';
  return (
    <div class="tile tile-file">
      <Icon name="file" class="tile-icon" />
      <span class="tile-text">
        {local ? (
          <a class="tile-name" href={src} target="_blank" rel="noopener noreferrer">
            {name}
          </a>
        ) : (
          <span class="tile-name">{name}</span>
        )}
        <span class="tile-sub">{host !== null ? 'Not loaded in the preview' : ext ? `${ext} document` : 'Document'}</span>
      </span>
    </div>
  );
}

export function AudioTile({ url, path, resolver }: { url: string; path: string; resolver: MediaResolver }) {
  const host = resolver.replacedHost(path);
  return (
    <div class="tile tile-audio">
      <Icon name="audio" class="tile-icon" />
      <span class="tile-text">
        <span class="tile-name">{host !== null ? `Audio on ${host}` : fileName(url)}</span>
        {host !== null ? <span class="tile-sub">Not loaded in the preview</span> : <audio src={resolver.src(url)} controls preload="none" />}
      </span>
    </div>
  );
}

/** A standalone image or video (image, video and media messages). */
export function MediaTile({ url, contentType, thumbnailUrl, path, kind, resolver }: { url: string; contentType?: string | undefined; thumbnailUrl?: string | undefined; path: string; kind: MediaKind; resolver: MediaResolver }) {
  const host = resolver.replacedHost(path);
  if (host !== null) {
    return (
      <div class="media-tile replaced">
        <img src={resolver.src(url)} alt="" loading="lazy" />
        {kind === 'video' ? <Icon name="play" class="media-play" /> : null}
        <PlaceholderNote host={host} />
      </div>
    );
  }
  if (kind === 'video') {
    return (
      <div class="media-tile">
        <video src={resolver.src(url)} poster={thumbnailUrl ? resolver.src(thumbnailUrl) : undefined} controls preload="metadata" playsInline data-content-type={contentType} />
      </div>
    );
  }
  return (
    <div class="media-tile">
      <PreviewImage src={resolver.src(url)} url={url} />
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Messages

/** Text as the page shows it: where targets are revealed, hidden and direction characters are marked (⟦U+202E⟧). */
function Shown({ text }: { text: string }) {
  const reveal = useContext(RevealContext);
  return <>{reveal ? visibleText(text) : text}</>;
}

export function TextBubble({ text }: { text: string }) {
  return (
    <div class="bubble bubble-rcs">
      <Shown text={text} />
    </div>
  );
}

export interface RichCardProps {
  card: CardContent;
  /** JSON path of the card: `content` for a rich card, `content.cardContents[1]` in a carousel. */
  path: string;
  orientation?: 'VERTICAL' | 'HORIZONTAL' | undefined;
  imageAlignment?: 'LEFT' | 'RIGHT' | undefined;
  resolver: MediaResolver;
  inCarousel?: boolean;
}

export function RichCard({ card, path, orientation = 'VERTICAL', imageAlignment = 'RIGHT', resolver, inCarousel = false }: RichCardProps) {
  const horizontal = orientation === 'HORIZONTAL' && !inCarousel;
  const media = card.media ? <CardMedia media={card.media} path={`${path}.media`} resolver={resolver} heightClass={horizontal ? 'h-side' : heightClass(card.media)} /> : null;
  const classes = ['rich-card', horizontal ? 'horizontal' : 'vertical', horizontal && imageAlignment === 'LEFT' ? 'media-left' : '', horizontal && imageAlignment !== 'LEFT' ? 'media-right' : '', inCarousel ? 'carousel-card' : '']
    .filter(Boolean)
    .join(' ');
  return (
    <article class={classes}>
      {horizontal ? (
        <div class="card-row">
          {imageAlignment === 'LEFT' ? media : null}
          <CardBody card={card} />
          {imageAlignment !== 'LEFT' ? media : null}
        </div>
      ) : (
        <>
          {media}
          <CardBody card={card} />
        </>
      )}
      <MediaUrl url={card.media?.contentInfo?.fileUrl} kind={mediaKind(card.media?.contentInfo?.fileUrl, card.media?.contentInfo?.contentType, 'image')} />
      <MediaThumbnail thumb={thumbnailOf(card.media, `${path}.media`)} resolver={resolver} />
      <ActionList actions={card.cardActions} />
    </article>
  );
}

function CardBody({ card }: { card: CardContent }) {
  return (
    <div class="card-body">
      {card.title ? (
        <h3 class="card-title">
          <Shown text={card.title} />
        </h3>
      ) : null}
      {card.description ? (
        <p class="card-description">
          <Shown text={card.description} />
        </p>
      ) : null}
    </div>
  );
}

export function Carousel({ cards, resolver }: { cards: readonly CardContent[]; resolver: MediaResolver }) {
  return (
    <div class="carousel" tabIndex={0} role="region" aria-label={`Carousel of ${cards.length} cards; scroll sideways for more`}>
      {cards.map((card, i) => (
        <RichCard card={card} path={`content.cardContents[${i}]`} resolver={resolver} inCarousel />
      ))}
    </div>
  );
}

export function SmsBubble({ text }: { text: string }) {
  return (
    <div class="bubble bubble-sms">
      <Shown text={text} />
    </div>
  );
}

export interface RcsMessageProps {
  messageType: MessageType;
  /** Normalized content (normalizeContent), with merge values applied when the page wants them. */
  content: Content;
  resolver?: MediaResolver;
}

/** The body of one RCS message by type, followed by its chips. */
export function RcsMessage({ messageType, content, resolver = mediaResolver() }: RcsMessageProps) {
  return (
    <div class={`msg msg-${messageType}`} data-message-type={messageType}>
      <MessageBody messageType={messageType} content={content} resolver={resolver} />
      {messageType !== 'textBasic' ? <ChipList suggestions={content.suggestions} /> : null}
    </div>
  );
}

function MessageBody({ messageType, content, resolver }: { messageType: MessageType; content: Content; resolver: MediaResolver }) {
  switch (messageType) {
    case 'text':
    case 'textBasic':
      return <TextBubble text={content.text ?? ''} />;
    case 'richCard':
      return (
        <RichCard
          card={{ title: content.title, description: content.description, media: content.media, cardActions: content.cardActions }}
          path="content"
          orientation={content.cardOrientation}
          imageAlignment={content.imageAlignment}
          resolver={resolver}
        />
      );
    case 'carousel':
      return <Carousel cards={content.cardContents ?? []} resolver={resolver} />;
    default:
      return <MediaMessage messageType={messageType} content={content} resolver={resolver} />;
  }
}

/** media, image, video, audio and file messages: `url` or `media.contentInfo.fileUrl`, plus caption. */
function MediaMessage({ messageType, content, resolver }: { messageType: MessageType; content: Content; resolver: MediaResolver }) {
  const fromUrl = content.url !== undefined;
  const url = content.url ?? content.media?.contentInfo?.fileUrl;
  const path = fromUrl ? 'content.url' : 'content.media.contentInfo.fileUrl';
  if (!url) return <TextBubble text="(no media)" />;
  const fallback: MediaKind = messageType === 'video' ? 'video' : messageType === 'audio' ? 'audio' : messageType === 'file' ? 'file' : 'image';
  const contentType = fromUrl ? undefined : content.media?.contentInfo?.contentType;
  const kind = messageType === 'file' ? 'file' : messageType === 'audio' ? 'audio' : mediaKind(url, contentType, fallback);
  const caption = content.caption;
  const thumb = fromUrl ? null : thumbnailOf(content.media, 'content.media');
  if (kind === 'file' || kind === 'audio') {
    return (
      <>
        {kind === 'file' ? <FileTile url={url} path={path} resolver={resolver} /> : <AudioTile url={url} path={path} resolver={resolver} />}
        <MediaUrl url={url} kind={kind} />
        <MediaThumbnail thumb={thumb} resolver={resolver} />
      </>
    );
  }
  const usableThumb = thumb && resolver.replacedHost(thumb.path) === null ? thumb.url : undefined;
  const tile = <MediaTile url={url} contentType={contentType} thumbnailUrl={usableThumb} path={path} kind={kind} resolver={resolver} />;
  if (!caption) {
    return (
      <>
        {tile}
        <MediaUrl url={url} kind={kind} />
        <MediaThumbnail thumb={thumb} resolver={resolver} />
      </>
    );
  }
  // With a caption, media goes out as a rich card (§2.1).
  return (
    <article class="rich-card vertical media-card">
      {tile}
      <div class="card-body">
        <p class="card-description">{caption}</p>
      </div>
      <MediaUrl url={url} kind={kind} />
      <MediaThumbnail thumb={thumb} resolver={resolver} />
    </article>
  );
}

// ---------------------------------------------------------------------------------------------
// The whole preview

export interface PhonePreviewProps {
  messageType: MessageType;
  /** Normalized content (see normalizeContent). */
  content: Content;
  /** Shown in the phone header. */
  senderName: string;
  /** SMS fallback text; when given, a second phone shows it as an SMS. */
  smsFallback?: string | null | undefined;
  /** Name in the SMS phone's header (default: senderName). */
  smsSenderName?: string | undefined;
  /** Foreign media not to load, by JSON path of the URL (sandbox). */
  replacedMedia?: readonly ReplacedMedia[] | undefined;
  /** Maps media URLs to page sources (e.g. this server's samples to relative paths). */
  mediaSrc?: ((url: string) => string) | undefined;
  /** Print action targets and media URLs as text, and say when an image does not load (approval page). */
  reveal?: boolean | undefined;
}

/** RCS phone, plus an SMS phone when there is a fallback. */
export function PhonePreview({ messageType, content, senderName, smsFallback, smsSenderName, replacedMedia, mediaSrc, reveal = false }: PhonePreviewProps) {
  const resolver = mediaResolver({ replacedMedia, mediaSrc });
  return (
    <RevealContext.Provider value={reveal}>
      <div class={`phones${reveal ? ' reveal' : ''}`}>
        <PhoneFrame senderName={senderName} channel="rcs" label="RCS">
          <RcsMessage messageType={messageType} content={content} resolver={resolver} />
        </PhoneFrame>
        {smsFallback !== undefined && smsFallback !== null ? (
          <PhoneFrame senderName={smsSenderName ?? senderName} channel="sms" label="SMS fallback (devices without RCS)">
            <SmsBubble text={smsFallback} />
          </PhoneFrame>
        ) : null}
      </div>
    </RevealContext.Provider>
  );
}
