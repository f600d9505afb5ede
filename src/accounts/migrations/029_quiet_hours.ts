import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * Quiet hours (issue #28, src/schedule/quiet-hours.ts): an account setting that keeps marketing messages out of the
 * night in the recipient's local time, deferring them to the window's next opening. Migration 029, accounts' part,
 * before messaging's part (messages.quiet_place).
 *
 * - accounts.quiet_hours: 0 (default: spec behaviour, nothing deferred) or 1.
 * - accounts.quiet_hours_windows: JSON object of per-country window overrides, `{"DE": {"start": "09:00", "end":
 *   "20:00", "days": [1,2,3,4,5,6]}}`; null: the documented defaults for every country.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema.alterTable('accounts').addColumn('quiet_hours', INT, (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('accounts').addColumn('quiet_hours_windows', 'text').execute();
}
