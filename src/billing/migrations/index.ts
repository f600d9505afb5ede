import type { MigrationParts } from '../../platform/db/migration-parts.js';
import * as m018 from './018_credit_ledger.js';
import * as m030 from './030_credential_budgets.js';
import * as m039 from './039_budget_holds.js';

/**
 * The billing area's parts of the numbered migrations: the statements on its own tables, by the migration's global
 * name. src/bootstrap/migrations.ts merges every area's parts into the one list the migrator runs (docs/storage.md
 * "Migrations"). A part file, once landed, is never edited: a change to a table is a new number.
 */
export const migrationParts: MigrationParts = {
  '018_credit_ledger': m018,
  '030_credential_budgets': m030,
  '039_budget_holds': m039,
};
