import { withFirstCommitHook, type FirstCommitHook } from '../db/commit-hook.js';
import { AppError, errorBody, isAppError } from '../errors.js';
import { IDEMPOTENCY_HEADER, keyHashOf, requestFingerprint } from './key.js';
import type { Attempt, IdempotencyStore, StoredResponse } from './store.js';

export interface IdempotentRequest {
  accountId: string;
  key: string;
  method: string;
  path: string;
  /** The body as received (before defaults are applied), for the fingerprint. */
  body: unknown;
}

/** What the work answers when it runs. */
export interface FreshResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface IdempotentAnswer extends StoredResponse {
  /** True when this is the stored first response (the work did not run again). */
  replayed: boolean;
}

/** How long a repeat waits for a first request that is still running before it hears 409 IDEMPOTENCY_IN_PROGRESS. */
export const IN_PROGRESS_WAIT_MS = 5_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `work` at most once per (account, key) within the key's lifetime (Stripe's semantics):
 *
 * - the key row is inserted before the work (insert-first: two identical requests at the same
 *   moment cannot both run); the work's first committed transaction marks the row inside that
 *   same transaction (commit-hook.ts), so "the work committed" is never separate from the work;
 * - success, and any answer after the work committed, is stored and replayed with
 *   `Idempotent-Replayed: true`; an error before anything committed releases the key, so the
 *   client may fix the request or retry a 5xx with the same key;
 * - a repeat while the first still runs waits up to IN_PROGRESS_WAIT_MS for its answer, then
 *   hears 409 IDEMPOTENCY_IN_PROGRESS;
 * - a running row older than the lock bound belongs to a request that died: if its work never
 *   committed the key is taken over and the work runs (the dead attempt can no longer commit);
 *   if it did, 409 IDEMPOTENCY_RESPONSE_LOST tells the client to look the result up — never twice.
 */
export async function runIdempotent(store: IdempotencyStore, r: IdempotentRequest, work: () => Promise<FreshResponse>, waitMs = IN_PROGRESS_WAIT_MS): Promise<IdempotentAnswer> {
  const keyHash = keyHashOf(r.key);
  const requestHash = requestFingerprint(r.method, r.path, r.body);
  const deadline = Date.now() + waitMs;
  let pause = 10;
  for (;;) {
    const claimed = await store.claim({ accountId: r.accountId, keyHash, requestHash, method: r.method.toUpperCase(), path: r.path });
    if ('attempt' in claimed) return runAs(store, claimed.attempt, work);
    const row = claimed.row;
    if (row.request_hash !== requestHash) {
      throw new AppError('IDEMPOTENCY_MISMATCH', `This ${IDEMPOTENCY_HEADER} was already used for a different request (${row.method} ${row.path} with another body). Use a new key for a new request.`);
    }
    if (row.response_status !== null) {
      return { status: row.response_status, headers: row.response_headers ? (JSON.parse(row.response_headers) as Record<string, string>) : {}, json: row.response_body ?? 'null', replayed: true };
    }
    if (row.locked_at <= store.now() - store.options.lockMs) {
      if (row.committed_at !== null) {
        throw new AppError(
          'IDEMPOTENCY_RESPONSE_LOST',
          `The request with this ${IDEMPOTENCY_HEADER} was carried out at ${new Date(row.committed_at).toISOString()}, but the server stopped before it could store the response. It will not run again: look the result up in the message log (GET /api/messages/log) or the jobs (GET /api/rcs/jobs) instead of sending again.`,
          { extra: { committedAt: new Date(row.committed_at).toISOString() } },
        );
      }
      const attempt = await store.takeOver(row);
      if (attempt) return runAs(store, attempt, work);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new AppError('IDEMPOTENCY_IN_PROGRESS', `A request with this ${IDEMPOTENCY_HEADER} is still being processed. Repeat it with the same key in a moment to get its response.`, { headers: { 'Retry-After': '1' } });
    }
    await sleep(pause);
    pause = Math.min(pause * 2, 200);
  }
}

async function runAs(store: IdempotencyStore, attempt: Attempt, work: () => Promise<FreshResponse>): Promise<IdempotentAnswer> {
  const hook: FirstCommitHook = { closed: false, committed: false, beforeCommit: (tx) => store.markCommitted(tx, attempt) };
  let fresh: FreshResponse;
  try {
    fresh = await withFirstCommitHook(hook, work);
  } catch (err) {
    // Bookkeeping failures are not the client's answer: a row left running goes stale and is
    // taken over (nothing committed) or reported as IDEMPOTENCY_RESPONSE_LOST (work committed).
    await settleFailure(store, attempt, hook.committed, err).catch(() => undefined);
    throw err;
  }
  const response: StoredResponse = { status: fresh.status, headers: fresh.headers, json: JSON.stringify(fresh.body) ?? 'null' };
  await store.complete(attempt, response);
  return { ...response, replayed: false };
}

async function settleFailure(store: IdempotencyStore, attempt: Attempt, committed: boolean, err: unknown): Promise<void> {
  if (!committed) return store.release(attempt);
  // The work committed, then the request failed: a caller mistake is its answer; an internal
  // failure is not worth replaying, and running again is not allowed either.
  if (isAppError(err) && err.status < 500) return store.complete(attempt, { status: err.status, headers: err.headers ?? {}, json: JSON.stringify(errorBody(err)) });
  return store.abandon(attempt);
}
