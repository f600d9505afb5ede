import type { Kysely } from 'kysely';
import { intType } from '../dialect.js';

/**
 * Quiet hours (issue #28, src/schedule/quiet-hours.ts): an account setting that keeps marketing messages out of the
 * night in the recipient's local time, deferring them to the window's next opening.
 *
 * - accounts.quiet_hours: 0 (default: spec behaviour, nothing deferred) or 1.
 * - accounts.quiet_hours_windows: JSON object of per-country window overrides, `{"DE": {"start": "09:00", "end":
 *   "20:00", "days": [1,2,3,4,5,6]}}`; null: the documented defaults for every country.
 *
 * - messages.quiet_place: for a message quiet hours apply to, the recipient's place and window as judged at accept
 *   time (`US|305||480-1200|1234567`, encodePlace); the dispatcher checks it again at hand-over and defers a message
 *   that would go out after its window closed (a backlog, an outage). Null: not subject.
 *
 * Deferred messages are `messages` rows with status SCHEDULED, `scheduled_at` and `due_at` at the opening, claimed
 * by the dispatcher like any scheduled message.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema.alterTable('accounts').addColumn('quiet_hours', INT, (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('accounts').addColumn('quiet_hours_windows', 'text').execute();
  await db.schema.alterTable('messages').addColumn('quiet_place', 'text').execute();
}
