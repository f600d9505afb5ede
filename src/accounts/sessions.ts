import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { randomToken, sha256Hex } from '../platform/secrets.js';
import { toUser, type User } from './users.js';

export interface SessionInfo {
  user: User;
  accountId: string;
  csrfToken: string;
  /** False between the password step and the second factor. */
  authenticated: boolean;
  expiresAt: number;
  /** sessions.id_hash (SHA-256 of the cookie): the approval audit keeps a hash derived from it. */
  idHash: string;
}

// A half-finished login (password accepted, code not yet entered) lives only this long.
const PENDING_TTL_MS = 10 * 60_000;

/** Server-side sessions. The cookie carries a random id; the table keeps only its SHA-256. */
export interface SessionsDeps {
  db: Db;
  clock: Clock;
  /** How long a signed-in session lives (config.sessionTtlMs). */
  ttlMs: number;
}

export class SessionsService {
  constructor(private readonly d: SessionsDeps) {}

  async create(userId: string, accountId: string, authenticated: boolean): Promise<{ cookie: string; csrfToken: string }> {
    const cookie = randomToken(32);
    const csrfToken = randomToken(24);
    const now = this.d.clock.now();
    await this.d.db
      .insertInto('sessions')
      .values({
        id_hash: sha256Hex(cookie),
        user_id: userId,
        account_id: accountId,
        csrf_token: csrfToken,
        authenticated_at: authenticated ? now : null,
        created_at: now,
        expires_at: now + (authenticated ? this.d.ttlMs : PENDING_TTL_MS),
      })
      .execute();
    return { cookie, csrfToken };
  }

  async find(cookie: string | undefined): Promise<SessionInfo | null> {
    if (!cookie || cookie.length > 100) return null;
    const idHash = sha256Hex(cookie);
    const row = await this.d.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
      .selectAll('users')
      .select(['sessions.csrf_token', 'sessions.authenticated_at', 'sessions.expires_at', 'accounts.active as account_active'])
      .where('sessions.id_hash', '=', idHash)
      .executeTakeFirst();
    if (!row || row.expires_at <= this.d.clock.now() || row.active !== 1 || row.account_active !== 1) return null;
    return {
      user: toUser(row),
      accountId: row.account_id,
      csrfToken: row.csrf_token,
      authenticated: row.authenticated_at !== null,
      expiresAt: row.expires_at,
      idHash,
    };
  }

  /**
   * Finishes a login: the pending session is replaced by a new one with a new id, so an id seen
   * before authentication (session fixation) is worthless afterwards.
   */
  async promote(pendingCookie: string, userId: string, accountId: string): Promise<{ cookie: string; csrfToken: string }> {
    await this.destroy(pendingCookie);
    return this.create(userId, accountId, true);
  }

  async destroy(cookie: string | undefined): Promise<void> {
    if (!cookie) return;
    await this.d.db.deleteFrom('sessions').where('id_hash', '=', sha256Hex(cookie)).execute();
  }

  async purgeExpired(): Promise<number> {
    const res = await this.d.db.deleteFrom('sessions').where('expires_at', '<=', this.d.clock.now()).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
