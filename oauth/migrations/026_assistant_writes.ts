import type { Kysely } from 'kysely';

/**
 * `oauth_tokens.client_name`: the client's name when the token was issued, right after the person's
 * consent, so the label "app …" stays the name the person saw even if a client ID metadata document
 * renames itself later. Existing tokens take their client's current name.
 * Migration 026, the OAuth part, after contacts' part (contacts.assistant_writes).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_tokens').addColumn('client_name', 'text').execute();
  await db
    .updateTable('oauth_tokens')
    .set((eb) => ({ client_name: eb.selectFrom('oauth_clients').select('oauth_clients.client_name').whereRef('oauth_clients.client_id', '=', 'oauth_tokens.client_id') }))
    .execute();
}
