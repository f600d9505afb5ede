/** The SMPP adapter's mapping of SMSC ids to our messages (migration 009). See docs/storage.md "SMPP". */

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

export interface SmppTables {
  smpp_messages: SmppMessagesTable;
  smpp_parts: SmppPartsTable;
}
