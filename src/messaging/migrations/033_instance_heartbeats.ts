import type { Kysely } from 'kysely';

/**
 * Instances and who holds a claim (issue #31); migration 033, messaging's part, after the platform's (instances)
 * and before webhooks'.
 *
 * - messages.claimed_by: the instance that holds the row's lease (null: nobody, or a claim made before this
 *   migration, which still ends with its lease).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('claimed_by', 'text').execute();
}
