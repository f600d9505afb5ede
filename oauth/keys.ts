import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Db } from '../src/platform/db/database.js';
import { settingSealContext, type Sealer } from '../src/platform/sealing.js';
import { readSetting, settleSetting, type SettingKey } from '../src/platform/settings.js';

/** Access tokens are signed with ECDSA P-256 (ES256). */
export const JWT_ALG = 'ES256';
export const SIGNING_KEY_SETTING = 'oauth.jwt_signing_key' satisfies SettingKey;

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

interface StoredKey {
  alg: string;
  kid: string;
  /** Private JWK (includes the public part). */
  jwk: JWK;
  createdAt: number;
}

/**
 * The token signing key: generated at first start and kept in the `settings` table, so tokens
 * survive restarts and every instance on the same database signs and verifies with the same key.
 * The row holds it sealed (src/platform/sealing.ts): a copy of the database cannot sign tokens.
 * When two instances start at once the first insert wins and both read it back.
 */
export async function loadOrCreateSigningKey(db: Db, now: number, sealer: Sealer): Promise<SigningKey> {
  const readStored = () => readSealed(db, sealer);
  const existing = await readStored();
  if (existing) return importStored(existing);
  const { privateKey } = await generateKeyPair(JWT_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y! });
  const stored: StoredKey = { alg: JWT_ALG, kid, jwk: { ...jwk, alg: JWT_ALG, kid, use: 'sig' }, createdAt: now };
  const winner = await settleSetting(db, SIGNING_KEY_SETTING, sealer.seal(JSON.stringify(stored), settingSealContext(SIGNING_KEY_SETTING)));
  return importStored(JSON.parse(sealer.open(winner, settingSealContext(SIGNING_KEY_SETTING))) as StoredKey);
}

async function readSealed(db: Db, sealer: Sealer): Promise<StoredKey | null> {
  const value = await readSetting(db, SIGNING_KEY_SETTING);
  return value === undefined ? null : (JSON.parse(sealer.open(value, settingSealContext(SIGNING_KEY_SETTING))) as StoredKey);
}

async function importStored(stored: StoredKey): Promise<SigningKey> {
  const { d: _d, ...publicJwk } = stored.jwk;
  const privateKey = (await importJWK(stored.jwk, stored.alg)) as CryptoKey;
  const publicKey = (await importJWK(publicJwk, stored.alg)) as CryptoKey;
  return { kid: stored.kid, privateKey, publicKey };
}
