import type { Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/** The ten permissions every key could hold before 012; a key holding all of them was made as "all". */
const OLD_ALL = [
  'contacts:read',
  'contacts:write',
  'custom-fields:read',
  'custom-fields:write',
  'groups:read',
  'groups:write',
  'templates:read',
  'templates:write',
  'messages:read',
  'messages:write',
];
const NEW_MANAGEMENT = ['webhooks:manage', 'forms:manage'];

/**
 * Approval belongs to the credential (issue #15). api_keys gets `sends_need_approval`: such a key
 * sends only through a preview a person approved, and never sees webhook signing secrets. Existing
 * keys keep sending directly (0), as they did.
 *
 * Webhook and form management moved from messages:write / contacts:write to their own permissions.
 * A key that held every old permission was created as "all" (the demo key, `--permissions all`)
 * and gets the new ones, so it keeps working; any other key loses webhook and form management
 * until a person creates a key with them (docs/decisions.md "Approval belongs to the credential").
 * OAuth tokens are not widened: an assistant gets management only by asking and a person ticking.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema.alterTable('api_keys').addColumn('sends_need_approval', INT, (c) => c.notNull().defaultTo(0)).execute();
  const keys = (await db.selectFrom('api_keys').select(['id', 'permissions']).execute()) as { id: string; permissions: string }[];
  for (const key of keys) {
    let held: unknown;
    try {
      held = JSON.parse(key.permissions);
    } catch {
      continue;
    }
    if (!Array.isArray(held) || !OLD_ALL.every((p) => held.includes(p))) continue;
    const widened = [...new Set([...(held as string[]), ...NEW_MANAGEMENT])];
    await db.updateTable('api_keys').set({ permissions: JSON.stringify(widened) }).where('id', '=', key.id).execute();
  }
}
