import type { ConsentStanding } from './consent.js';
import type { ConsentEvent, ConsentReview } from '../suppression/schemas.js';
import { ErrorNote, PostForm } from '../../preview-pages/layout.js';
import { formatTime } from '../../preview-pages/console/format.js';
import { ConsoleFrame, type ConsoleUser } from '../../preview-pages/console/frame.js';

/** What the Consent page shows; built by src/contacts/consent-console.ts. */
export interface ConsentPageProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  /** What was looked up, as typed (refilled into the search box). */
  query: string;
  /** The number's standing and history; null before a look-up or when it found nothing. */
  standing: ConsentStanding | null;
  events: readonly ConsentEvent[];
  olderHref: string | null;
  paged: boolean;
  error?: string | undefined;
  notice?: string | undefined;
  /** Open consent reviews, newest first (at most one page), and whether there are more. */
  reviews: readonly ConsentReview[];
  moreReviews: boolean;
}

const REASON_LABELS: Record<ConsentReview['reason'], string> = {
  stop_word_edge: 'starts or ends with a stop word',
  stop_phrase: 'asks to be removed or not texted',
  stop_word_inside: 'a stop word inside the reply',
  contradicted: 'a request to stop that the reply also contradicts or negates',
  complaint: 'a complaint (wrong number, spam, not interested, …)',
};

/** Replies that may be a request to stop: marketing to each number is paused until a person decides here. */
function ReviewList({ reviews, more, csrf, timezone }: { reviews: readonly ConsentReview[]; more: boolean; csrf: string; timezone: string }) {
  return (
    <section class="card consent-reviews" aria-labelledby="reviews-h">
      <h2 id="reviews-h">Waiting for review{reviews.length ? ` (${reviews.length}${more ? '+' : ''})` : ''}</h2>
      <p class="muted">
        Replies that may be a request to stop. Marketing to each number is paused until you decide; transactional messages still go. Confirm the opt-out
        when the person meant stop; release the number when they did not.
      </p>
      {reviews.length === 0 ? (
        <p class="muted">Nothing waits for review.</p>
      ) : (
        <ul class="review-list">
          {reviews.map((r) => (
            <li class="review" data-review-id={r.id}>
              <p class="review-head">
                <a href={`/console/consent?q=${encodeURIComponent(r.phone)}`}>{r.phone}</a> <span class="muted">— {REASON_LABELS[r.reason]}</span>{' '}
                <time datetime={r.openedAt}>{formatTime(r.openedAt, timezone)}</time>
              </p>
              <blockquote class="review-text">{r.receivedText ?? ''}</blockquote>
              {r.replies > 1 && r.lastText !== null ? (
                <p class="muted">
                  {r.replies - 1} more {r.replies - 1 === 1 ? 'reply' : 'replies'} since; the latest: <q>{r.lastText}</q>
                </p>
              ) : null}
              {r.cancelledMessages > 0 ? (
                <p class="muted">
                  {r.cancelledMessages} queued marketing {r.cancelledMessages === 1 ? 'message was' : 'messages were'} cancelled when it paused.
                </p>
              ) : null}
              <div class="review-actions">
                <PostForm action="/console/consent/review" csrf={csrf} class="inline-form">
                  <input type="hidden" name="reviewId" value={r.id} />
                  <input type="hidden" name="action" value="confirm" />
                  <button type="submit" class="danger small">
                    Confirm opt-out
                  </button>
                </PostForm>
                <PostForm action="/console/consent/review" csrf={csrf} class="inline-form">
                  <input type="hidden" name="reviewId" value={r.id} />
                  <input type="hidden" name="action" value="release" />
                  <button type="submit" class="small">
                    Release number
                  </button>
                </PostForm>
              </div>
            </li>
          ))}
        </ul>
      )}
      {more ? <p class="muted">More wait than are shown: decide these first, or list them with GET /api/v1/consent/reviews.</p> : null}
    </section>
  );
}

const KIND_LABELS: Record<ConsentEvent['kind'], string> = {
  opt_in: 'Opted in',
  opt_out: 'Opted out',
  resubscribe: 'Resubscribed',
  disabled: 'Contact disabled by the business',
  enabled: 'Contact enabled by the business',
  paused: 'Marketing paused for review',
  released: 'Released after review',
};

const SOURCE_LABELS: Record<ConsentEvent['source'], string> = {
  form: 'opt-in form',
  api: 'API',
  console: 'console',
  keyword: 'reply',
  chip: 'unsubscribe chip',
  link: 'unsubscribe link',
};

/** The evidence of one event, as label/value pairs (only those it has). */
function details(e: ConsentEvent): Array<[string, string]> {
  const out: Array<[string, string | null]> = [
    ['Received text', e.receivedText],
    ['Recognised as', e.keyword],
    ['Form', e.formName === null ? null : `${e.formName}${e.formId ? ` (${e.formId})` : ''}`],
    ['Client address', e.clientAddress],
    ['Declared source', e.declaredSource],
    ['By', e.actor],
    ['Sender', e.senderId],
    ['Message', e.messageId],
    ['Contact', e.contactId],
    ['Note', e.note],
  ];
  return out.filter((p): p is [string, string] => p[1] !== null);
}

/** Look up a number (or contact id): where it stands, its consent history; download the account's whole record. */
export function ConsentPage({ user, accountName, timezone, query, standing, events, olderHref, paged, error, notice, reviews, moreReviews }: ConsentPageProps) {
  const back = standing ? `/console/consent?q=${encodeURIComponent(standing.phone)}` : '/console/consent';
  return (
    <ConsoleFrame user={user} accountName={accountName} active="consent" title="Consent" notice={notice}>
      <section class="card">
        <h1>Consent</h1>
        <p class="muted">
          Every opt-in, opt-out and resubscription of a number, and every time the business disabled or enabled its contact — kept after the contact is
          deleted. Nothing here can be edited.
        </p>
        <form method="get" action="/console/consent" class="consent-search" role="search">
          <label>
            Phone number or contact id
            <input name="q" value={query} required maxlength={64} placeholder="+49 151 12345678" autocomplete="off" />
          </label>
          <button type="submit">Look up</button>
        </form>
        <p class="consent-export">
          <a href="/console/consent/export.csv" download>
            Download the account’s whole consent record (CSV)
          </a>
        </p>
        <ErrorNote message={error} />
      </section>
      <ReviewList reviews={reviews} more={moreReviews} csrf={user.csrfToken} timezone={timezone} />
      {standing ? (
        <section class="card consent-standing" aria-labelledby="standing-h">
          <h2 id="standing-h">{standing.phone}</h2>
          <ul class="consent-facts">
            <li>
              {standing.optedOut ? (
                <span class="badge status-rejected">Opted out since {formatTime(standing.optedOutAt, timezone)}</span>
              ) : (
                <span class="badge status-approved">Not opted out</span>
              )}
            </li>
            {standing.underReview ? (
              <li>
                <span class="badge status-pending">Marketing paused: a reply waits for review</span>
              </li>
            ) : null}
            <li>
              {standing.contactId === null ? (
                <span class="muted">No contact (deleted or never created)</span>
              ) : (
                <>
                  Contact <code>{standing.contactId}</code>: {standing.contactDisabled ? 'disabled' : 'enabled'}
                </>
              )}
            </li>
          </ul>
          {standing.contactId !== null ? (
            <PostForm action="/console/consent/contact" csrf={user.csrfToken} class="inline-form">
              <input type="hidden" name="contactId" value={standing.contactId} />
              <input type="hidden" name="action" value={standing.contactDisabled ? 'enable' : 'disable'} />
              <button type="submit" class={standing.contactDisabled ? 'small' : 'danger small'}>
                {standing.contactDisabled ? 'Enable contact' : 'Disable contact'}
              </button>
            </PostForm>
          ) : null}
          {standing.optedOut ? <p class="muted">Enabling the contact does not lift the opt-out: only the person can, by replying START.</p> : null}
          <h3>History, newest first</h3>
          {events.length === 0 ? (
            <p class="muted">Nothing recorded yet.</p>
          ) : (
            <ol class="consent-history">
              {events.map((e) => (
                <li class={`consent-event kind-${e.kind}`} data-event-id={e.id}>
                  <p class="consent-event-head">
                    <strong>{KIND_LABELS[e.kind]}</strong> <span class="muted">via {SOURCE_LABELS[e.source]}</span>
                    <time datetime={e.occurredAt}>{formatTime(e.occurredAt, timezone)}</time>
                  </p>
                  <dl>
                    {details(e).map(([k, v]) => (
                      <>
                        <dt>{k}</dt>
                        <dd>{v}</dd>
                      </>
                    ))}
                  </dl>
                </li>
              ))}
            </ol>
          )}
          <p class="pager">
            {paged ? <a href={back}>Newest</a> : null}
            {paged && olderHref ? ' · ' : null}
            {olderHref ? <a href={olderHref}>Older events</a> : null}
          </p>
        </section>
      ) : null}
    </ConsoleFrame>
  );
}
