import type { MigrationParts } from '../../platform/db/migration-parts.js';
import * as m003 from './003_address_book.js';

/**
 * The fields area's parts of the numbered migrations: the statements on its own tables, by the migration's global
 * name. src/bootstrap/migrations.ts merges every area's parts into the one list the migrator runs (docs/storage.md
 * "Migrations"). A part file, once landed, is never edited: a change to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '003_address_book': m003,
};
