import type { MigrationParts } from '../../platform/db/migration-parts.js';
import * as m001 from './001_foundation.js';
import * as m012 from './012_approval_bound_keys.js';
import * as m020 from './020_change_notifications.js';
import * as m024 from './024_login_devices.js';
import * as m025 from './025_form_confirmation_limits.js';
import * as m027 from './027_opt_out_confirmation.js';
import * as m029 from './029_quiet_hours.js';
import * as m038 from './038_consent_reply_texts.js';

/**
 * The accounts area's parts of the numbered migrations: the statements on its own tables, by the migration's global
 * name. src/bootstrap/migrations.ts merges every area's parts into the one list the migrator runs (docs/storage.md
 * "Migrations"). A part file, once landed, is never edited: a change to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '001_foundation': m001,
  '012_approval_bound_keys': m012,
  '020_change_notifications': m020,
  '024_login_devices': m024,
  '025_form_confirmation_limits': m025,
  '027_opt_out_confirmation': m027,
  '029_quiet_hours': m029,
  '038_consent_reply_texts': m038,
};
