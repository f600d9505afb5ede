import { AsyncLocalStorage } from 'node:async_hooks';
import type { Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * A write that must commit together with the first piece of work of the current request:
 * inTransaction runs `beforeCommit` inside the first transaction it commits while the hook is
 * open, so the write and the work commit together or not at all. Client idempotency uses it to
 * mark its key row "the work committed" atomically with the work (src/platform/idempotency/).
 */
export interface FirstCommitHook {
  beforeCommit(tx: Transaction<Database>): Promise<void>;
  /** True once a transaction carrying beforeCommit committed, or when the request is over. */
  closed: boolean;
  /** True once a transaction carrying beforeCommit committed. */
  committed: boolean;
}

const store = new AsyncLocalStorage<FirstCommitHook>();

/** Runs fn with the hook open; closes it when fn settles (timers started inside fn may outlive it). */
export async function withFirstCommitHook<T>(hook: FirstCommitHook, fn: () => Promise<T>): Promise<T> {
  try {
    return await store.run(hook, fn);
  } finally {
    hook.closed = true;
  }
}

/** The open hook of the current async context, if any. */
export function openCommitHook(): FirstCommitHook | undefined {
  const hook = store.getStore();
  return hook && !hook.closed ? hook : undefined;
}

/**
 * Runs fn outside any request's hook: background loops woken from inside a request (a commit
 * wakes the dispatcher) must not carry that request's hook into their own transactions.
 */
export function detachedFromRequest<T>(fn: () => T): T {
  return store.exit(fn);
}
