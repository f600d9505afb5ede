import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Db } from '../platform/db/database.js';
import { settingSealContext, type Sealer } from '../platform/sealing.js';
import { readSetting, settleSetting, type SettingKey } from '../platform/settings.js';

export const SECRET_KEY_SETTING = 'webhooks.secret_key' satisfies SettingKey;
const VERSION = 'v1';

/**
 * Webhook signing secrets must be revealable later (spec §5.5), so they cannot be hashed. They
 * are sealed with AES-256-GCM under a random key generated at first start and kept in the
 * `settings` table (as the OAuth signing key is) — itself sealed under the sealing key, which is
 * not in the database (src/platform/sealing.ts) — with the endpoint id as associated data: a
 * sealed secret copied onto another endpoint's row does not open. What this protects against and
 * what it does not is written down in docs/storage.md.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('webhook secret key must be 32 bytes');
  }

  seal(plain: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  open(sealed: string, boundTo: string): string {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ct === undefined) throw new Error('sealed webhook secret has an unknown format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * Loads the sealing key, generating and storing it on the very first start. Two instances
 * starting at once: the first insert wins and both read it back.
 */
export async function loadOrCreateSecretBox(db: Db, sealer: Sealer): Promise<SecretBox> {
  const context = settingSealContext(SECRET_KEY_SETTING);
  let sealed = await readSetting(db, SECRET_KEY_SETTING);
  sealed ??= await settleSetting(db, SECRET_KEY_SETTING, sealer.seal(JSON.stringify({ alg: 'A256GCM', key: randomBytes(32).toString('base64url'), createdAt: Date.now() }), context));
  const value = sealer.open(sealed, context);
  const parsed = JSON.parse(value) as { key: string };
  return new SecretBox(Buffer.from(parsed.key, 'base64url'));
}

/** A new signing secret: `whsec_` + 32 random bytes (base64url). The HMAC key is this whole string's UTF-8 bytes. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;
