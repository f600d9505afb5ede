import type { MigrationParts } from '../migration-parts.js';
import * as m001 from './001_foundation.js';
import * as m015 from './015_idempotency_keys.js';
import * as m019 from './019_shared_limits.js';
import * as m020 from './020_change_notifications.js';
import * as m033 from './033_instance_heartbeats.js';

/**
 * The platform's parts of the numbered migrations: the statements on its own tables (settings, idempotency keys,
 * rate-limit counters, instances) and the cache-change trigger function. Each area keeps the parts on its tables in
 * `src/<area>/migrations/` (`oauth/migrations/`); src/bootstrap/migrations.ts merges them all into the one list the
 * migrator runs, in the order it documents (docs/storage.md "Migrations"). The platform imports no area, so it gets
 * that list as a parameter (openDatabase, copySqliteToPostgres). A part file, once landed, is never edited: a change
 * to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '001_foundation': m001,
  '015_idempotency_keys': m015,
  '019_shared_limits': m019,
  '020_change_notifications': m020,
  '033_instance_heartbeats': m033,
};
