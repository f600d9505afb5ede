/**
 * The database, as Kysely sees it: one interface per area in ./tables, joined here. Every table
 * is described in docs/storage.md; a new table is added to both.
 */
import type { FoundationTables } from './tables/foundation.js';

export type Database = FoundationTables;
