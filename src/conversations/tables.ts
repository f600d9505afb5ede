/*
 * The tables the conversations area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

/**
 * Conversation windows (migration 007; interactions and opt-outs, of the same migration, belong to inbound/ and
 * suppression/). Times are epoch milliseconds. Every row carries account_id. See docs/storage.md "Engagement".
 */

/**
 * One conversation window (spec §3.3): opened by the first billable RCS message of a
 * conversation-billing sender to a number, free messages inside it. Status (ACTIVE/EXPIRED) is
 * never stored: it is derived from `expires_at` when someone asks.
 */
export interface ConversationsTable {
  /** cnv_… */
  id: string;
  account_id: string;
  sender_id: string;
  /** Digits with country code, no +. */
  phone: string;
  country: string | null;
  /**
   * The charged message that opened the window. A window whose opening message no longer exists
   * (a cancelled scheduled send) or FAILED is void and ignored everywhere.
   */
  opened_message_id: string;
  /** The opening message's send time (accept time, or its schedule/slice time). */
  started_at: number;
  /** `started_at` + 24 h, moved once to 24 h after the person's first reply. */
  expires_at: number;
  /** The person's first reply or chip tap inside the window; null until then. */
  user_replied_at: number | null;
  last_activity_at: number;
  /** Our messages in the window (the opening one included). */
  outbound_count: number;
  /** Replies and taps of the person in the window. */
  inbound_count: number;
  created_at: number;
}

export interface ConversationsTables {
  conversations: ConversationsTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the conversations area's tables join the database's type
  interface Database extends ConversationsTables {}
}
