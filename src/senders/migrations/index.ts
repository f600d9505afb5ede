import type { MigrationParts } from '../../platform/db/migration-parts.js';
import * as m001 from './001_foundation.js';
import * as m020 from './020_change_notifications.js';
import * as m032 from './032_sender_consent_words.js';

/**
 * The senders area's parts of the numbered migrations: the statements on its own tables, by the migration's global
 * name. src/bootstrap/migrations.ts merges every area's parts into the one list the migrator runs (docs/storage.md
 * "Migrations"). A part file, once landed, is never edited: a change to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '001_foundation': m001,
  '020_change_notifications': m020,
  '032_sender_consent_words': m032,
};
