import type { Kysely } from 'kysely';
import { intType } from '../dialect.js';

/**
 * Client idempotency keys (Idempotency-Key header): one row per (account, SHA-256 of the key),
 * claimed before the work runs, marked in the work's own transaction, completed with the first
 * response. See src/platform/idempotency/ and docs/storage.md "idempotency_keys".
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('attempt', 'text', (c) => c.notNull())
    .addColumn('locked_at', INT, (c) => c.notNull())
    .addColumn('committed_at', INT)
    .addColumn('response_status', INT)
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('expires_at', INT, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key_hash'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
}
