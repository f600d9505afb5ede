import type SQLite from 'better-sqlite3';
import type { OpenDb } from './database.js';

/** A value that differs whenever the database may have changed since it was last taken. */
export type ChangeStamp = () => string;

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
  const stmt = raw.prepare<[], { c: number; v: number }>('select total_changes() as c, (select data_version from pragma_data_version) as v');
  return () => {
    const r = stmt.get()!;
    return `${r.v}.${r.c}`;
  };
}

/**
 * The stamp of an open database. PostgreSQL has none on purpose: several instances share it, and
 * the only honest stamp there (a version row bumped by triggers, or LISTEN/NOTIFY) costs a round
 * trip per check, as much as the small read it would save. Without a stamp the callers (API key
 * principals, sender lists) do not cache, so a revoked key or a changed sender is seen by every
 * instance at its next request.
 */
export function changeStampFor(open: OpenDb): ChangeStamp | undefined {
  return open.dialect === 'sqlite' ? changeStampOf(open.raw) : undefined;
}
