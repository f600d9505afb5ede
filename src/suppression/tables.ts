/*
 * The tables the suppression area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

/**
 * The consent record (migration 028, src/suppression/consent.ts). Append-only: rows are inserted, never updated or
 * deleted (they go only with their account). See docs/storage.md "consent_events".
 */

/**
 * opt_in, opt_out and resubscribe are the person's consent; disabled/enabled are the business's own switch; paused and
 * released are a consent review (issue #42): a reply that may be a request to stop paused marketing, and a person
 * released the number (a confirmed review is an opt_out).
 */
export type ConsentKind = 'opt_in' | 'opt_out' | 'resubscribe' | 'disabled' | 'enabled' | 'paused' | 'released';

/** Where the change came from. */
export type ConsentSource = 'form' | 'api' | 'console' | 'keyword' | 'chip' | 'link';

/** A consent review's state: waiting for a person, or what the person (or the recipient's own STOP/START) decided. */
export type ConsentReviewStatus = 'open' | 'confirmed' | 'released';

/** Why a reply was put in front of a person (src/inbound/stop-requests.ts StopReason). */
export type ConsentReviewReason = 'stop_word_edge' | 'stop_phrase' | 'stop_word_inside' | 'contradicted' | 'complaint';

/**
 * Replies that may be a request to stop (migration 036, src/suppression/reviews.ts, its only writer): marketing to the
 * number is paused while a review is open; a person confirms the opt-out or releases the number. At most one open
 * review per number (a second such reply adds to it: replies, last_text, last_message_id).
 */
export interface ConsentReviewsTable {
  /** crv_… (time-ordered). */
  id: string;
  account_id: string;
  /** Digits with country code, no +. */
  phone: string;
  contact_id: string | null;
  status: ConsentReviewStatus;
  reason: ConsentReviewReason;
  /** The stop word, phrase or complaint it was recognised by, folded. */
  keyword: string | null;
  /** The first reply as received (at most 1,000 characters). */
  received_text: string | null;
  sender_id: string | null;
  /** The first reply (an incoming message). */
  message_id: string | null;
  /** Replies that were read as possible requests while it was open (1 for the first). */
  replies: number;
  last_text: string | null;
  last_message_id: string | null;
  /** Marketing messages to the number cancelled when it opened. */
  cancelled_messages: number;
  opened_at: number;
  decided_at: number | null;
  /** `user "a@b.c"`, `key "Automation"`, or `recipient` when the person's own STOP or START closed it. */
  decided_by: string | null;
  decided_by_id: string | null;
  /** session (console), api_key, or keyword (the recipient's own STOP/START). */
  decided_via: string | null;
  note: string | null;
}

export interface ConsentEventsTable {
  /** cev_… (time-ordered). */
  id: string;
  account_id: string;
  /** Digits with country code, no +. */
  phone: string;
  /** The number's contact when the change happened; a plain column: the row outlives the contact. */
  contact_id: string | null;
  kind: ConsentKind;
  source: ConsentSource;
  /** keyword/chip: the incoming message's text as received (at most 1,000 characters). */
  received_text: string | null;
  /** keyword/chip: the word it was recognised as (STOP, START, the sender's trigger, …). */
  keyword: string | null;
  /** form: the form, its name then, the confirmed submission and the client address of the confirming request. */
  form_id: string | null;
  form_name: string | null;
  submission_id: string | null;
  client_address: string | null;
  /** api/console: the source of consent the caller declared (`consentSource`). */
  declared_source: string | null;
  /** api/console: who — `user "a@b.c"`, `key "Automation"`, `app "Claude"`; actor_id is usr_…, key_… or the client id. */
  actor: string | null;
  actor_id: string | null;
  /** The sender written to (keyword/chip), or the form's confirmation sender. */
  sender_id: string | null;
  /** The incoming message (keyword/chip), the message whose unsubscribe link was used, the form's confirmation SMS. */
  message_id: string | null;
  /** A fixed explanation (e.g. that the number's opt-out still stands after an enable). */
  note: string | null;
  occurred_at: number;
}

/**
 * Numbers that opted out of an account (STOP, the sender's keyword, the unsubscribe link). Keyed
 * by number, not contact: the opt-out outlives a deleted contact and covers sends without one.
 */
export interface OptOutsTable {
  account_id: string;
  phone: string;
  contact_id: string | null;
  /** chip: an unsubscribe chip's tap that the network reported as one (RBM; see docs/storage.md); console/api: a person confirmed a consent review. */
  source: OptOutSource;
  /** The keyword as matched (STOP, the sender's keyword), for `keyword` opt-outs. */
  keyword: string | null;
  sender_id: string | null;
  /** The inbound message (keyword) or the message whose link was used. */
  message_id: string | null;
  created_at: number;
}

/** Where an opt-out came from: the recipient (keyword, chip, link) or a person of the account confirming a review. */
export type OptOutSource = 'keyword' | 'link' | 'chip' | 'console' | 'api';

export interface SuppressionTables {
  consent_reviews: ConsentReviewsTable;
  consent_events: ConsentEventsTable;
  opt_outs: OptOutsTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the suppression area's tables join the database's type
  interface Database extends SuppressionTables {}
}
