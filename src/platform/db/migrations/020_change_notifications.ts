import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';
import { CHANGE_CHANNEL } from '../change-feed.js';

/**
 * PostgreSQL only: a NOTIFY on CHANGE_CHANNEL whenever a statement changes what the in-process
 * caches hold — API key principals (api_keys, accounts.active) and sender lists (senders) — so
 * every instance drops its caches (change-feed.ts). Triggers, not the services, send it: a change
 * made by the admin CLI, another instance or psql is announced alike. Statement-level, and only for
 * the columns the caches read: `last_used_at` and the balance change all the time and are not
 * cached. SQLite needs none: its change stamp sees every commit (change-stamp.ts).
 *
 * Migration 020, the platform's part: the trigger function. It runs first; the accounts' part
 * (api_keys, accounts) and the senders' part (senders) then create the triggers on their tables.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql
    .raw(
      `create function rcs_notify_cache_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('${CHANGE_CHANNEL}', tg_table_name);
  return null;
end $$`,
    )
    .execute(db);
}
