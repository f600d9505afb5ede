import type { DbOrTx } from './database.js';
import { dialectOf } from './dialect.js';

/**
 * Whether statements sent on separate connections run at the same time. PostgreSQL: yes, each
 * connection has its own server process, so work that waits on one statement (the dispatcher
 * recording a round) can overlap work on another (handing the next round to the carrier) and use
 * a second core. SQLite: no, its one connection in this process runs one statement at a time, and
 * overlapping would only interleave the same work.
 */
export function statementsRunInParallel(db: DbOrTx): boolean {
  return dialectOf(db) === 'postgres';
}
