import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Db, Tx } from '../db/database.js';
import type { IdempotencyKeysTable } from '../db/tables/idempotency.js';
import { AppError } from '../errors.js';
import { PollingLoop } from '../polling-loop.js';

/** One request holding a key: the work may commit only while `id` is still the row's attempt. */
export interface Attempt {
  accountId: string;
  keyHash: string;
  id: string;
}

/** A response as sent: status, headers to repeat, the JSON text. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  json: string;
}

export interface IdempotencyOptions {
  /** How long a key answers with its first response (Stripe: 24 h). */
  ttlMs: number;
  /**
   * A running key older than this is stale: its request died (or hangs). If its work never
   * committed the key is taken over; if it did, the caller is told to look the result up.
   */
  lockMs: number;
}

export const IDEMPOTENCY_DEFAULTS: IdempotencyOptions = { ttlMs: 24 * 60 * 60 * 1000, lockMs: 60_000 };

export interface IdempotencyStoreDeps {
  db: Db;
  clock: Clock;
  /** Tuning, not a dependency: every caller so far takes IDEMPOTENCY_DEFAULTS. */
  options?: IdempotencyOptions;
}

/**
 * The idempotency_keys table: the only code that writes it. Each step is one statement and
 * guarded by the attempt id, so a request that lost its key (taken over after it hung) can
 * neither commit work under it nor overwrite the response of the attempt that holds it.
 */
export class IdempotencyStore {
  /** Read by run.ts too (a running key older than lockMs is stale). */
  readonly options: IdempotencyOptions;

  constructor(private readonly d: IdempotencyStoreDeps) {
    this.options = d.options ?? IDEMPOTENCY_DEFAULTS;
  }

  now(): number {
    return this.d.clock.now();
  }

  /** Inserts the key first (the primary key makes two identical requests race for one row); the existing row when it is taken. */
  async claim(k: { accountId: string; keyHash: string; requestHash: string; method: string; path: string }): Promise<{ attempt: Attempt } | { row: IdempotencyKeysTable }> {
    const now = this.d.clock.now();
    const id = randomUUID();
    const fresh = { request_hash: k.requestHash, method: k.method, path: k.path, attempt: id, locked_at: now, committed_at: null, response_status: null, response_headers: null, response_body: null, created_at: now, expires_at: now + this.options.ttlMs };
    const inserted = await this.d.db
      .insertInto('idempotency_keys')
      .values({ account_id: k.accountId, key_hash: k.keyHash, ...fresh })
      .onConflict((oc) => oc.columns(['account_id', 'key_hash']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { attempt: { accountId: k.accountId, keyHash: k.keyHash, id } };
    // Expired but not yet swept: the key is free again.
    const reused = await this.d.db
      .updateTable('idempotency_keys')
      .set(fresh)
      .where('account_id', '=', k.accountId)
      .where('key_hash', '=', k.keyHash)
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    if (Number(reused.numUpdatedRows) === 1) return { attempt: { accountId: k.accountId, keyHash: k.keyHash, id } };
    const row = await this.find(k.accountId, k.keyHash);
    // Swept between the two statements: claim again.
    return row ? { row } : this.claim(k);
  }

  find(accountId: string, keyHash: string): Promise<IdempotencyKeysTable | undefined> {
    return this.d.db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', accountId).where('key_hash', '=', keyHash).executeTakeFirst();
  }

  /** A stale running row whose work never committed: the new request takes the key over (the old one can no longer commit). */
  async takeOver(row: IdempotencyKeysTable): Promise<Attempt | null> {
    const id = randomUUID();
    const res = await this.d.db
      .updateTable('idempotency_keys')
      .set({ attempt: id, locked_at: this.d.clock.now() })
      .where('account_id', '=', row.account_id)
      .where('key_hash', '=', row.key_hash)
      .where('attempt', '=', row.attempt)
      .where('committed_at', 'is', null)
      .where('response_status', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1 ? { accountId: row.account_id, keyHash: row.key_hash, id } : null;
  }

  /** Inside the work's own transaction: the work and this mark commit together, and only while the attempt holds the key. */
  async markCommitted(tx: Tx, a: Attempt): Promise<void> {
    const res = await tx
      .updateTable('idempotency_keys')
      .set({ committed_at: this.d.clock.now() })
      .where('account_id', '=', a.accountId)
      .where('key_hash', '=', a.keyHash)
      .where('attempt', '=', a.id)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) {
      // Rolls the work back: another request took this key over while this one hung.
      throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'Another request with this Idempotency-Key took over while this one was running; nothing was done by this one');
    }
  }

  /** The first response, answered to every repeat until the key expires. */
  async complete(a: Attempt, response: StoredResponse): Promise<void> {
    await this.d.db
      .updateTable('idempotency_keys')
      .set({ response_status: response.status, response_headers: Object.keys(response.headers).length ? JSON.stringify(response.headers) : null, response_body: response.json })
      .where('account_id', '=', a.accountId)
      .where('key_hash', '=', a.keyHash)
      .where('attempt', '=', a.id)
      .execute();
  }

  /** Nothing committed (a validation error, a 5xx before the work): the key is free, a retry runs anew. */
  async release(a: Attempt): Promise<void> {
    await this.d.db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', a.accountId)
      .where('key_hash', '=', a.keyHash)
      .where('attempt', '=', a.id)
      .where('committed_at', 'is', null)
      .execute();
  }

  /** The work committed but the request failed afterwards: stale at once, so a repeat hears IDEMPOTENCY_RESPONSE_LOST instead of waiting. */
  async abandon(a: Attempt): Promise<void> {
    await this.d.db
      .updateTable('idempotency_keys')
      .set({ locked_at: 0 })
      .where('account_id', '=', a.accountId)
      .where('key_hash', '=', a.keyHash)
      .where('attempt', '=', a.id)
      .where('response_status', 'is', null)
      .execute();
  }

  /** Deletes expired keys; returns how many. */
  async sweep(): Promise<number> {
    const res = await this.d.db.deleteFrom('idempotency_keys').where('expires_at', '<=', this.d.clock.now()).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}

/** The periodic sweep of expired keys, one of the workers (src/workers.ts): at start, then every intervalMs. */
export function startIdempotencySweeper(store: IdempotencyStore, onError: (err: unknown) => void, intervalMs = 10 * 60 * 1000): PollingLoop {
  const loop = new PollingLoop(
    async () => {
      await store.sweep();
      return intervalMs;
    },
    onError,
    intervalMs,
  );
  loop.start();
  return loop;
}
