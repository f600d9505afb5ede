import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../platform/db/dialect.js';

/**
 * Migration 020, senders' part (PostgreSQL only): the statement-level trigger that announces any change of
 * senders on the cache channel, through the function the platform's part created
 * (src/platform/db/migrations/020_change_notifications.ts says why). Runs last of 020.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  const triggers: [table: string, events: string][] = [['senders', 'insert or update or delete or truncate']];
  for (const [table, events] of triggers) {
    await sql.raw(`create trigger ${table}_cache_change after ${events} on ${table} for each statement execute function rcs_notify_cache_change()`).execute(db);
  }
}
