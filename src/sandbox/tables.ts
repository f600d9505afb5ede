/*
 * The tables the sandbox area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

/**
 * Tables of the public sandbox (§4.2). Neither holds anything that identifies a person in the
 * clear: previews keep only the rendered form (foreign media URLs already reduced to a
 * placeholder and their host), rate-limit events keep a keyed hash of the client address.
 * See docs/storage.md.
 */
export interface SandboxPreviewsTable {
  /** `sbx_` + ULID. Shown to the caller; never accepted by any send path. */
  id: string;
  /** Unguessable share slug (base64url of 24 random bytes), the last segment of share_url. */
  slug: string;
  /** SHA-256 hex of the canonical JSON of the previewed input; identical input → same row. */
  input_hash: string;
  message_type: string;
  /** JSON: normalized content with sample merge values applied and foreign media replaced. */
  content: string;
  /** The SMS fallback text with sample merge values applied; null without a fallback. */
  sms_fallback: string | null;
  /** JSON: SMS facts of the fallback as written (encoding, segments, units, unicodeCharacters). */
  sms: string | null;
  /** JSON: validation warnings at creation (foreign media URLs already reduced to their host). */
  warnings: string;
  /** JSON: one entry per replaced foreign media URL: {path, host, replacedWith}. */
  media: string;
  created_at: number;
  expires_at: number;
}

export interface SandboxRateEventsTable {
  /** HMAC-SHA-256 (instance key) of the client address (IPv6 reduced to its /64). */
  client_hash: string;
  /** When an accepted sandbox request arrived (epoch ms). Rows older than a day are swept. */
  at: number;
}

export interface SandboxTables {
  sandbox_previews: SandboxPreviewsTable;
  sandbox_rate_events: SandboxRateEventsTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the sandbox area's tables join the database's type
  interface Database extends SandboxTables {}
}
