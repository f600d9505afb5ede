import type { Kysely } from 'kysely';
import { intType } from '../dialect.js';

/**
 * Instances and who holds a claim (issue #31, src/platform/instances/, docs/storage.md). Migration 033, the
 * platform's part, before messaging's and webhooks' parts (the claimed_by columns).
 *
 * - instances: one row per running server process working the shared queues, with the time of its last
 *   heartbeat. On PostgreSQL an instance whose heartbeat is older than the dead-after time is taken for dead
 *   and what it had claimed is given back at once, instead of after the claims' leases (30 s and more).
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
}
