import type { MigrationParts } from '../../platform/db/migration-parts.js';
import * as m007 from './007_engagement.js';
import * as m028 from './028_consent_events.js';
import * as m036 from './036_consent_reviews.js';
import * as m037 from './037_consent_events_by_contact.js';

/**
 * The suppression area's parts of the numbered migrations: the statements on its own tables, by the migration's global
 * name. src/bootstrap/migrations.ts merges every area's parts into the one list the migrator runs (docs/storage.md
 * "Migrations"). A part file, once landed, is never edited: a change to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '007_engagement': m007,
  '028_consent_events': m028,
  '036_consent_reviews': m036,
  '037_consent_events_by_contact': m037,
};
