import type SQLite from 'better-sqlite3';
import type { OpenDb } from './database.js';

/** A value that differs whenever the database may have changed since it was last taken. */
export type ChangeStamp = () => string | Promise<string>;

/**
 * SQLite's cheapest answer to "has anything changed?", for in-process caches of small reads that
 * are asked for much more often than the data changes (the senders list every assistant reads
 * first). `PRAGMA data_version` changes when another connection commits — another process, the
 * CLI; `total_changes()` counts this connection's own row changes, committed or not (a rollback
 * does not take them back, so it only ever invalidates more). Any write to any table changes the
 * stamp: coarse, and safe. A cache must take the stamp *before* it reads, and store what it read
 * under that stamp: whatever changes in between changes the next stamp. SQLite only: see
 * changeStampFor for PostgreSQL.
 */
export function changeStampOf(raw: SQLite.Database): ChangeStamp {
  // Two plucked statements cost about half of one statement reading the pragma_data_version
  // table-valued function (a virtual table opened per call): ~5 against ~11 µs, on every
  // authenticated request (issue #31). Both values only grow; read in either order within one
  // synchronous call, a commit landing between the two reads can only make the stamp differ sooner.
  const version = raw.prepare<[], number>('pragma data_version').pluck();
  const changes = raw.prepare<[], number>('select total_changes()').pluck();
  return () => `${version.get()!}.${changes.get()!}`;
}

/**
 * The stamp of an open database. SQLite: data_version and total_changes (above). PostgreSQL: the
 * generation of the process's change feed (change-feed.ts), moved on by the notifications of
 * migration 020's triggers whenever api_keys, accounts.active or senders change, by any instance
 * or tool, taken after a round trip that brings in every notification of a change committed
 * before (shared by the requests arriving together); while the feed is not listening every stamp
 * differs, so nothing is served from a cache. Asking starts the feed.
 */
export function changeStampFor(open: OpenDb): ChangeStamp {
  if (open.dialect === 'sqlite') return changeStampOf(open.raw);
  const feed = open.changes;
  void feed.start();
  return () => feed.freshStamp();
}
