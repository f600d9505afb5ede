import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 001, accounts' part: accounts, prices, users, API keys, sessions, the login throttle. Before: senders; after: settings (platform). */
// Migrations take Kysely<any>: they describe past shapes, not the current Database type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('approval_required', INT, (c) => c.notNull().defaultTo(1))
    .addColumn('credits_milli', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('unsubscribe_url', 'text')
    .addColumn('company_profile', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('active', INT, (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', INT, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('prices')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('rcs_price_milli', INT, (c) => c.notNull())
    .addColumn('sms_price_milli', INT, (c) => c.notNull())
    .addPrimaryKeyConstraint('prices_pk', ['account_id', 'country'])
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('totp_secret', 'text', (c) => c.notNull())
    .addColumn('totp_last_counter', INT)
    .addColumn('active', INT, (c) => c.notNull().defaultTo(1))
    .addColumn('failed_logins', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', INT)
    .addColumn('created_at', INT, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('last_used_at', INT)
    .addColumn('revoked_at', INT)
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('authenticated_at', INT)
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('expires_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_expiry').on('sessions').column('expires_at').execute();

  await db.schema
    .createTable('login_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', INT, (c) => c.notNull())
    .addColumn('window_start', INT, (c) => c.notNull())
    .addColumn('locked_until', INT)
    .execute();
}
