/**
 * Conversation windows, interactions and opt-outs (migration 007). Times are epoch milliseconds.
 * Every row carries account_id. See docs/storage.md "Engagement".
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

export type InteractionType = 'button_click' | 'reply_received';

/** A chip/button tap or a reply (spec §4.7 list_rcs_interactions, §6 button_interaction). */
export interface InteractionsTable {
  /** int_… */
  id: string;
  account_id: string;
  type: InteractionType;
  /** What was tapped: a reply chip, a card postback button, an action chip/button; `text` for a reply. */
  action_type: 'reply' | 'postback' | 'action' | 'text';
  phone: string;
  contact_id: string | null;
  sender_id: string;
  /** Our message the person reacted to (for a tap: the tapped message; for a reply: the latest one to the number). */
  message_id: string | null;
  /** The INBOUND message of a reply. */
  inbound_message_id: string | null;
  /** Campaign of `message_id`, copied so analytics filter without a join. */
  campaign_name: string | null;
  button_text: string | null;
  postback_data: string | null;
  /** Reply text. */
  text: string | null;
  channel: 'RCS' | 'SMS';
  occurred_at: number;
  created_at: number;
}

/**
 * Numbers that opted out of an account (STOP, the sender's keyword, the unsubscribe link). Keyed
 * by number, not contact: the opt-out outlives a deleted contact and covers sends without one.
 */
export interface OptOutsTable {
  account_id: string;
  phone: string;
  contact_id: string | null;
  /** chip: an unsubscribe chip's tap that the network reported as one (RBM; see docs/storage.md). */
  source: 'keyword' | 'link' | 'chip';
  /** The keyword as matched (STOP, the sender's keyword), for `keyword` opt-outs. */
  keyword: string | null;
  sender_id: string | null;
  /** The inbound message (keyword) or the message whose link was used. */
  message_id: string | null;
  created_at: number;
}

export interface EngagementTables {
  conversations: ConversationsTable;
  interactions: InteractionsTable;
  opt_outs: OptOutsTable;
}
