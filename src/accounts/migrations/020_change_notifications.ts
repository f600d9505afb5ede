import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../platform/db/dialect.js';

/**
 * Migration 020, accounts' part (PostgreSQL only): the statement-level triggers that announce a change of
 * api_keys and of accounts.active on the cache channel, through the function the platform's part created
 * just before (src/platform/db/migrations/020_change_notifications.ts says why). The senders' part follows.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  const triggers: [table: string, events: string][] = [
    ['api_keys', 'update of revoked_at, permissions, sends_need_approval, account_id, key_hash or delete or truncate'],
    ['accounts', 'update of active or delete or truncate'],
  ];
  for (const [table, events] of triggers) {
    await sql.raw(`create trigger ${table}_cache_change after ${events} on ${table} for each statement execute function rcs_notify_cache_change()`).execute(db);
  }
}
