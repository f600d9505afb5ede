import type { MigrationParts } from '../../platform/db/migration-parts.js';
import * as m006 from './006_previews.js';
import * as m013 from './013_preview_merge_fingerprint.js';
import * as m023 from './023_preview_merge_values.js';
import * as m031 from './031_approval_audit.js';

/**
 * The previews area's parts of the numbered migrations: the statements on its own tables, by the migration's global
 * name. src/bootstrap/migrations.ts merges every area's parts into the one list the migrator runs (docs/storage.md
 * "Migrations"). A part file, once landed, is never edited: a change to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '006_previews': m006,
  '013_preview_merge_fingerprint': m013,
  '023_preview_merge_values': m023,
  '031_approval_audit': m031,
};
