import type { MigrationParts } from '../../src/platform/db/migration-parts.js';
import * as m005 from './005_oauth.js';
import * as m026 from './026_assistant_writes.js';

/**
 * The oauth area's parts of the numbered migrations: the statements on its own tables, by the migration's global
 * name. src/bootstrap/migrations.ts merges every area's parts into the one list the migrator runs (docs/storage.md
 * "Migrations"). A part file, once landed, is never edited: a change to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '005_oauth': m005,
  '026_assistant_writes': m026,
};
