import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { Db, DbOrTx } from './database.js';
import { dialectOf } from './dialect.js';

/**
 * Claiming queued rows (messages, webhook deliveries, simulated receipts) when several workers
 * may look at the same queue. Both forms, chosen by the dialect:
 *
 * - PostgreSQL: any number of instances share the database. The candidate SELECT locks the rows
 *   it returns `FOR NO KEY UPDATE SKIP LOCKED`, inside the transaction that then leases them, so
 *   concurrent claimers take disjoint sets instead of all reading the same oldest rows and all
 *   but one losing them at the UPDATE. NO KEY UPDATE, not UPDATE: it is the lock an UPDATE of
 *   non-key columns takes anyway, and it does not conflict with the KEY SHARE lock that inserts
 *   referencing the row take (a webhook delivery for an endpoint, a receipt for a message), so a
 *   claim neither waits for nor skips rows merely referenced by a running transaction.
 * - SQLite: one process owns the file and writes one statement at a time; the SELECT stays as it
 *   is (SQLite has no row locks), and the conditional UPDATE that follows (`lease_until is null or
 *   lease_until < now`) is what keeps a row from being claimed twice.
 */

/** The candidate SELECT of a claim: locked, skipping rows another claimer holds, on PostgreSQL. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table, any selection
export function lockedForClaim<QB extends SelectQueryBuilder<any, any, any>>(db: DbOrTx, query: QB): QB {
  return dialectOf(db) === 'postgres' ? (query.forNoKeyUpdate().skipLocked() as QB) : query;
}

/** The same lock as a clause for raw SQL, after ORDER BY / LIMIT; empty on SQLite. */
export function claimLockClause(db: DbOrTx): RawBuilder<unknown> {
  return dialectOf(db) === 'postgres' ? sql`for no key update skip locked` : sql``;
}

/**
 * A plain row lock for raw SQL or `modifyEnd`, after ORDER BY: PostgreSQL `for no key update`
 * (waits for the holder, unlike a claim's, because the caller must apply its change to these very
 * rows); empty on SQLite, where one writer at a time is the lock. Callers lock in a fixed order
 * (ORDER BY id) so that two transactions locking overlapping sets cannot deadlock.
 */
export function rowLockClause(db: DbOrTx): RawBuilder<unknown> {
  return dialectOf(db) === 'postgres' ? sql`for no key update` : sql``;
}

/**
 * Whether other processes may work the same queues. False on SQLite (one process owns the file),
 * where a loop that runs one round at a time needs no claim at all; true on PostgreSQL.
 */
export function sharedByInstances(db: DbOrTx): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * Runs a claim: on PostgreSQL inside one transaction, so the rows its lockedForClaim SELECT locked
 * stay locked until its lease or marks commit and another instance skips them meanwhile; a crash
 * rolls back to "still due". On SQLite directly on the database, statement by statement: one
 * process writes, its loops run one round at a time, and a transaction would only add a way to
 * fail (a deferred transaction that read first cannot take the write lock after another
 * connection, e.g. the admin CLI, committed) and, where the claim's work calls another service in
 * between (the simulated network's receipt tick hands events to the status service), would hold
 * the single connection that service needs.
 */
export function inClaim<T>(db: Db, fn: (q: DbOrTx) => Promise<T>): Promise<T> {
  return sharedByInstances(db) ? db.transaction().execute(fn) : fn(db);
}
