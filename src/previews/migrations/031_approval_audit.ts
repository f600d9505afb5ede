import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * The approvals inbox and its audit trail (issue #29). See docs/storage.md "Approvals inbox and audit
 * trail (migration 031)". Migration 031, previews' part, before messaging's part (messages.preview_id).
 *
 * - `preview_approvals`: append-only, one row per approval or rejection on a share page: the person
 *   (user id and e-mail as they were), when, a hash of the session, the client's address and user
 *   agent, and the fingerprint of what the page showed. Written by src/previews/ alone, never
 *   changed afterwards by any route; deleting a user or a key keeps the rows (no foreign key to
 *   either; the credential that made the preview is kept as its label).
 * - `previews.credential_id` / `credential_label`: which API key or OAuth app made the preview
 *   (`key "Assistant"`, `app "Claude"`), for the inbox, webhooks and the record. Null for older rows.
 * - `previews.expiry_noticed_at`: when an instance noticed the preview had expired (and raised
 *   `preview.expired` if it was still waiting or approved). Set once, by a conditional update, so
 *   several instances raise the event once. Previews already expired are marked now: no flood of
 *   events for old previews on upgrade.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema
    .createTable('preview_approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('preview_id', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('user_email', 'text', (c) => c.notNull())
    .addColumn('decided_at', INT, (c) => c.notNull())
    .addColumn('session_hash', 'text', (c) => c.notNull())
    .addColumn('client_ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('preview_kind', 'text', (c) => c.notNull())
    .addColumn('recipients', INT, (c) => c.notNull())
    .addColumn('credits_milli', INT, (c) => c.notNull())
    .addColumn('credential_label', 'text')
    .execute();
  await db.schema.createIndex('preview_approvals_account').on('preview_approvals').columns(['account_id', 'decided_at', 'id']).execute();
  await db.schema.createIndex('preview_approvals_preview').on('preview_approvals').columns(['preview_id', 'decided_at']).execute();

  await db.schema.alterTable('previews').addColumn('credential_id', 'text').execute();
  await db.schema.alterTable('previews').addColumn('credential_label', 'text').execute();
  await db.schema.alterTable('previews').addColumn('expiry_noticed_at', INT).execute();
  await db.schema.createIndex('previews_expiry_notice').on('previews').columns(['expiry_noticed_at', 'expires_at']).execute();
  await db.updateTable('previews').set((eb) => ({ expiry_noticed_at: eb.ref('expires_at') })).where('expires_at', '<=', Date.now()).execute();
}
