import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * Known devices and growing login delays (issue #27). A browser that finished a login (password
 * and second factor) keeps a random token in a cookie; only its SHA-256 is stored here, bound to
 * the user. Attempts carrying it are not slowed by the failures of others (src/accounts/login.ts).
 * login_failures replaces login_throttle (kept, no longer written: tables are never altered in
 * place): per counter the latest failure, so a counter is forgotten after a quiet period, not at a
 * fixed window's end, and an attacker who keeps trying stays at the longest delay.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('login_devices')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('last_used_at', INT, (c) => c.notNull())
    .addColumn('expires_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_devices_user').on('login_devices').column('user_id').execute();
  await db.schema.createIndex('login_devices_expiry').on('login_devices').column('expires_at').execute();
  await db.schema
    .createTable('login_failures')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', INT, (c) => c.notNull())
    .addColumn('last_failure_at', INT, (c) => c.notNull())
    .addColumn('next_attempt_at', INT)
    .execute();
}
