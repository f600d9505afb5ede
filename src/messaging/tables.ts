/*
 * The tables the messaging area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

/** Messages, jobs, unsubscribe tokens and the per-sender throughput budget. See docs/storage.md. */

export type MessageStatus = 'SCHEDULED' | 'SENDING' | 'SENT' | 'DELIVERED' | 'READ' | 'RECEIVED' | 'FAILED' | 'BLOCKED' | 'REJECTED';

export interface MessagesTable {
  id: string;
  account_id: string;
  job_id: string | null;
  type: 'RCS' | 'SMS';
  status: MessageStatus;
  direction: 'OUTBOUND' | 'INBOUND';
  source: string;
  /** Digits with country code, no +. */
  phone: string;
  country: string | null;
  contact_id: string | null;
  sendername_id: string;
  /** RCS messageType; null for SMS. */
  message_type: string | null;
  /** RCS: the merged, normalized content object as JSON. SMS: null. */
  content: string | null;
  /** SMS body (merged) or the RCS flat summary. */
  text: string;
  /** The fallback as requested ({message, sendernameId}), JSON; null when none. */
  sms_fallback: string | null;
  /** The fallback text merged for this recipient. */
  fallback_text: string | null;
  campaign_name: string | null;
  credits_cost_milli: number | null;
  sms_segments: number | null;
  sms_encoding: string | null;
  /** How it actually went out: RCS or SMS (fallback); null until sent. */
  method: 'RCS' | 'SMS' | null;
  fallback_used: number;
  fallback_reason: string | null;
  error: string | null;
  carrier_message_id: string | null;
  created_at: number;
  scheduled_at: number | null;
  sent_at: number | null;
  delivered_at: number | null;
  read_at: number | null;
  failed_at: number | null;
  /** 1 while the dispatcher still has to hand it to a carrier. */
  pending: number;
  /** When it may be sent (schedule time, batch slice time, or retry time). */
  due_at: number;
  /** A dispatcher owns the row until then; after a crash the lease runs out and another claims it. */
  lease_until: number | null;
  /**
   * The instance holding the lease (migration 033, src/platform/instances/): when its heartbeat stops, the row is
   * given back before the lease runs out. Null: not claimed, or claimed without an instance (the lease decides).
   */
  claimed_by: string | null;
  attempts: number;
  /** Time zone the schedule was given in (for localScheduleTime). */
  time_zone: string | null;
  /**
   * Quiet hours (migration 029): where the recipient is and its window (encodePlace in src/schedule/quiet-hours.ts),
   * for messages the account's quiet hours apply to; the dispatcher defers the message again when it would hand it
   * over outside the window (a backlog, a carrier outage, retries). Null: not subject (setting off, transactional,
   * automatic answers, incoming messages).
   */
  quiet_place: string | null;
  /**
   * 1: the send was marked transactional (migration 036). A consent review pauses marketing to a number by cancelling
   * its queued messages that are not; automatic answers (source SYSTEM) are 1.
   */
  transactional: number;
  /** The preview (prv_…) it was sent from, when it was (migration 031): the log names its approver. */
  preview_id: string | null;
}

export interface JobsTable {
  id: string;
  account_id: string;
  kind: 'batch' | 'scheduled';
  type: 'RCS' | 'SMS';
  sendername_id: string;
  message_type: string | null;
  campaign_name: string | null;
  /** Recipients accepted (messages created). */
  total: number;
  /** Numbers refused at accept time, JSON [{phoneNumber, code, reason}]. */
  rejected: string;
  batch_size: number;
  delay_ms: number;
  scheduled_at: number | null;
  time_zone: string | null;
  timezone_source: string | null;
  created_at: number;
  cancelled_at: number | null;
  /** Unsent messages removed by cancellation. */
  cancelled_count: number;
  /** Credits charged at accept time, 1/1000. */
  credits_milli: number;
}

export interface UnsubscribeTokensTable {
  /** SHA-256 of the token in the link. */
  token_hash: string;
  account_id: string;
  contact_id: string;
  message_id: string;
  created_at: number;
  used_at: number | null;
}

/** A sender's throughput budget, shared by every instance (migration 021, messaging/sender-budget.ts). */
export interface SenderThroughputTable {
  sender_id: string;
  /** Tokens left at refilled_at, in thousandths (the refill is integer arithmetic). */
  tokens_milli: number;
  refilled_at: number;
  /** What the last take gave (read back by its RETURNING). */
  granted: number;
}

export interface MessagingTables {
  messages: MessagesTable;
  sender_throughput: SenderThroughputTable;
  jobs: JobsTable;
  unsubscribe_tokens: UnsubscribeTokensTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the messaging area's tables join the database's type
  interface Database extends MessagingTables {}
}
