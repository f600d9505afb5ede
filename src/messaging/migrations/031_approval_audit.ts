import type { Kysely } from 'kysely';

/**
 * The approvals inbox and its audit trail (issue #29); migration 031, messaging's part, after previews' part.
 *
 * - `messages.preview_id`: the preview a message was sent from, so the log names its approver.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('preview_id', 'text').execute();
}
