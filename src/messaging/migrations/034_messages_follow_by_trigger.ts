import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../platform/db/dialect.js';

/**
 * Migration 034, messaging's part (PostgreSQL only; issue #31): `messages` loses its two foreign keys —
 * `account_id → accounts` (on delete cascade) and `job_id → jobs` (on delete set null) — and keeps what they did on a
 * delete through two statement-level triggers instead.
 *
 * Why: PostgreSQL checks a foreign key with a trigger per inserted row (a lookup and a key-share lock of the
 * referenced row). A batch writes 10,000 rows referencing one account and one job, in the transaction that wrote
 * that job and checked that account; the two checks were a third of the time of inserting them (10,000 rows, 1,000
 * per statement: 154–168 ms with the keys, 98–108 ms without; bench/README.md "Session 16"). Nothing in the server
 * deletes an account or a job, so the checks bought nothing the send service does not guarantee already: it
 * inserts messages only for the authenticated account and only beside the job it inserted.
 *
 * What stays: an account deleted by hand (an operator's `delete from accounts`) still takes its messages with it, and
 * a deleted job still leaves its messages without a job — once per statement, from the deleted rows (transition
 * tables), not once per message. SQLite keeps its foreign keys: its check is a primary-key probe in the same file
 * (the batch bench does not move with it), and dropping one there rebuilds the table.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  // By what they reference rather than by name (004's inline references were named messages_account_id_fkey and
  // messages_job_id_fkey by PostgreSQL, but a database restored or copied by other tools may name them otherwise).
  // 'messages'::regclass resolves through the search_path, so a schema per tenant or per test finds its own table.
  await sql`
    do $$
    declare c record;
    begin
      for c in select conname from pg_constraint
               where conrelid = 'messages'::regclass and contype = 'f' and confrelid in ('accounts'::regclass, 'jobs'::regclass)
      loop
        execute format('alter table messages drop constraint %I', c.conname);
      end loop;
    end $$`.execute(db);
  await sql`
    create function rcs_messages_follow_accounts() returns trigger language plpgsql as $$
    begin
      delete from messages where account_id in (select id from gone);
      return null;
    end $$`.execute(db);
  await sql`create trigger messages_follow_accounts after delete on accounts referencing old table as gone for each statement execute function rcs_messages_follow_accounts()`.execute(db);
  await sql`
    create function rcs_messages_follow_jobs() returns trigger language plpgsql as $$
    begin
      update messages set job_id = null where job_id in (select id from gone);
      return null;
    end $$`.execute(db);
  await sql`create trigger messages_follow_jobs after delete on jobs referencing old table as gone for each statement execute function rcs_messages_follow_jobs()`.execute(db);
}
