/*
 * The tables the senders area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

export interface SendersTable {
  id: string;
  account_id: string;
  name: string;
  type: 'SMS' | 'RCS';
  status: 'APPROVED' | 'PENDING' | 'REJECTED' | 'DRAFT';
  is_default: number;
  is_test: number;
  supports_conversation_billing: number;
  rejection_reason: string | null;
  test_phones: string;
  stop_keyword: string;
  /** Migration 032: the sender's own consent words, JSON {optOut, optIn, help} of folded words; '{}': none. */
  consent_words: string;
  /** Per-sender carrier override (e.g. another RBM agent); null uses the configured default. */
  carrier_config: string | null;
  created_at: number;
}

export interface SendersTables {
  senders: SendersTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the senders area's tables join the database's type
  interface Database extends SendersTables {}
}
