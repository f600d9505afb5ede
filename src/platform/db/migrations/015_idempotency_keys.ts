import type { Kysely } from 'kysely';

/**
 * Client idempotency keys (Idempotency-Key header): one row per (account, SHA-256 of the key),
 * claimed before the work runs, marked in the work's own transaction, completed with the first
 * response. See src/platform/idempotency/ and docs/storage.md "idempotency_keys".
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('attempt', 'text', (c) => c.notNull())
    .addColumn('locked_at', 'integer', (c) => c.notNull())
    .addColumn('committed_at', 'integer')
    .addColumn('response_status', 'integer')
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key_hash'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
}
