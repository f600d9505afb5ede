import { openDatabaseWith, type OpenDb, type OpenDbOptions, type PostgresDb, type SqliteDb } from '../platform/db/database.js';
import type { PostgresConfig } from '../platform/db/postgres.js';
import { migrations } from './migrations.js';

/**
 * Opens the database and brings its schema up to date with this version's migrations (src/bootstrap/migrations.ts,
 * the areas' parts merged): a file path (or ':memory:') is SQLite, a PostgresConfig (DATABASE_URL) is PostgreSQL.
 * The platform's openDatabaseWith takes the list as a parameter because it imports no area; this is the one place
 * that passes it, for the server, the benches and the tests.
 */
export function openDatabase(file: string, options?: OpenDbOptions): Promise<SqliteDb>;
export function openDatabase(target: PostgresConfig, options?: OpenDbOptions): Promise<PostgresDb>;
export function openDatabase(target: string | PostgresConfig, options?: OpenDbOptions): Promise<OpenDb>;
export async function openDatabase(target: string | PostgresConfig, options: OpenDbOptions = {}): Promise<OpenDb> {
  return openDatabaseWith(target, migrations, options);
}
