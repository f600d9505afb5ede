import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import type { ChangeStamp } from '../platform/db/change-stamp.js';
import type { Db } from '../platform/db/database.js';
import { parseJson } from '../platform/db/sql.js';
import { AppError, notFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { credentialLabel, PermissionSchema, type Permission, type Principal } from '../platform/permissions.js';
import { randomToken, sha256Hex } from '../platform/secrets.js';

/** Every secret key starts with this, so leaked keys are easy to grep for and scanners can match them. */
export const API_KEY_PREFIX = 'rcsk_';

export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  permissions: Permission[];
  /** The key sends only through a preview a person approved, and never sees webhook signing secrets. */
  sendsNeedApproval: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

// last_used_at is a hint for people, not an audit log: write it at most once a minute per key so
// a busy key does not turn every read into a write.
const LAST_USED_RESOLUTION_MS = 60_000;

// A key's principal is kept in memory while the database's change stamp stays the same
// (change-stamp.ts), so a busy assistant's reads do not cost a key lookup each, yet a revocation
// committed by any connection — this process, the admin CLI, another instance — drops it by the very
// next request (on PostgreSQL through the change feed's notifications). Without a stamp nothing is cached.
const PRINCIPAL_CACHE_MAX = 10_000;

export interface CreateKeyOptions {
  /** The key sends only through a preview a person approved (default false: an automation key). */
  sendsNeedApproval?: boolean;
}

export interface ApiKeysDeps {
  db: Db;
  clock: Clock;
  /** The database's change stamp: while it is the same, principals come from memory; absent (bench/principal-cache.ts), every key is read. */
  stamp?: ChangeStamp;
}

export class ApiKeysService {
  private readonly principals = new Map<string, { principal: Principal; stamp: string }>();

  constructor(private readonly d: ApiKeysDeps) {}

  /** Creates a key; the secret is in the return value only and is never stored. */
  async create(accountId: string, name: string, permissions: readonly Permission[], options: CreateKeyOptions = {}): Promise<{ key: string; info: ApiKeyInfo }> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > 100) throw new AppError('VALIDATION_ERROR', 'Key name must be 1 to 100 characters');
    const perms = [...new Set(permissions.map((p) => PermissionSchema.parse(p)))];
    if (perms.length === 0) throw new AppError('VALIDATION_ERROR', 'A key needs at least one permission');
    const secret = `${API_KEY_PREFIX}${randomToken(32)}`;
    const row = {
      id: newId('key'),
      account_id: accountId,
      name: trimmed,
      key_hash: sha256Hex(secret),
      display_prefix: secret.slice(0, API_KEY_PREFIX.length + 6),
      permissions: JSON.stringify(perms),
      sends_need_approval: options.sendsNeedApproval === true ? 1 : 0,
      created_at: this.d.clock.now(),
      last_used_at: null,
      revoked_at: null,
    };
    await this.d.db.insertInto('api_keys').values(row).execute();
    return { key: secret, info: this.toInfo(row) };
  }

  async list(accountId: string): Promise<ApiKeyInfo[]> {
    const rows = await this.d.db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').execute();
    return rows.map((r) => this.toInfo(r));
  }

  async revoke(accountId: string, keyId: string): Promise<ApiKeyInfo> {
    const row = await this.d.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw notFound('API key');
    if (row.revoked_at === null) {
      row.revoked_at = this.d.clock.now();
      await this.d.db.updateTable('api_keys').set({ revoked_at: row.revoked_at }).where('id', '=', keyId).execute();
    }
    this.principals.delete(row.key_hash);
    return this.toInfo(row);
  }

  /** Resolves a presented secret to a principal, or null when unknown or revoked. */
  async authenticate(secret: string): Promise<Principal | null> {
    if (!secret.startsWith(API_KEY_PREFIX) || secret.length > 200) return null;
    const hash = sha256Hex(secret);
    const now = this.d.clock.now();
    // Taken before the read: whatever commits in between changes the next stamp.
    const stamp = await this.d.stamp?.();
    const cached = this.principals.get(hash);
    if (cached && stamp !== undefined && cached.stamp === stamp) return cached.principal;
    const row = await this.d.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select(['api_keys.id', 'api_keys.account_id', 'api_keys.name', 'api_keys.permissions', 'api_keys.sends_need_approval', 'api_keys.revoked_at', 'api_keys.last_used_at', 'accounts.active'])
      .where('api_keys.key_hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.revoked_at !== null || row.active !== 1) {
      this.principals.delete(hash);
      return null;
    }
    if (row.last_used_at === null || now - row.last_used_at > LAST_USED_RESOLUTION_MS) {
      await this.d.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute();
    }
    const principal: Principal = {
      accountId: row.account_id,
      permissions: new Set(parseJson<Permission[]>(row.permissions, [])),
      via: 'api_key',
      subjectId: row.id,
      sendsNeedApproval: row.sends_need_approval === 1,
      credential: { id: row.id, label: credentialLabel('key', row.name) },
    };
    if (stamp !== undefined) {
      if (this.principals.size >= PRINCIPAL_CACHE_MAX) this.principals.clear();
      this.principals.set(hash, { principal, stamp });
    }
    return principal;
  }

  private toInfo(row: { id: string; name: string; display_prefix: string; permissions: string; sends_need_approval: number; created_at: number; last_used_at: number | null; revoked_at: number | null }): ApiKeyInfo {
    return {
      id: row.id,
      name: row.name,
      prefix: row.display_prefix,
      permissions: parseJson<Permission[]>(row.permissions, []),
      sendsNeedApproval: row.sends_need_approval === 1,
      createdAt: toIso(row.created_at)!,
      lastUsedAt: toIso(row.last_used_at),
      revokedAt: toIso(row.revoked_at),
    };
  }
}
