import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { securePrivateFile, type ModeChange } from './data-dir.js';

/**
 * Secrets a copy of the database must not reveal (TOTP secrets, the OAuth token-signing key, the
 * webhook secrets' key) are sealed with AES-256-GCM under a key that is NOT in the database:
 * `SEALING_KEY` (32 bytes, hex or base64) when set, else the file `DATA_DIR/sealing.key`, created
 * 0600 on the very first start. Whoever holds the database alone learns nothing of these values;
 * whoever holds the key and the database learns everything. docs/storage.md "Sealing key".
 */

/** Every sealed value starts with this; a value without it is a clear one from before sealing. */
export const SEALED_PREFIX = 'sealed:v1:';
const KEY_FILE = 'sealing.key';

export class SealingKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealingKeyError';
  }
}

export class Sealer {
  private readonly aead: Buffer;
  private readonly macKey: Buffer;

  /** `source` says where the key came from, for messages (never the key itself). */
  constructor(
    key: Buffer,
    readonly source: string,
  ) {
    if (key.length !== 32) throw new SealingKeyError('The sealing key must be 32 bytes');
    // One key per use, so a MAC output can never double as an AEAD key or the other way round.
    this.aead = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'rcs sealing: aes-256-gcm', 32));
    this.macKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'rcs sealing: link tokens', 32));
  }

  static isSealed(value: string): boolean {
    return value.startsWith(SEALED_PREFIX);
  }

  /**
   * `context` names what the value is and whose it is (e.g. `totp:usr_…`): it is bound in as
   * associated data, so a sealed value copied onto another row does not open.
   */
  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.aead, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${SEALED_PREFIX}${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${ct.toString('base64url')}`;
  }

  /** Throws SealingKeyError when the value does not open with this key (wrong key, or tampered). */
  open(sealed: string, context: string): string {
    if (!Sealer.isSealed(sealed)) throw new SealingKeyError(`The value for ${context} is not sealed`);
    const [iv, tag, ct] = sealed.slice(SEALED_PREFIX.length).split('.');
    if (!iv || !tag || ct === undefined) throw new SealingKeyError(`The sealed value for ${context} is malformed`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.aead, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SealingKeyError(`The sealed value for ${context} does not open with the sealing key from ${this.source}`);
    }
  }

  /** Opens a sealed value; a clear one (written before sealing existed) is returned as is. */
  openOrClear(value: string, context: string): string {
    return Sealer.isSealed(value) ? this.open(value, context) : value;
  }

  /** A keyed MAC (HMAC-SHA256, base64url) for values that must be derivable again but not guessable. */
  mac(purpose: string, value: string): string {
    return createHmac('sha256', this.macKey).update(`${purpose}\0${value}`).digest('base64url');
  }
}

/** What a sealed value in the `settings` table is bound to: it opens under its own key only. */
export const settingSealContext = (settingKey: string): string => `settings:${settingKey}`;

/** 32 bytes from hex (64 digits) or base64/base64url (43–44 characters); anything else is refused. */
export function parseSealingKey(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const b = Buffer.from(t.replace(/\+/g, '-').replace(/\//g, '_').replace(/=$/, ''), 'base64url');
    return b.length === 32 ? b : null;
  }
  return null;
}

export interface SealingKeyOptions {
  /** SEALING_KEY, already checked by the configuration. */
  envKey: Buffer | null;
  dataDir: string;
  /** The database is in memory: nothing outlives the process, so neither does a generated key. */
  ephemeral: boolean;
  /**
   * Whether the database already holds sealed values. When it does, a missing key file is an
   * error: generating a new key would silently make every sealed value unreadable.
   */
  hasSealedData: boolean;
}

/** The key from SEALING_KEY or DATA_DIR/sealing.key, generating the file only for a database with nothing sealed yet. */
export function loadSealer(o: SealingKeyOptions): { sealer: Sealer; created: string | null; tightened?: ModeChange | null } {
  if (o.envKey) return { sealer: new Sealer(o.envKey, 'SEALING_KEY'), created: null };
  if (o.ephemeral) return { sealer: new Sealer(randomBytes(32), 'a key held in memory (in-memory database)'), created: null };
  const file = path.join(o.dataDir, KEY_FILE);
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text !== null) {
    const key = parseSealingKey(text);
    if (!key) throw new SealingKeyError(`${file} does not hold a 32-byte key (hex or base64). Restore the file from your backup.`);
    // Like the database files: a key file others may read (restored from a backup with 0644) is tightened at start.
    return { sealer: new Sealer(key, file), created: null, tightened: securePrivateFile(file) };
  }
  if (o.hasSealedData) {
    throw new SealingKeyError(
      `The database holds sealed secrets but the sealing key is missing: neither SEALING_KEY is set nor ${file} exists. ` +
        'Restore the key file (or set SEALING_KEY) from your backup; a new key would not open the sealed values. See docs/storage.md "Sealing key".',
    );
  }
  const key = randomBytes(32);
  // 'wx': two processes starting at once cannot both create it; the loser reads the winner's key.
  try {
    fs.writeFileSync(file, `${key.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadSealer(o);
    throw err;
  }
  fs.chmodSync(file, 0o600);
  return { sealer: new Sealer(key, file), created: file };
}
