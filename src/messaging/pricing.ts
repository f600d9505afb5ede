/**
 * Messaging's port to conversation billing. What a message costs is decided in
 * src/billing/pricing.ts (priceMessage); this file only says how a send asks which of its RCS
 * messages fall in an open conversation window.
 */
import type { DbOrTx } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';

/** The senders table's row (owned by src/senders/, read here through the database's type: no import of a higher area). */
type SendersTable = Database['senders'];

/** One RCS message of a send that conversation billing may make free. */
export interface ConversationCandidate {
  messageId: string;
  /** Digits with country code. */
  phone: string;
  country: string;
  /** When it goes out: accept time, or its schedule / batch-slice time. */
  at: number;
}

/**
 * Conversation billing (spec §3.3), asked once per send inside the send transaction (so it must
 * use `tx` for every query): which of these messages are free because a window of this sender is
 * open at their send time. Every other one is charged and opens a window (written in `tx`, so a
 * rolled-back send or dry run leaves nothing behind). Test phones and SMS-only recipients are
 * never passed. The real one is src/conversations/service.ts.
 */
export interface ConversationPricing {
  freeMessages(tx: DbOrTx, accountId: string, sender: SendersTable, messages: readonly ConversationCandidate[]): Promise<ReadonlySet<string>>;
}

export const noConversationPricing: ConversationPricing = { freeMessages: async () => new Set() };
