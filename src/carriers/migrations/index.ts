import type { MigrationParts } from '../../platform/db/migration-parts.js';
import * as m004 from './004_messaging.js';
import * as m009 from './009_smpp.js';
import * as m011 from './011_sim_receipt_indexes.js';
import * as m017 from './017_smpp_unreported_partial.js';
import * as m022 from './022_smpp_mo_parts.js';

/**
 * The carriers area's parts of the numbered migrations: the statements on its own tables, by the migration's global
 * name. src/bootstrap/migrations.ts merges every area's parts into the one list the migrator runs (docs/storage.md
 * "Migrations"). A part file, once landed, is never edited: a change to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '004_messaging': m004,
  '009_smpp': m009,
  '011_sim_receipt_indexes': m011,
  '017_smpp_unreported_partial': m017,
  '022_smpp_mo_parts': m022,
};
