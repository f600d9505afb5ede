import type SQLite from 'better-sqlite3';

/** A value that differs whenever the database may have changed since it was last taken. */
export type ChangeStamp = () => string;

/**
 * SQLite's cheapest answer to "has anything changed?", for in-process caches of small reads that
 * are asked for much more often than the data changes (the senders list every assistant reads
 * first). `PRAGMA data_version` changes when another connection commits — another process, the
 * CLI; `total_changes()` counts this connection's own row changes, committed or not (a rollback
 * does not take them back, so it only ever invalidates more). Any write to any table changes the
 * stamp: coarse, and safe. A cache must take the stamp *before* it reads, and store what it read
 * under that stamp: whatever changes in between changes the next stamp. SQLite only; a PostgreSQL
 * deployment has no such stamp and its callers simply do not cache.
 */
export function changeStampOf(raw: SQLite.Database): ChangeStamp {
  const stmt = raw.prepare<[], { c: number; v: number }>('select total_changes() as c, (select data_version from pragma_data_version) as v');
  return () => {
    const r = stmt.get()!;
    return `${r.v}.${r.c}`;
  };
}
