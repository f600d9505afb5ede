import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** Migration 004, messaging's part: jobs, messages, unsubscribe tokens. Before the carriers' part (sim_messages). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('sendername_id', 'text', (c) => c.notNull())
    .addColumn('message_type', 'text')
    .addColumn('campaign_name', 'text')
    .addColumn('total', INT, (c) => c.notNull())
    .addColumn('rejected', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('batch_size', INT, (c) => c.notNull())
    .addColumn('delay_ms', INT, (c) => c.notNull())
    .addColumn('scheduled_at', INT)
    .addColumn('time_zone', 'text')
    .addColumn('timezone_source', 'text')
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('cancelled_at', INT)
    .addColumn('cancelled_count', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('credits_milli', INT, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('jobs_account_created').on('jobs').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('job_id', 'text', (c) => c.references('jobs.id').onDelete('set null'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('country', 'text')
    .addColumn('contact_id', 'text')
    .addColumn('sendername_id', 'text', (c) => c.notNull())
    .addColumn('message_type', 'text')
    .addColumn('content', 'text')
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('sms_fallback', 'text')
    .addColumn('fallback_text', 'text')
    .addColumn('campaign_name', 'text')
    .addColumn('credits_cost_milli', INT)
    .addColumn('sms_segments', INT)
    .addColumn('sms_encoding', 'text')
    .addColumn('method', 'text')
    .addColumn('fallback_used', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('fallback_reason', 'text')
    .addColumn('error', 'text')
    .addColumn('carrier_message_id', 'text')
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('scheduled_at', INT)
    .addColumn('sent_at', INT)
    .addColumn('delivered_at', INT)
    .addColumn('read_at', INT)
    .addColumn('failed_at', INT)
    .addColumn('pending', INT, (c) => c.notNull())
    .addColumn('due_at', INT, (c) => c.notNull())
    .addColumn('lease_until', INT)
    .addColumn('attempts', INT, (c) => c.notNull().defaultTo(0))
    .addColumn('time_zone', 'text')
    .execute();
  await db.schema.createIndex('messages_dispatch').on('messages').columns(['pending', 'due_at']).execute();
  await db.schema.createIndex('messages_account_created').on('messages').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('messages_account_phone').on('messages').columns(['account_id', 'phone']).execute();
  await db.schema.createIndex('messages_job').on('messages').columns(['job_id', 'status']).execute();
  await db.schema.createIndex('messages_contact').on('messages').columns(['contact_id', 'status']).execute();

  await db.schema
    .createTable('unsubscribe_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('used_at', INT)
    .execute();
}
