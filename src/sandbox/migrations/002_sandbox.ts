import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

// Migrations take Kysely<any>: they describe past shapes, not the current Database type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('sandbox_previews')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('input_hash', 'text', (c) => c.notNull().unique())
    .addColumn('message_type', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('sms_fallback', 'text')
    .addColumn('sms', 'text')
    .addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('media', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', INT, (c) => c.notNull())
    .addColumn('expires_at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sandbox_previews_expiry').on('sandbox_previews').column('expires_at').execute();

  await db.schema
    .createTable('sandbox_rate_events')
    .addColumn('client_hash', 'text', (c) => c.notNull())
    .addColumn('at', INT, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sandbox_rate_events_client').on('sandbox_rate_events').columns(['client_hash', 'at']).execute();
  await db.schema.createIndex('sandbox_rate_events_at').on('sandbox_rate_events').column('at').execute();
}
