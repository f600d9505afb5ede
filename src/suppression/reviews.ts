import { sql } from 'kysely';
import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db, type Tx } from '../platform/db/database.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { keysetPage, type CursorPage } from '../platform/pagination.js';
import type { Actor } from '../platform/permissions.js';
import type { CancelPending, OptOutContacts, OptOutListener, OptOutService } from './opt-outs.js';
import { optedOutPhones } from './opt-outs.js';
import { closeOpenReview, lockNumberReview, openReviewOf, pausedPhones, pendingMarketing, presentReview, type ReviewDecider } from './review-rows.js';
import type { ConsentRecorder, ConsentReview } from './schemas.js';
import type { ConsentReviewReason, ConsentReviewStatus, ConsentReviewsTable } from './tables.js';

/** Longest text kept of a reply on a review (as on the consent record). */
const REVIEW_TEXT_MAX = 1000;
const cut = (s: string | null | undefined, max = REVIEW_TEXT_MAX): string | null => (s === undefined || s === null ? null : s.length > max ? s.slice(0, max) : s);

export interface OpenReviewInput {
  accountId: string;
  /** Digits with country code. */
  phone: string;
  reason: ConsentReviewReason;
  keyword: string;
  receivedText: string;
  senderId: string | null;
  /** The incoming message. */
  messageId: string | null;
  at: number;
}

export interface OpenReviewResult {
  /** opened: a new review, marketing paused now; added: the number was already under review; none: it had opted out. */
  outcome: 'opened' | 'added' | 'none';
  review: ConsentReview | null;
}

export interface ConsentReviewsDeps {
  db: Db;
  clock: Clock;
  optOuts: Pick<OptOutService, 'optOut'>;
  contacts: Pick<OptOutContacts, 'find'>;
  consent: Pick<ConsentRecorder, 'record'>;
  events: Pick<OptOutListener, 'reviewChanged'>;
  cancelPending: CancelPending;
}

/** Who decided, as the review and the consent record name them. */
function decider(actor: Actor): ReviewDecider {
  return { label: actor.label, id: actor.credentialId, via: actor.via ?? 'api_key' };
}

/**
 * The consent review list (issue #42; DESIGN §5 item 10): a reply that may be a request to stop ("Stop? I want
 * these", "wrong number", a stop word inside a sentence) pauses marketing to the number at once — its queued and
 * scheduled marketing is cancelled, every later send that is not transactional refuses it — and waits here for a
 * person, who confirms the opt-out or releases the number. Nothing waits for an assistant: a credential whose sends
 * need approval cannot decide (the routes refuse it). The recipient's own STOP closes the review as confirmed, START
 * as released (opt-outs.ts). Every change is on the consent record and told to the listeners (webhook consent.review).
 */
export class ConsentReviews {
  constructor(private readonly d: ConsentReviewsDeps) {}

  /** A reply that may be a request to stop, inside the transaction that recorded it (inbound). */
  async open(tx: Tx, input: OpenReviewInput): Promise<OpenReviewResult> {
    await lockNumberReview(tx, input.accountId, input.phone);
    if ((await optedOutPhones(tx, input.accountId, [input.phone])).size > 0) return { outcome: 'none', review: null };
    const existing = await openReviewOf(tx, input.accountId, input.phone);
    if (existing) {
      const replies = Number(existing.replies) + 1;
      await tx.updateTable('consent_reviews').set({ replies, last_text: cut(input.receivedText), last_message_id: input.messageId }).where('id', '=', existing.id).execute();
      return { outcome: 'added', review: presentReview({ ...existing, replies, last_text: cut(input.receivedText), last_message_id: input.messageId }) };
    }
    const contact = await this.d.contacts.find(tx, input.accountId, input.phone);
    const pending = await pendingMarketing(tx, input.accountId, input.phone);
    const cancelled = pending.length ? await this.d.cancelPending(tx, input.accountId, pending, input.at) : 0;
    const row: ConsentReviewsTable = {
      id: newId('crv', input.at),
      account_id: input.accountId,
      phone: input.phone,
      contact_id: contact?.id ?? null,
      status: 'open',
      reason: input.reason,
      keyword: cut(input.keyword, 100),
      received_text: cut(input.receivedText),
      sender_id: input.senderId,
      message_id: input.messageId,
      replies: 1,
      last_text: cut(input.receivedText),
      last_message_id: input.messageId,
      cancelled_messages: cancelled,
      opened_at: input.at,
      decided_at: null,
      decided_by: null,
      decided_by_id: null,
      decided_via: null,
      note: null,
    };
    await tx.insertInto('consent_reviews').values(row).execute();
    await this.d.consent.record(tx, {
      accountId: input.accountId,
      phone: input.phone,
      contactId: row.contact_id,
      kind: 'paused',
      source: 'keyword',
      receivedText: input.receivedText,
      keyword: input.keyword,
      senderId: input.senderId,
      messageId: input.messageId,
      note: `Marketing paused until a person reviews the reply (${row.id})${cancelled ? `; ${cancelled} queued message${cancelled === 1 ? '' : 's'} cancelled` : ''}`,
      at: input.at,
    });
    const review = presentReview(row);
    await this.d.events.reviewChanged(tx, { accountId: input.accountId, action: 'opened', review, at: input.at });
    return { outcome: 'opened', review };
  }

  /** Which of these numbers are paused (an open review). */
  async paused(tx: Tx | Db, accountId: string, phones: readonly string[]): Promise<Set<string>> {
    return pausedPhones(tx, accountId, phones);
  }

  /** The account's reviews in one state (open by default), newest first, cursor-paged. */
  async list(accountId: string, q: { status?: ConsentReviewStatus | undefined; limit: number; cursor?: string | undefined }): Promise<CursorPage<ConsentReview>> {
    const status = q.status ?? 'open';
    const query = this.d.db.selectFrom('consent_reviews').selectAll().where('account_id', '=', accountId).where('status', '=', status);
    const { rows, pagination } = await keysetPage(query, {
      scope: { kind: `consent-reviews-${status}`, sort: 'openedAt', order: 'desc' },
      sortExpr: sql.ref('opened_at'),
      idExpr: sql.ref('id'),
      limit: q.limit,
      cursor: q.cursor,
    });
    return { data: rows.map(presentReview), pagination };
  }

  /** How many reviews wait for a person (the console's badge). */
  async openCount(accountId: string): Promise<number> {
    const r = await this.d.db.selectFrom('consent_reviews').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).where('status', '=', 'open').executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async get(accountId: string, id: string): Promise<ConsentReview> {
    const r = await this.d.db.selectFrom('consent_reviews').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    if (!r) throw new AppError('NOT_FOUND', `Consent review ${id} not found`);
    return presentReview(r);
  }

  /**
   * A person confirms the opt-out: the number goes on the opt-out list (source console or api, the person as actor),
   * its contact is disabled, the review closes as confirmed. No confirmation text is sent: the reply was not a clear
   * request, and an opt-out confirmation after a delay reads as another marketing message (docs/decisions.md).
   */
  async confirm(accountId: string, id: string, actor: Actor, note?: string): Promise<ConsentReview> {
    await inTransaction(this.d.db, async (tx) => {
      const review = await this.openForDecision(tx, accountId, id);
      const at = this.d.clock.now();
      await this.d.optOuts.optOut(tx, {
        accountId,
        phone: review.phone,
        source: actor.via === 'session' ? 'console' : 'api',
        keyword: review.keyword,
        receivedText: review.received_text,
        senderId: review.sender_id,
        messageId: review.message_id,
        actor: decider(actor),
        note: note ?? null,
        at,
      });
    });
    return this.get(accountId, id);
  }

  /** A person releases the number: marketing may go to it again. The cancelled messages are not sent again. */
  async release(accountId: string, id: string, actor: Actor, note?: string): Promise<ConsentReview> {
    await inTransaction(this.d.db, async (tx) => {
      const review = await this.openForDecision(tx, accountId, id);
      const at = this.d.clock.now();
      const closed = await closeOpenReview(tx, accountId, review.phone, 'released', decider(actor), at, note ?? null);
      if (!closed) throw new AppError('CONFLICT', `Consent review ${id} is no longer open`);
      await this.d.consent.record(tx, {
        accountId,
        phone: review.phone,
        contactId: review.contact_id,
        kind: 'released',
        source: actor.via === 'session' ? 'console' : 'api',
        actor: actor.label,
        actorId: actor.credentialId,
        note: note ? `Released after review (${id}): ${note}` : `Released after review (${id})`,
        at,
      });
      await this.d.events.reviewChanged(tx, { accountId, action: 'released', review: presentReview(closed), at });
    });
    return this.get(accountId, id);
  }

  /** The review, locked, still open; 404 for another account's or an unknown id, 409 when already decided. */
  private async openForDecision(tx: Tx, accountId: string, id: string): Promise<ConsentReviewsTable> {
    const found = await tx.selectFrom('consent_reviews').select(['phone']).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    if (!found) throw new AppError('NOT_FOUND', `Consent review ${id} not found`);
    await lockNumberReview(tx, accountId, found.phone);
    const review = await tx.selectFrom('consent_reviews').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    if (review.status !== 'open') {
      throw new AppError('CONFLICT', `Consent review ${id} was already decided (${review.status}${review.decided_by ? ` by ${review.decided_by}` : ''})`);
    }
    return review;
  }
}
