import type { Kysely } from 'kysely';

/**
 * Instances and who holds a claim (issue #31); migration 033, webhooks' part, runs last of 033.
 *
 * - webhook_deliveries.claimed_by: the instance that holds the row's lease (null: nobody, or a claim made before
 *   this migration, which still ends with its lease).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('claimed_by', 'text').execute();
}
