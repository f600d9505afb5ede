import type { Kysely } from 'kysely';

/**
 * Quiet hours (issue #28); migration 029, messaging's part, after accounts' part (the account setting).
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
  await db.schema.alterTable('messages').addColumn('quiet_place', 'text').execute();
}
