import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * The parts of concatenated incoming SMS (issue #19): kept in the database until every part has
 * come, instead of in the memory of the bind that received them. An SMSC may spread one message's
 * parts over the binds of several instances, and a part already acknowledged must survive a
 * restart. See src/carriers/smpp/mo-assembly.ts and docs/storage.md "SMPP".
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('smpp_mo_parts')
    .addColumn('mo_key', 'text', (c) => c.notNull())
    .addColumn('seq', INT, (c) => c.notNull())
    .addColumn('total', INT, (c) => c.notNull())
    .addColumn('smsc', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('dest', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('received_at', INT, (c) => c.notNull())
    .addPrimaryKeyConstraint('smpp_mo_parts_pk', ['mo_key', 'seq'])
    .execute();
  await db.schema.createIndex('smpp_mo_parts_received').on('smpp_mo_parts').column('received_at').execute();
}
