/**
 * The virtual phone of the simulated network (/phone): pick a number that received messages from
 * the account, see them as the person sees them (the phone mockup of preview-pages/phone), tap
 * chips and card buttons, reply, send STOP. No script: every tap and reply is a form POST with the
 * session's CSRF token, answered with a redirect back here.
 */
import type { Action, Content, MessageType } from '../content/index.js';
import type { PhoneNumberSummary, PhoneThread, PhoneView, ThreadItem } from './virtual-phone.js';
import { tapButtons, type TapButton } from './tap-buttons.js';
import { shownCardCount } from '../content/walk.js';
import { PHONE_SEARCH_MAX_LENGTH } from './phone-search.js';
import { ErrorNote, Layout } from '../../preview-pages/layout.js';
import { Icon, RcsMessage, SenderHeader, SmsBubble, mediaResolver, type MediaResolver, type ReplacedMedia } from '../../preview-pages/phone/index.js';

export interface VirtualPhonePageProps {
  user: { email: string; csrfToken: string };
  accountName: string;
  numbers: PhoneNumberSummary[];
  /** More numbers than listed received messages: a search finds them. */
  more: boolean;
  /** The search in the box ('' for none); the list is already filtered by it. */
  q: string;
  /** The selected number, when one is. */
  view: PhoneView | null;
  /** The account's time zone, for times on the page. */
  timeZone: string;
  mediaSrc: (url: string) => string;
  /** Media of a message shown as a placeholder naming its host instead of being loaded (anything not on this server). */
  replacedMedia?: ((messageType: MessageType, content: Content) => ReplacedMedia[]) | undefined;
  error?: string | undefined;
}

const timeOf = (ms: number, zone: string): string =>
  new Intl.DateTimeFormat('en-GB', { timeZone: zone, day: '2-digit', month: 'short', hour: '2-digit', minute: '2-digit' }).format(new Date(ms));

/** A link on the page: the selected number (if any) and the search (if any), so neither is lost on the way. */
const phoneHref = (e164: string | null, q: string): string => {
  const params = new URLSearchParams();
  if (e164) params.set('number', e164);
  if (q) params.set('q', q);
  const query = params.toString();
  return query ? `/phone?${query}` : '/phone';
};

export function VirtualPhonePage({ user, accountName, numbers, more, q, view, timeZone, mediaSrc, replacedMedia, error }: VirtualPhonePageProps) {
  // A refused search (error) filtered nothing: its links must not carry it on.
  const kept = error ? '' : q;
  return (
    <Layout title="Virtual phone" user={user} wide>
      <div class="vp-head">
        <div>
          <h1>Virtual phone</h1>
          <p class="muted">
            Simulated network of {accountName}: what a number received, as its owner sees it. Taps, replies and STOP raise the same events a real network
            would.
          </p>
        </div>
        <a href="/console" class="small">
          Back to the console
        </a>
      </div>
      <ErrorNote message={error} />
      {/* On a narrow screen a selected conversation comes first: the list hides behind the back link, as in a phone's messaging app. */}
      <div class={view ? 'vp-layout has-selection' : 'vp-layout'}>
        <nav class="card vp-numbers" aria-label="Numbers">
          <h2>Numbers</h2>
          <form method="get" action="/phone" class="vp-search" role="search">
            {view ? <input type="hidden" name="number" value={view.phone} /> : null}
            <label for="vp-q">Search numbers</label>
            <div class="vp-search-row">
              <input id="vp-q" type="search" name="q" value={q} maxLength={PHONE_SEARCH_MAX_LENGTH} placeholder="Digits or a name" autocomplete="off" aria-describedby="vp-q-hint" />
              <button type="submit">Search</button>
            </div>
            <span id="vp-q-hint" class="hint">
              Any digits of the number, or part of the contact’s name.
            </span>
          </form>
          {kept ? (
            <p class="small vp-found">
              {numbers.length === 0 ? 'No number matches' : `${numbers.length}${more ? '+' : ''} ${numbers.length === 1 ? 'number matches' : 'numbers match'}`} “{kept}”.{' '}
              <a href={phoneHref(view?.phone ?? null, '')}>Show all</a>
            </p>
          ) : null}
          {numbers.length === 0 ? (
            kept ? null : <p class="muted small">No number has received a message from this account yet. Send one to a simulated number (e.g. +4915112340001) and reload.</p>
          ) : (
            <ul class="vp-number-list">
              {numbers.map((n) => (
                <li>
                  <a href={phoneHref(n.phone, kept)} class={view?.phone === n.phone ? 'vp-number active' : 'vp-number'} aria-current={view?.phone === n.phone ? 'page' : undefined}>
                    <span class="vp-number-phone">{n.phone}</span>
                    {n.contactName ? <span class="vp-number-name">{n.contactName}</span> : null}
                    <span class="vp-number-meta">
                      {n.received} received · {timeOf(n.lastAt, timeZone)}
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          )}
          {more ? <p class="muted small">The {numbers.length} most recent are listed: search to find the others.</p> : null}
        </nav>
        <section class="vp-main">
          {view ? (
            <>
              <a href={phoneHref(null, kept)} class="vp-back">
                ← All numbers
              </a>
              <p class="vp-current">
                <strong>{view.phone}</strong>
                {view.optedOut ? <span class="badge status-rejected">opted out</span> : null}
              </p>
              <div class="phones">
                {view.threads.map((t) => (
                  <Thread thread={t} phone={view.phone} csrf={user.csrfToken} timeZone={timeZone} media={(messageType, content) => mediaResolver({ mediaSrc, replacedMedia: replacedMedia?.(messageType, content) })} />
                ))}
              </div>
            </>
          ) : (
            <p class="muted card vp-pick">Pick a number from the list.</p>
          )}
        </section>
      </div>
    </Layout>
  );
}

function Hidden({ csrf, phone }: { csrf: string; phone: string }) {
  return (
    <>
      <input type="hidden" name="csrf" value={csrf} />
      <input type="hidden" name="number" value={phone} />
    </>
  );
}

/** The media resolver of one message (placeholders are by JSON path, so each message has its own). */
type MediaOf = (messageType: MessageType, content: Content) => MediaResolver;

function Thread({ thread, phone, csrf, timeZone, media }: { thread: PhoneThread; phone: string; csrf: string; timeZone: string; media: MediaOf }) {
  const channel = thread.channel === 'SMS' ? 'sms' : 'rcs';
  return (
    <figure class={`phone phone-${channel} vp-phone`} id={`thread-${thread.senderId}`} data-sender={thread.senderId}>
      <figcaption class="phone-label">{thread.senderName}</figcaption>
      <div class="phone-screen">
        <SenderHeader name={thread.senderName} channel={channel} />
        <div class="phone-thread">
          {thread.items.map((item) => (
            <Item item={item} phone={phone} csrf={csrf} timeZone={timeZone} media={media} />
          ))}
        </div>
        <form method="post" action="/phone/reply" class="vp-compose">
          <Hidden csrf={csrf} phone={phone} />
          <input type="hidden" name="sender" value={thread.senderId} />
          <input name="text" required maxLength={1000} placeholder={channel === 'rcs' ? 'RCS message' : 'Text message'} aria-label={`Reply to ${thread.senderName}`} autocomplete="off" />
          <button type="submit">Send</button>
        </form>
        <form method="post" action="/phone/reply" class="vp-stop">
          <Hidden csrf={csrf} phone={phone} />
          <input type="hidden" name="sender" value={thread.senderId} />
          <input type="hidden" name="text" value="STOP" />
          <button type="submit" class="link small">
            Send STOP{thread.stopKeyword.toUpperCase() !== 'STOP' ? ` (this sender also accepts ${thread.stopKeyword})` : ''}
          </button>
        </form>
      </div>
    </figure>
  );
}

function Item({ item, phone, csrf, timeZone, media }: { item: ThreadItem; phone: string; csrf: string; timeZone: string; media: MediaOf }) {
  if (item.kind === 'in') {
    return (
      <div class="vp-sent" data-kind="reply">
        <div class="bubble vp-bubble-out">{item.text}</div>
        <span class="vp-meta">{timeOf(item.at, timeZone)}</span>
      </div>
    );
  }
  if (item.kind === 'tap') {
    return (
      <div class="vp-sent" data-kind="tap">
        <div class="vp-tap">
          <Icon name="reply" /> {item.buttonText}
        </div>
        <span class="vp-meta">Tapped · {timeOf(item.at, timeZone)}</span>
      </div>
    );
  }
  if (item.channel === 'SMS' || !item.rcs) {
    return (
      <div class="vp-received" data-message-id={item.messageId}>
        <SmsBubble text={item.text ?? ''} />
        <span class="vp-meta">
          {timeOf(item.at, timeZone)} · {item.state}
        </span>
      </div>
    );
  }
  const { messageType, content } = item.rcs;
  // Chips become forms below; the card keeps its buttons as the person sees them, and those
  // buttons are tappable in the row under the message.
  const shown: Content = { ...content, suggestions: undefined };
  const buttons = tapButtons(messageType, content);
  const cardButtons = buttons.filter((b) => b.placement === 'cardButton');
  const chips = messageType === 'textBasic' ? [] : buttons.filter((b) => b.placement === 'chip');
  const manyCards = shownCardCount(messageType, content) > 1;
  return (
    <div class="vp-received" data-message-id={item.messageId}>
      <RcsMessage messageType={messageType} content={shown} resolver={media(messageType, shown)} />
      {cardButtons.length > 0 ? (
        <ul class="vp-card-buttons" aria-label="Card buttons">
          {cardButtons.map((b) => (
            <li>
              <TapForm csrf={csrf} phone={phone} simId={item.simId} target={b.target} class="vp-card-button" label={manyCards ? `${b.action.text} (card ${b.card + 1})` : b.action.text} action={b.action} />
            </li>
          ))}
        </ul>
      ) : null}
      {chips.length > 0 ? (
        <ul class="chips vp-chips" aria-label="Suggested replies and actions">
          {chips.map((s) => (
            <li>
              <TapForm csrf={csrf} phone={phone} simId={item.simId} target={s.target} class="chip" label={chipText(s)} action={s.action} />
            </li>
          ))}
        </ul>
      ) : null}
      <span class="vp-meta">
        {timeOf(item.at, timeZone)} · {item.state}
      </span>
    </div>
  );
}

const chipText = (s: TapButton): string => s.reply?.text ?? s.action?.text ?? '';

function TapForm({ csrf, phone, simId, target, class: cls, label, action }: { csrf: string; phone: string; simId: string; target: string; class: string; label: string; action?: Action | undefined }) {
  return (
    <form method="post" action="/phone/tap" class="vp-tap-form">
      <Hidden csrf={csrf} phone={phone} />
      <input type="hidden" name="sim" value={simId} />
      <input type="hidden" name="target" value={target} />
      <button type="submit" class={cls} data-target={target}>
        {action ? <Icon name={action.type} /> : null}
        <span class="chip-text">{label}</span>
      </button>
    </form>
  );
}
