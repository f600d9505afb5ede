import type { MigrationParts } from '../../platform/db/migration-parts.js';
import * as m004 from './004_messaging.js';
import * as m010 from './010_messages_phone_window.js';
import * as m021 from './021_sender_throughput.js';
import * as m029 from './029_quiet_hours.js';
import * as m031 from './031_approval_audit.js';
import * as m033 from './033_instance_heartbeats.js';
import * as m034 from './034_messages_follow_by_trigger.js';
import * as m035 from './035_messages_status_out_of_indexes.js';
import * as m036 from './036_consent_reviews.js';

/**
 * The messaging area's parts of the numbered migrations: the statements on its own tables, by the migration's global
 * name. src/bootstrap/migrations.ts merges every area's parts into the one list the migrator runs (docs/storage.md
 * "Migrations"). A part file, once landed, is never edited: a change to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '004_messaging': m004,
  '010_messages_phone_window': m010,
  '021_sender_throughput': m021,
  '029_quiet_hours': m029,
  '031_approval_audit': m031,
  '033_instance_heartbeats': m033,
  '034_messages_follow_by_trigger': m034,
  '035_messages_status_out_of_indexes': m035,
  '036_consent_reviews': m036,
};
