/*
 * The tables the inbound area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

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

export interface InboundTables {
  interactions: InteractionsTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the inbound area's tables join the database's type
  interface Database extends InboundTables {}
}
