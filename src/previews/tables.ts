/*
 * The tables the previews area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

/** MCP send previews awaiting a person's approval (spec §3.5). See docs/storage.md. */
export interface PreviewsTable {
  id: string;
  account_id: string;
  kind: 'rcs' | 'rcs_batch' | 'sms';
  /**
   * The last path segment of the share URL. Not a credential: the page shows nothing without a
   * login of the owning account, so it is stored as is (the URL is returned again for an
   * identical sms_preview).
   */
  slug: string;
  /** Canonical JSON of the whole send payload (recipients included). */
  payload: string;
  /** SHA-256 of `payload`, for idempotent sms_preview. */
  payload_hash: string;
  /** Dry-run result: recipients, cost, samples, SMS facts, schedule. JSON. */
  estimate: string;
  warnings: string;
  status: 'pending' | 'approved' | 'rejected' | 'sending' | 'sent';
  approval_required: number;
  /** key_… or usr_… of the principal that created it. */
  created_by: string;
  created_at: number;
  expires_at: number;
  decided_by: string | null;
  decided_at: number | null;
  send_started_at: number | null;
  /** The first send's result, returned again on repeats. JSON. */
  result: string | null;
  /**
   * What each recipient got merged in (MergeFingerprint JSON): the send compares it with the
   * current data and refuses with PREVIEW_STALE on any change. Null: made before migration 013.
   */
  merge_fingerprint: string | null;
  /**
   * Every distinct merged value per merge field, the recipients that get it and its risks
   * (StoredMergeValues JSON, src/previews/merge-report.ts). Null: made before migration 023, or a
   * message without per-recipient merge fields.
   */
  merge_values: string | null;
  /** key_… of the API key or the OAuth client_id that made it (migration 031); null for older rows. */
  credential_id: string | null;
  /** `key "Assistant"`, `app "Claude"`: the credential as people read it, kept as it was. */
  credential_label: string | null;
  /** When an instance noticed the expiry (and raised preview.expired if it still waited); set once. */
  expiry_noticed_at: number | null;
}

/**
 * One approval or rejection of a preview on its share page (migration 031). Append-only: written by
 * src/previews/ alone, never updated or deleted through any route; no foreign key to the user or the
 * key, so deleting either keeps the record. See docs/storage.md.
 */
export interface PreviewApprovalsTable {
  /** apv_… */
  id: string;
  account_id: string;
  preview_id: string;
  decision: 'approved' | 'rejected';
  user_id: string;
  /** The person's e-mail when they decided. */
  user_email: string;
  decided_at: number;
  /** SHA-256 over the session's stored id hash: tells sessions apart without naming one. */
  session_hash: string;
  client_ip: string | null;
  user_agent: string | null;
  /** SHA-256 of what the share page showed (src/previews/audit.ts), posted back by the form and checked. */
  fingerprint: string;
  preview_kind: PreviewsTable['kind'];
  recipients: number;
  credits_milli: number;
  /** The credential that made the preview (`key "…"`, `app "…"`). */
  credential_label: string | null;
}

export interface PreviewsTables {
  previews: PreviewsTable;
  preview_approvals: PreviewApprovalsTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the previews area's tables join the database's type
  interface Database extends PreviewsTables {}
}
