import type { MigrationParts } from '../../platform/db/migration-parts.js';
import * as m008 from './008_webhooks_forms.js';
import * as m019 from './019_shared_limits.js';
import * as m025 from './025_form_confirmation_limits.js';

/**
 * The forms area's parts of the numbered migrations: the statements on its own tables, by the migration's global
 * name. src/bootstrap/migrations.ts merges every area's parts into the one list the migrator runs (docs/storage.md
 * "Migrations"). A part file, once landed, is never edited: a change to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '008_webhooks_forms': m008,
  '019_shared_limits': m019,
  '025_form_confirmation_limits': m025,
};
