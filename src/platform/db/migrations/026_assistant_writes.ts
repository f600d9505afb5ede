import type { Kysely } from 'kysely';

/**
 * Which approval-bound credential last wrote a contact's merge values (issue #27), so a preview can
 * warn about values an assistant wrote: `contacts.assistant_writes`, JSON text of entries by merge
 * field (`contact_first_name` …, custom fields by their field id, since tags can be renamed), each
 * `{by, credentialId, at}`; `{}` when none (src/contacts/provenance.ts, docs/storage.md).
 *
 * `oauth_tokens.client_name`: the client's name when the token was issued, right after the person's
 * consent, so the label "app …" stays the name the person saw even if a client ID metadata document
 * renames itself later. Existing tokens take their client's current name.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('contacts').addColumn('assistant_writes', 'text', (c) => c.notNull().defaultTo('{}')).execute();
  await db.schema.alterTable('oauth_tokens').addColumn('client_name', 'text').execute();
  await db
    .updateTable('oauth_tokens')
    .set((eb) => ({ client_name: eb.selectFrom('oauth_clients').select('oauth_clients.client_name').whereRef('oauth_clients.client_id', '=', 'oauth_tokens.client_id') }))
    .execute();
}
