import * as OTPAuth from 'otpauth';
import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import type { Db, DbOrTx } from '../platform/db/database.js';
import { toBool } from '../platform/db/sql.js';
import type { UsersTable } from './tables.js';
import { AppError, notFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Sealer } from '../platform/sealing.js';
import { hashPassword, randomToken } from '../platform/secrets.js';

export const TOTP_ISSUER = 'RCS MCP Server';

export interface User {
  id: string;
  accountId: string;
  email: string;
  active: boolean;
  createdAt: string;
}

export interface CreatedUser {
  user: User;
  /** Shown once so the person can enrol an authenticator app. */
  totpSecret: string;
  otpauthUri: string;
  /** Only when the password was generated here. */
  generatedPassword?: string;
}

export const toUser = (row: UsersTable): User => ({
  id: row.id,
  accountId: row.account_id,
  email: row.email,
  active: toBool(row.active),
  createdAt: toIso(row.created_at)!,
});

export function totpFor(secret: string, email: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer: TOTP_ISSUER, label: email, algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) });
}

/** What a user's sealed TOTP secret is bound to (src/platform/sealing.ts): it opens on this user's row only. */
export const totpSealContext = (userId: string): string => `users.totp_secret:${userId}`;

/** One sealed TOTP secret, for the start-up check that the sealing key is this database's. */
export async function anySealedTotpSecret(db: DbOrTx, sealedPrefix: string): Promise<{ id: string; totp_secret: string } | undefined> {
  return db.selectFrom('users').select(['id', 'totp_secret']).where('totp_secret', 'like', `${sealedPrefix}%`).limit(1).executeTakeFirst();
}

/**
 * Seals the TOTP secrets a database from before sealing holds in the clear (start-up, in its
 * transaction); a row changed meanwhile by another instance is left to that instance. Returns how many.
 */
export async function sealClearTotpSecrets(tx: DbOrTx, sealer: Sealer, sealedPrefix: string): Promise<number> {
  let sealed = 0;
  const clear = await tx.selectFrom('users').select(['id', 'totp_secret']).where('totp_secret', 'not like', `${sealedPrefix}%`).execute();
  for (const u of clear) {
    await tx.updateTable('users').set({ totp_secret: sealer.seal(u.totp_secret, totpSealContext(u.id)) }).where('id', '=', u.id).where('totp_secret', '=', u.totp_secret).execute();
    sealed++;
  }
  return sealed;
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface UsersDeps {
  db: Db;
  clock: Clock;
  /** Seals each user's TOTP secret at rest. */
  sealer: Sealer;
}

export class UsersService {
  constructor(private readonly d: UsersDeps) {}

  async create(accountId: string, email: string, password?: string, tx: DbOrTx = this.d.db): Promise<CreatedUser> {
    const normalized = email.trim().toLowerCase();
    if (!EMAIL_RE.test(normalized) || normalized.length > 254) throw new AppError('VALIDATION_ERROR', `Not an email address: ${email}`);
    const generatedPassword = password === undefined ? randomToken(15) : undefined;
    const pw = password ?? generatedPassword!;
    if (pw.length < 12) throw new AppError('VALIDATION_ERROR', 'Passwords need at least 12 characters');
    const existing = await tx.selectFrom('users').select('id').where('email', '=', normalized).executeTakeFirst();
    if (existing) throw new AppError('CONFLICT', `A user with email ${normalized} already exists`);
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    const id = newId('usr');
    const row: UsersTable = {
      id,
      account_id: accountId,
      email: normalized,
      password_hash: await hashPassword(pw),
      totp_secret: this.d.sealer.seal(secret, totpSealContext(id)),
      totp_last_counter: null,
      active: 1,
      failed_logins: 0,
      locked_until: null,
      created_at: this.d.clock.now(),
    };
    await tx.insertInto('users').values(row).execute();
    return {
      user: toUser(row),
      totpSecret: secret,
      otpauthUri: totpFor(secret, normalized).toString(),
      ...(generatedPassword ? { generatedPassword } : {}),
    };
  }

  async get(id: string): Promise<User> {
    const row = await this.d.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('User');
    return toUser(row);
  }

  async listForAccount(accountId: string): Promise<User[]> {
    const rows = await this.d.db.selectFrom('users').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute();
    return rows.map(toUser);
  }

  async setActive(id: string, active: boolean): Promise<void> {
    const res = await this.d.db.updateTable('users').set({ active: active ? 1 : 0 }).where('id', '=', id).executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw notFound('User');
    if (!active) await this.d.db.deleteFrom('sessions').where('user_id', '=', id).execute();
  }

  /** A new TOTP secret (re-enrolment); old codes stop working at once. */
  async resetTotp(id: string): Promise<CreatedUser> {
    const row = await this.d.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('User');
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    await this.d.db.updateTable('users').set({ totp_secret: this.d.sealer.seal(secret, totpSealContext(id)), totp_last_counter: null }).where('id', '=', id).execute();
    return { user: toUser(row), totpSecret: secret, otpauthUri: totpFor(secret, row.email).toString() };
  }

  now(): number {
    return this.d.clock.now();
  }
}
