import type { DbOrTx } from './db/database.js';

/**
 * The `settings` table as a typed registry (issue #32). The table holds the few values that belong
 * to the database as a whole rather than to an account: keys that every instance on the same
 * database must share. Each key is declared here with the one module that owns it — the only
 * module that reads or writes it — and this file is the only code that touches the table
 * (test/unit/table-owners.test.ts), so "who writes settings?" has one answer per key.
 */
export const SETTINGS = {
  /** The OAuth token signing key (JWK), sealed. */
  'oauth.jwt_signing_key': { owner: 'oauth/keys.ts', sealed: true },
  /** The key that seals webhook signing secrets, itself sealed. */
  'webhooks.secret_key': { owner: 'src/webhooks/secret-box.ts', sealed: true },
  /** HMAC key for the sandbox's per-client counters, so they hold no address in the clear. */
  'sandbox.client_hash_key': { owner: 'src/sandbox/rate-limit.ts', sealed: false },
  /** HMAC key for the HTTP rate limiters' counters, for the same reason. */
  'rate_limit.key_hash_key': { owner: 'src/platform/http/rate-limit-store.ts', sealed: false },
  /** A known text sealed under the sealing key: proves at start that the key is this database's. */
  'sealing.check': { owner: 'src/bootstrap/secrets-at-rest.ts', sealed: true },
} as const satisfies Record<string, { owner: string; sealed: boolean }>;

export type SettingKey = keyof typeof SETTINGS;

/** Keys whose value is stored sealed (src/platform/sealing.ts); start-up seals clear ones left by old versions. */
export const SEALED_SETTINGS = (Object.keys(SETTINGS) as SettingKey[]).filter((key) => SETTINGS[key].sealed);

/** The stored value, or undefined when the key was never written. */
export async function readSetting(db: DbOrTx, key: SettingKey): Promise<string | undefined> {
  return (await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst())?.value;
}

/**
 * Stores `value` unless the key already has one, then returns what is stored. Instances that
 * start together each offer a value; the first insert wins and all of them use the winner's.
 */
export async function settleSetting(db: DbOrTx, key: SettingKey, value: string): Promise<string> {
  await db.insertInto('settings').values({ key, value }).onConflict((oc) => oc.column('key').doNothing()).execute();
  const stored = await readSetting(db, key);
  if (stored === undefined) throw new Error(`setting ${key} could not be stored`);
  return stored;
}

/** The stored values of some keys, for start-up's sealing pass. */
export async function readSettings(db: DbOrTx, keys: readonly SettingKey[]): Promise<Array<{ key: SettingKey; value: string }>> {
  if (keys.length === 0) return [];
  const rows = await db.selectFrom('settings').select(['key', 'value']).where('key', 'in', keys).execute();
  return rows.map((r) => ({ key: r.key as SettingKey, value: r.value }));
}

/** Replaces a stored value only if it is still `expected` (sealing a clear value at start, once across instances). */
export async function replaceSetting(db: DbOrTx, key: SettingKey, expected: string, value: string): Promise<void> {
  await db.updateTable('settings').set({ value }).where('key', '=', key).where('value', '=', expected).execute();
}
