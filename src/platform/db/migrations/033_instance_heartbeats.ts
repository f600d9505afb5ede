import type { Kysely } from 'kysely';
import { intType } from '../dialect.js';

/**
 * Instances and who holds a claim (issue #31, src/platform/instances/, docs/storage.md).
 *
 * - instances: one row per running server process working the shared queues, with the time of its last
 *   heartbeat. On PostgreSQL an instance whose heartbeat is older than the dead-after time is taken for dead
 *   and what it had claimed is given back at once, instead of after the claims' leases (30 s and more).
 * - messages.claimed_by, webhook_deliveries.claimed_by: the instance that holds the row's lease (null: nobody,
 *   or a claim made before this migration, which still ends with its lease).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', INT, (c) => c.notNull())
    .addColumn('started_at', INT, (c) => c.notNull())
    .addColumn('heartbeat_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.alterTable('messages').addColumn('claimed_by', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('claimed_by', 'text').execute();
}
