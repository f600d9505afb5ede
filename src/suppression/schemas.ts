import { z } from 'zod';
import type { DbOrTx, Tx } from '../platform/db/database.js';
import type { ConsentKind, ConsentReviewReason, ConsentReviewStatus, ConsentSource } from './tables.js';
import { cursorQueryFields } from '../platform/pagination.js';

/** The kinds of a consent event: the person's consent (opt_in, opt_out, resubscribe) and the business's switch. */
export const CONSENT_KINDS = ['opt_in', 'opt_out', 'resubscribe', 'disabled', 'enabled', 'paused', 'released'] as const satisfies readonly ConsentKind[];
export const CONSENT_SOURCES = ['form', 'api', 'console', 'keyword', 'chip', 'link'] as const satisfies readonly ConsentSource[];

/** One event of a number's consent record, as REST, MCP and the console show it. */
export const ConsentEventSchema = z.object({
  id: z.string().describe('cev_…'),
  phone: z.string().describe('E.164.'),
  contactId: z.string().nullable().describe('The contact when it happened (it may have been deleted since).'),
  kind: z.enum(CONSENT_KINDS).describe('opt_in, opt_out, resubscribe: the person; disabled, enabled: the business switched the contact; paused: a reply that may be a request to stop paused marketing (a consent review); released: a person released the number after review.'),
  source: z.enum(CONSENT_SOURCES),
  occurredAt: z.string(),
  receivedText: z.string().nullable().describe('keyword/chip: the message as received.'),
  keyword: z.string().nullable().describe('keyword/chip: the word it was recognised as.'),
  formId: z.string().nullable(),
  formName: z.string().nullable(),
  submissionId: z.string().nullable(),
  clientAddress: z.string().nullable().describe('form: the address of the request that confirmed.'),
  declaredSource: z.string().nullable().describe('api/console: the consentSource the caller declared.'),
  actor: z.string().nullable().describe('api/console: user, key or app that made the change.'),
  actorId: z.string().nullable(),
  senderId: z.string().nullable(),
  messageId: z.string().nullable().describe('The incoming message, the message whose link was used, or the confirmation SMS.'),
  note: z.string().nullable(),
});
export type ConsentEvent = z.infer<typeof ConsentEventSchema>;

export const ConsentQuerySchema = z.object({ ...cursorQueryFields({ defaultLimit: 50, maxLimit: 200 }) });

/** A declared source of consent on contacts created through the API or console ("paper form at the shop, 2026-03-01"). */
export const ConsentSourceInputSchema = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .describe('How this person consented (e.g. "signed up at the counter"); recorded as an opt-in on the consent record.');

export interface ConsentEventInput {
  accountId: string;
  /** Digits with country code. */
  phone: string;
  contactId?: string | null;
  kind: ConsentKind;
  source: ConsentSource;
  receivedText?: string | null;
  keyword?: string | null;
  formId?: string | null;
  formName?: string | null;
  submissionId?: string | null;
  clientAddress?: string | null;
  declaredSource?: string | null;
  actor?: string | null;
  actorId?: string | null;
  senderId?: string | null;
  messageId?: string | null;
  note?: string | null;
  at: number;
}

/** On an enable, a declared or a form opt-in of a number that opted out: only the person's START lifts an opt-out. */
export const OPT_OUT_STANDS = 'The number opted out and its opt-out stands: sends to it stay refused until the person replies START';

/** What the areas above (contacts, forms, inbound through OptOutService) use to write the record. */
export interface ConsentRecorder {
  record(tx: Tx, event: ConsentEventInput): Promise<void>;
  recordMany(tx: Tx, events: readonly ConsentEventInput[]): Promise<void>;
  /** Which of these numbers (digits) are on the account's suppression list now. */
  optedOut(tx: DbOrTx, accountId: string, phones: readonly string[]): Promise<Set<string>>;
}

/** Whether a number is on the suppression list, and since when. */
export interface ConsentStatus {
  optedOut: boolean;
  optedOutAt: string | null;
  /** An open consent review: marketing to the number is paused (issue #42). */
  underReview: boolean;
  reviewId: string | null;
}


export const CONSENT_REVIEW_STATUSES = ['open', 'confirmed', 'released'] as const satisfies readonly ConsentReviewStatus[];
export const CONSENT_REVIEW_REASONS = ['stop_word_edge', 'stop_phrase', 'stop_word_inside', 'contradicted', 'complaint'] as const satisfies readonly ConsentReviewReason[];

/** A consent review (issue #42), as REST, the console and the consent.review webhook show it. */
export const ConsentReviewSchema = z.object({
  id: z.string().describe('crv_…'),
  phone: z.string().describe('E.164.'),
  contactId: z.string().nullable(),
  status: z.enum(CONSENT_REVIEW_STATUSES).describe('open: marketing to the number is paused until a person decides; confirmed: opted out; released: marketing may go again.'),
  reason: z
    .enum(CONSENT_REVIEW_REASONS)
    .describe('stop_word_inside: a stop word inside a sentence; contradicted: a stop request the reply also negates or contradicts ("Stop? I want these"); complaint: wrong number, spam, not interested, …'),
  keyword: z.string().nullable().describe('The stop word, phrase or complaint it was recognised by.'),
  receivedText: z.string().nullable().describe('The reply as received.'),
  senderId: z.string().nullable(),
  messageId: z.string().nullable().describe('The incoming message.'),
  replies: z.number().int().describe('Replies read as possible requests while it was open.'),
  lastText: z.string().nullable().describe('The latest of them, when there were several.'),
  cancelledMessages: z.number().int().describe('Queued or scheduled marketing messages to the number cancelled when it opened.'),
  openedAt: z.string(),
  decidedAt: z.string().nullable(),
  decidedBy: z.string().nullable().describe('The person (user "a@b.c"), key, or "recipient" when the person\'s own STOP or START closed it.'),
  decidedVia: z.string().nullable().describe('session (console), api_key, oauth, or keyword.'),
  note: z.string().nullable(),
});
export type ConsentReview = z.infer<typeof ConsentReviewSchema>;

export const ConsentReviewQuerySchema = z.object({
  status: z.enum(CONSENT_REVIEW_STATUSES).optional().describe('Only reviews in this state; default: open.'),
  ...cursorQueryFields({ defaultLimit: 50, maxLimit: 200 }),
});

export const ConsentReviewDecisionSchema = z.object({
  note: z.string().trim().max(500).optional().describe('Why, for the consent record (at most 500 characters).'),
});

/** What a consent review's change tells the listeners (webhook consent.review). */
export interface ConsentReviewEvent {
  accountId: string;
  /** opened: marketing paused; confirmed: opted out (by a person or the recipient's own STOP); released: a person released it (or the recipient's START). */
  action: 'opened' | 'confirmed' | 'released';
  review: ConsentReview;
  at: number;
}
