/**
 * Client idempotency keys (src/platform/idempotency/). The key itself is never stored, only its
 * SHA-256; the stored response is what the first request answered. See docs/storage.md.
 */
export interface IdempotencyKeysTable {
  account_id: string;
  /** SHA-256 hex of the Idempotency-Key header value; unique per account (primary key with account_id). */
  key_hash: string;
  /** SHA-256 hex of method, path and canonical JSON body: the same key with another request is refused. */
  request_hash: string;
  /** For people reading the table: `POST`, `/api/rcs/send-batch`. */
  method: string;
  path: string;
  /** Random id of the attempt holding the key; the work's transaction commits only if it still holds it. */
  attempt: string;
  /** When the holding attempt claimed (or took over) the key; a running row older than the lock bound is stale. */
  locked_at: number;
  /** Set inside the work's own transaction: the work committed. Never run again once set. */
  committed_at: number | null;
  /** The first response; null while running. */
  response_status: number | null;
  /** JSON object of response headers to replay (e.g. Retry-After); null for none. */
  response_headers: string | null;
  /** The response body exactly as sent (JSON text). */
  response_body: string | null;
  created_at: number;
  /** created_at + 24 h: afterwards the key is free again and the sweeper deletes the row. */
  expires_at: number;
}

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
}
