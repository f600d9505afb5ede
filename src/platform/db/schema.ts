/**
 * The database, as Kysely sees it. The platform's own tables are listed here; every area adds its own by augmenting
 * this interface from its folder (`src/<area>/tables.ts`, `oauth/tables.ts`: `declare module … { interface Database
 * extends XTables {} }`), so each table's type sits with the one area that writes it and the platform imports no
 * area. Every table is described in docs/storage.md; a new table is added to both.
 */
import type { FoundationTables } from './tables/foundation.js';
import type { IdempotencyTables } from './tables/idempotency.js';
import type { InstanceTables } from './tables/instances.js';

export interface Database extends FoundationTables, IdempotencyTables, InstanceTables {}
