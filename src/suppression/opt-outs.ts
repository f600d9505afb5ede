import { sql } from 'kysely';
import { jsonList } from '../platform/db/sql.js';
import type { Db, DbOrTx, Tx } from '../platform/db/database.js';
import { closeOpenReview, lockNumberReview, presentReview, type ReviewDecider } from './review-rows.js';
import type { ConsentRecorder, ConsentReviewEvent } from './schemas.js';
import type { OptOutSource } from './tables.js';

/*
 * The suppression list: which numbers opted out of an account. It sits below both messaging (every send checks it)
 * and inbound (STOP, START and the unsubscribe link change it), so neither imports the other for it; what an opt-out
 * sets off in those areas (cancel queued messages, tell listeners) reaches it through the ports below.
 */

/** Marks disabled_reason of contacts disabled by an opt-out, so START can undo exactly those. */
export const OPTED_OUT_REASON_PREFIX = 'Opted out';

/**
 * Which of these numbers (digits) opted out of the account. Used by every send (src/messaging/
 * recipients.ts) before contacts are looked up or created: an opt-out is per number, so it also
 * covers sends with skipContactCreation and survives the deletion of the contact.
 */
export async function optedOutPhones(tx: DbOrTx, accountId: string, phones: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  if (phones.length === 0) return out;
  // One statement for a whole batch: the numbers travel as one JSON parameter (jsonList).
  const rows = await tx
    .selectFrom('opt_outs')
    .select('phone')
    .where('account_id', '=', accountId)
    .where('phone', 'in', jsonList(tx, phones))
    .execute();
  for (const r of rows) out.add(r.phone);
  return out;
}

export interface OptOutInput {
  accountId: string;
  /** Digits with country code. */
  phone: string;
  /**
   * chip: an unsubscribe chip's tap the network reported as such (RBM); a typed word or a chip a network cannot tell
   * apart is keyword; console/api: a person of the account confirmed a consent review (with `actor`).
   */
  source: OptOutSource;
  keyword?: string | null;
  /** console/api: the person or key that confirmed it. */
  actor?: ReviewDecider | null;
  /** console/api: why, as the person wrote it. */
  note?: string | null;
  /** The incoming message's text as received (keyword, chip): kept on the consent record. */
  receivedText?: string | null;
  senderId?: string | null;
  /** The inbound message with the keyword, or the message whose unsubscribe link was used. */
  messageId?: string | null;
  at: number;
}

/** START and its equivalents: the person asked to receive messages again. */
export interface OptInInput {
  accountId: string;
  /** Digits with country code. */
  phone: string;
  keyword?: string | null;
  receivedText?: string | null;
  senderId?: string | null;
  messageId?: string | null;
  at: number;
}

export interface OptOutEvent {
  accountId: string;
  /** E.164 with +. */
  phone: string;
  contactId: string | null;
  source: OptOutSource;
  keyword: string | null;
  senderId: string | null;
  /** The incoming message, or the message whose link was used. */
  messageId: string | null;
  /** console/api: who confirmed it (`user "a@b.c"`, `key "…"`). */
  actor: string | null;
  /** Scheduled or queued messages to the number that were cancelled. */
  cancelledMessages: number;
  at: number;
}

export interface OptInEvent {
  accountId: string;
  /** E.164 with +. */
  phone: string;
  contactId: string | null;
  /** The word it was recognised as (START, UNSTOP, ANMELDEN, …). */
  keyword: string | null;
  senderId: string | null;
  /** The incoming message. */
  messageId: string | null;
  at: number;
}

/** Who hears of opt-outs, opt-ins and consent reviews (inbound's EngagementEvents), inside the transaction that recorded them. */
export interface OptOutListener {
  optedOut(tx: Tx, event: OptOutEvent): Promise<void>;
  optedIn(tx: Tx, event: OptInEvent): Promise<void>;
  /** A consent review opened, was confirmed (an opt-out) or released (issue #42). */
  reviewChanged(tx: Tx, event: ConsentReviewEvent): Promise<void>;
}

/** The recipient's own STOP or START, as the review it closes names the decider. */
const RECIPIENT: ReviewDecider = { label: 'recipient', id: null, via: 'keyword' };

/** Cancels these messages of the account, not yet handed to a carrier, in `tx`; returns how many (messaging). */
export type CancelPending = (tx: Tx, accountId: string, messageIds: readonly string[], at: number) => Promise<number>;

export interface OptOutResult {
  /** The number was already out before this request (nothing changed). */
  alreadyOptedOut: boolean;
  contactId: string | null;
  cancelledMessages: number;
}

/**
 * The number's contact as an opt-out sees it, and the two changes an opt-out and an opt-in make to
 * it. The contacts row belongs to contacts/ (its one writer, issue #32), which implements this
 * port (src/contacts/opt-out-port.ts); context.ts hands it in. Each call runs in the caller's
 * transaction, so the suppression entry and the contact change commit together.
 */
export interface OptOutContacts {
  /** The account's contact of this number, if there is one. */
  find(tx: Tx, accountId: string, phone: string): Promise<{ id: string; disabled: number; disabledReason: string | null } | undefined>;
  /** Disables the contact because its person opted out; `reason` starts with OPTED_OUT_REASON_PREFIX. */
  disableForOptOut(tx: Tx, contactId: string, reason: string, at: number): Promise<void>;
  /** Enables again a contact an opt-out had disabled. */
  enableAfterOptIn(tx: Tx, contactId: string, at: number): Promise<void>;
}

export interface OptOutDeps {
  db: Db;
  /** The number's contact: found, disabled by an opt-out, enabled again by an opt-in. */
  contacts: OptOutContacts;
  /** Hears of each opt-out and opt-in inside its transaction (inbound's EngagementEvents). */
  events: OptOutListener;
  /** Cancels what is still queued or scheduled for the number (messaging). */
  cancelPending: CancelPending;
  /** Writes each change to the consent record in the same transaction. */
  consent: Pick<ConsentRecorder, 'record'>;
}

/**
 * Opt-out and opt-in of a number (STOP, the sender's keyword, the unsubscribe link; START). One
 * place, so every path does the same: record the number, disable its contact with a reason that
 * says why, cancel everything still queued or scheduled for it, tell the listeners. Always inside
 * the caller's transaction. Each change (not a repeated STOP, not a START of a number that was not out) is written to
 * the consent record in the same transaction.
 */
export class OptOutService {
  constructor(private readonly d: OptOutDeps) {}

  async isOptedOut(accountId: string, phone: string, tx: DbOrTx = this.d.db): Promise<boolean> {
    return (await optedOutPhones(tx, accountId, [phone])).size > 0;
  }

  async optOut(tx: Tx, input: OptOutInput): Promise<OptOutResult> {
    // The number's review lock: a review being opened or decided for it at this moment waits for this opt-out.
    await lockNumberReview(tx, input.accountId, input.phone);
    const contact = await this.d.contacts.find(tx, input.accountId, input.phone);
    const inserted = await tx
      .insertInto('opt_outs')
      .values({
        account_id: input.accountId,
        phone: input.phone,
        contact_id: contact?.id ?? null,
        source: input.source,
        keyword: input.keyword ?? null,
        sender_id: input.senderId ?? null,
        message_id: input.messageId ?? null,
        created_at: input.at,
      })
      .onConflict((oc) => oc.columns(['account_id', 'phone']).doNothing())
      .executeTakeFirst();
    const already = Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0;
    if (contact && contact.disabled !== 1) {
      const why =
      input.source === 'link'
        ? 'used the unsubscribe link'
        : input.source === 'chip'
          ? `tapped the unsubscribe chip (${input.keyword ?? 'STOP'})`
          : input.source === 'console' || input.source === 'api'
            ? `replied "${input.keyword ?? 'STOP'}", confirmed by ${input.actor?.label ?? 'a person'}`
            : `replied ${input.keyword ?? 'STOP'}`;
      await this.d.contacts.disableForOptOut(tx, contact.id, `${OPTED_OUT_REASON_PREFIX}: ${why}`, input.at);
    }
    // Everything not yet handed to a carrier: scheduled messages and queued batch slices. Not the automatic answers
    // (source SYSTEM: an opt-out's confirmation, HELP's details), which the opt-out does not stop (queueSystemText): a
    // second STOP at the same moment finds the number already out, and on PostgreSQL its transaction sees the first
    // one's confirmation committed and still queued — cancelling it left the person with no confirmation at all.
    const pending = await tx
      .selectFrom('messages')
      .select('id')
      .where('account_id', '=', input.accountId)
      .where('phone', '=', input.phone)
      .where('direction', '=', 'OUTBOUND')
      .where('source', '!=', 'SYSTEM')
      // Unary plus: SQLite's planner (no statistics) must not read this through messages_dispatch (pending, due_at),
      // every queued message of every account, instead of the number's own index; adding any column to messages tips
      // its estimate that way (SQLite's "disqualifying WHERE clause terms using unary +"; a no-op on PostgreSQL).
      .where(sql<number>`+${sql.ref('pending')}`, '=', 1)
      .execute();
    const cancelled = pending.length ? await this.d.cancelPending(tx, input.accountId, pending.map((p) => p.id), input.at) : 0;
    // An open consent review of the number is answered: by the person who confirmed it, or by the recipient's own STOP.
    const decidedBy = input.actor ?? RECIPIENT;
    const closed = await closeOpenReview(tx, input.accountId, input.phone, 'confirmed', decidedBy, input.at, input.note ?? null);
    if (closed) await this.d.events.reviewChanged(tx, { accountId: input.accountId, action: 'confirmed', review: presentReview(closed), at: input.at });
    if (!already) {
      await this.d.consent.record(tx, {
        accountId: input.accountId,
        phone: input.phone,
        contactId: contact?.id ?? null,
        kind: 'opt_out',
        source: input.source,
        receivedText: input.receivedText ?? null,
        keyword: input.keyword ?? null,
        senderId: input.senderId ?? null,
        messageId: input.messageId ?? null,
        actor: input.actor?.label ?? null,
        actorId: input.actor?.id ?? null,
        note: closed ? `Confirmed after review (${closed.id})${input.note ? `: ${input.note}` : ''}` : null,
        at: input.at,
      });
      await this.d.events.optedOut(tx, {
        accountId: input.accountId,
        phone: `+${input.phone}`,
        contactId: contact?.id ?? null,
        source: input.source,
        keyword: input.keyword ?? null,
        senderId: input.senderId ?? null,
        messageId: input.messageId ?? null,
        actor: input.actor?.label ?? null,
        cancelledMessages: cancelled,
        at: input.at,
      });
    }
    return { alreadyOptedOut: already, contactId: contact?.id ?? null, cancelledMessages: cancelled };
  }

  /**
   * The person asked to receive messages again (START). Removes the opt-out and re-enables the
   * contact only when the opt-out had disabled it; a contact the business disabled stays disabled.
   * Returns whether the number had been opted out.
   */
  async optIn(tx: Tx, input: OptInInput): Promise<boolean> {
    await lockNumberReview(tx, input.accountId, input.phone);
    // START while the number is under review: the person said they want the messages — the pause ends.
    const released = await closeOpenReview(tx, input.accountId, input.phone, 'released', RECIPIENT, input.at, `The recipient replied ${input.keyword ?? 'START'}`);
    if (released) {
      await this.d.consent.record(tx, {
        accountId: input.accountId,
        phone: input.phone,
        contactId: released.contact_id,
        kind: 'released',
        source: 'keyword',
        receivedText: input.receivedText ?? null,
        keyword: input.keyword ?? null,
        senderId: input.senderId ?? null,
        messageId: input.messageId ?? null,
        note: `Released by the recipient's ${input.keyword ?? 'START'} (${released.id})`,
        at: input.at,
      });
      await this.d.events.reviewChanged(tx, { accountId: input.accountId, action: 'released', review: presentReview(released), at: input.at });
    }
    const removed = await tx.deleteFrom('opt_outs').where('account_id', '=', input.accountId).where('phone', '=', input.phone).executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) return false;
    const contact = await this.d.contacts.find(tx, input.accountId, input.phone);
    if (contact && contact.disabled === 1 && (contact.disabledReason ?? '').startsWith(OPTED_OUT_REASON_PREFIX)) {
      await this.d.contacts.enableAfterOptIn(tx, contact.id, input.at);
    }
    await this.d.consent.record(tx, {
      accountId: input.accountId,
      phone: input.phone,
      contactId: contact?.id ?? null,
      kind: 'resubscribe',
      source: 'keyword',
      receivedText: input.receivedText ?? null,
      keyword: input.keyword ?? null,
      senderId: input.senderId ?? null,
      messageId: input.messageId ?? null,
      note: contact && contact.disabled === 1 && !(contact.disabledReason ?? '').startsWith(OPTED_OUT_REASON_PREFIX) ? 'The contact stays disabled: the business disabled it' : null,
      at: input.at,
    });
    await this.d.events.optedIn(tx, {
      accountId: input.accountId,
      phone: `+${input.phone}`,
      contactId: contact?.id ?? null,
      keyword: input.keyword ?? null,
      senderId: input.senderId ?? null,
      messageId: input.messageId ?? null,
      at: input.at,
    });
    return true;
  }
}
