import type { MigrationParts } from '../../platform/db/migration-parts.js';
import * as m008 from './008_webhooks_forms.js';
import * as m016 from './016_webhook_fairness.js';
import * as m033 from './033_instance_heartbeats.js';

/**
 * The webhooks area's parts of the numbered migrations: the statements on its own tables, by the migration's global
 * name. src/bootstrap/migrations.ts merges every area's parts into the one list the migrator runs (docs/storage.md
 * "Migrations"). A part file, once landed, is never edited: a change to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '008_webhooks_forms': m008,
  '016_webhook_fairness': m016,
  '033_instance_heartbeats': m033,
};
