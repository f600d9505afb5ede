import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 008, webhooks' part: endpoints, outbox, delivery log. Before the forms' part (forms reference webhook_endpoints). See docs/storage.md "Webhooks and forms". */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('enabled', INT, (c) => c.notNull().defaultTo(1))
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('user'))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('secret_hint', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_expires_at', INT)
    .addColumn('secret_rotated_at', INT)
    .addColumn('consecutive_failures', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('failing_since', INT)
    .addColumn('last_success_at', INT)
    .addColumn('last_failure_at', INT)
    .addColumn('last_error', 'text')
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('updated_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_account_url').on('webhook_endpoints').columns(['account_id', 'url']).unique().execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_events_account_time').on('webhook_events').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', INT)
    .addColumn('lease_until', INT)
    .addColumn('give_up_at', INT, (c) => c.notNull())
    .addColumn('last_attempt_at', INT)
    .addColumn('last_status_code', INT)
    .addColumn('last_latency_ms', INT)
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', INT)
    .addColumn('created_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['event_id']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', INT, (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('started_at', INT, (c) => c.notNull())
    .addColumn('latency_ms', INT, (c) => c.notNull())
    .addColumn('status_code', INT)
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('response_snippet', 'text')
    .addColumn('manual', INT, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
    .execute();
  await db.schema.createIndex('webhook_attempts_endpoint_time').on('webhook_attempts').columns(['endpoint_id', 'started_at']).execute();
}
