import { sql } from 'kysely';
import type { DbOrTx } from './database.js';
import { dialectOf } from './dialect.js';

/**
 * What a transaction lock guards. Each space is a distinct first key of PostgreSQL's two-key
 * advisory locks, so equal strings in different spaces never wait for each other; the migration
 * lock (postgres.ts) is a one-key lock, a separate key space of its own.
 */
export const LOCK_SPACES = {
  /** Per-recipient throttle: `<account>` (shared by small sends, exclusive for big ones) and `<account>|<phone>`. */
  recipientThrottle: 19_001,
  /** Sandbox rate limit: the client's hashed address. */
  sandboxClient: 19_002,
  /** Opt-in forms: `<form>|<phone>`, around the resend check of the confirmation SMS. */
  formPhone: 19_003,
  /** First start: seeding the demo account into an empty database. */
  firstStart: 19_004,
  /** Incoming messages: `<account>|<carrier message id>`, around the duplicate check. */
  inboundMessage: 19_005,
  /** SMPP: the key of a concatenated incoming message, around storing a part and counting its siblings. */
  smppMoParts: 19_006,
  /**
   * Opt-in forms: `<account>`, around counting the account's confirmation SMS against its caps and sending one
   * (issue #27; numbered after the issue so parallel branches adding 19_007 do not collide).
   */
  formConfirmationCaps: 27_001,
  /** Consent reviews: `<account>|<phone>`, around finding the number's open review and opening or closing one (issue #42). */
  consentReview: 42_001,
  /** Account settings: `<account>`, around merging the account's reply texts per language (issue #42, its replies' part). */
  accountReplyTexts: 42_201,
} as const;

export type LockSpace = keyof typeof LOCK_SPACES;

/**
 * Holds `keys` of `space` until `tx` commits or rolls back, so a check-then-write in `tx` (count,
 * then insert) cannot interleave with the same check in another instance's transaction.
 *
 * PostgreSQL: `pg_advisory_xact_lock(space, hashtext(key))`, one statement per key in sorted
 * order (two transactions asking for overlapping keys take them in the same order and cannot
 * deadlock on them). A hash collision only makes unrelated keys wait for each other. `shared`
 * locks exclude only exclusive holders of the same key: many small sends to different numbers of
 * one account run side by side, while a big one excludes them all.
 *
 * SQLite: nothing. One connection serves the process and a transaction holds it to the end, so
 * transactions already run one at a time; a second process on the same file fails its write
 * (SQLITE_BUSY on a stale snapshot) instead of writing past a check it did not see.
 */
export async function lockForTransaction(tx: DbOrTx, space: LockSpace, keys: readonly string[], mode: 'exclusive' | 'shared' = 'exclusive'): Promise<void> {
  // Checked on SQLite too, so a call outside a transaction fails in every test run, not only on PostgreSQL.
  if (!tx.isTransaction) throw new Error('lockForTransaction needs a transaction: the lock would be released at once');
  if (keys.length === 0 || dialectOf(tx) !== 'postgres') return;
  const id = LOCK_SPACES[space];
  for (const key of [...new Set(keys)].sort()) {
    if (mode === 'shared') await sql`select pg_advisory_xact_lock_shared(${sql.lit(id)}, hashtext(${key}))`.execute(tx);
    else await sql`select pg_advisory_xact_lock(${sql.lit(id)}, hashtext(${key}))`.execute(tx);
  }
}
