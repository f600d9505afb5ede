/*
 * The tables the carriers area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

export interface SimMessagesTable {
  /** The simulated network's own id (returned as carrierMessageId). */
  id: string;
  /** Our message id: unique, so a repeated hand-over is recognised, not delivered twice. */
  message_id: string;
  account_id: string;
  channel: 'RCS' | 'SMS';
  sender_id: string;
  sender_name: string;
  /** E.164 */
  to_phone: string;
  /** What the phone shows: RCS {messageType, content} or SMS {text, parts, encoding}, JSON. */
  payload: string;
  created_at: number;
  deliver_due: number | null;
  read_due: number | null;
  delivered_at: number | null;
  read_at: number | null;
  failed_at: number | null;
}

/** The SMPP adapter's tables: SMSC ids of our messages (migration 009), parts of incoming concatenated messages (022). See docs/storage.md "SMPP". */

/** One of our SMS messages handed to an SMSC. */
export interface SmppMessagesTable {
  /** Our msg_… id (the idempotency key: a message with a row here is never submitted again). */
  message_id: string;
  account_id: string;
  /** Which bind: `system_id@host:port` of the SMSC. */
  connection: string;
  /** E.164 digits, no +. */
  to_phone: string;
  parts_total: number;
  /** The 8-bit concatenation reference in the UDH, kept so a resubmitted part joins its siblings. */
  udh_ref: number;
  encoding: string;
  created_at: number;
  /** The combined outcome of all parts' receipts: DELIVERED or FAILED; null while open. */
  final_status: 'DELIVERED' | 'FAILED' | null;
  /** FAILED: the failing part's `stat` (and `err`). */
  final_error: string | null;
  final_at: number | null;
  /** 1 once the engine applied the final status (else it is offered again). */
  reported: number;
}

/** One part (one submit_sm) of a message. */
export interface SmppPartsTable {
  message_id: string;
  /** 0-based. */
  part_index: number;
  connection: string;
  /** The SMSC's message_id from submit_sm_resp; null until acknowledged. */
  carrier_id: string | null;
  submitted_at: number | null;
  /** The receipt's stat (DELIVRD, UNDELIV, …); null until a receipt came. */
  stat: string | null;
  err: string | null;
  receipt_at: number | null;
}

/** One part of a concatenated incoming message, until its siblings have come (migration 022). */
export interface SmppMoPartsTable {
  /** `smsc|source|dest|ref|total`: which message the part belongs to. */
  mo_key: string;
  /** 1-based, from the UDH. */
  seq: number;
  total: number;
  /** The SMSC key of the bind that received it (`system_id@host:port`). */
  smsc: string;
  /** Digits, no +. */
  source: string;
  dest: string;
  text: string;
  received_at: number;
}

export interface CarriersTables {
  sim_messages: SimMessagesTable;
  smpp_messages: SmppMessagesTable;
  smpp_parts: SmppPartsTable;
  smpp_mo_parts: SmppMoPartsTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the carriers area's tables join the database's type
  interface Database extends CarriersTables {}
}
