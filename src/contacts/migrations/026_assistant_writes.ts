import type { Kysely } from 'kysely';

/**
 * Which approval-bound credential last wrote a contact's merge values (issue #27), so a preview can
 * warn about values an assistant wrote: `contacts.assistant_writes`, JSON text of entries by merge
 * field (`contact_first_name` …, custom fields by their field id, since tags can be renamed), each
 * `{by, credentialId, at}`; `{}` when none (src/contacts/provenance.ts, docs/storage.md).
 * Migration 026, contacts' part, before the OAuth part.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('contacts').addColumn('assistant_writes', 'text', (c) => c.notNull().defaultTo('{}')).execute();
}
