import { sql } from 'kysely';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { AppError } from '../platform/errors.js';
import { verifyPassword } from '../platform/secrets.js';
import type { Sealer } from '../platform/sealing.js';
import { totpFor, totpSealContext } from './users.js';

export interface LoginPolicy {
  /** Failed attempts (password or code) before a user is locked out. */
  maxFailures: number;
  lockoutMs: number;
}

// Per client address, independent of which email is tried, so guessing across many accounts is
// slowed too.
const IP_MAX_FAILURES = 20;
const IP_WINDOW_MS = 15 * 60_000;

// A fixed hash to verify against when the email is unknown, so response time does not reveal
// which emails exist.
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

const invalid = () => new AppError('UNAUTHORIZED', 'Email, password or code is not correct');
const locked = (until: number, now: number) =>
  new AppError('LOGIN_LOCKED', 'Too many failed attempts. Try again later.', {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil((until - now) / 1000))) },
  });

/** Password and second-factor checks with per-user lockout and per-address throttling. */
export class LoginService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly policy: LoginPolicy,
    private readonly sealer: Sealer,
  ) {}

  async checkPassword(email: string, password: string, ip: string): Promise<{ userId: string; accountId: string }> {
    await this.assertAddressAllowed(ip);
    const now = this.clock.now();
    const user = await this.db.selectFrom('users').innerJoin('accounts', 'accounts.id', 'users.account_id').selectAll('users').select('accounts.active as account_active').where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
    // Unknown email, wrong password, locked or disabled user: one answer, one status, and the same
    // scrypt work, so neither the page nor its timing tells which emails have an account.
    const ok = await verifyPassword(password.slice(0, 1024), user?.password_hash ?? DUMMY_HASH);
    const userLocked = user?.locked_until != null && user.locked_until > now;
    if (!user || !ok || userLocked || user.active !== 1 || user.account_active !== 1) {
      // A locked user's attempts are not counted against the user (that would only extend the
      // lock); every failure counts against the address.
      await this.recordFailure(ip, userLocked ? undefined : user?.id);
      throw invalid();
    }
    return { userId: user.id, accountId: user.account_id };
  }

  async checkTotp(userId: string, code: string, ip: string): Promise<void> {
    await this.assertAddressAllowed(ip);
    const now = this.clock.now();
    const user = await this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (!user || user.active !== 1) throw invalid();
    if (user.locked_until && user.locked_until > now) throw locked(user.locked_until, now);
    const cleaned = code.replace(/\s+/g, '');
    const totp = totpFor(this.sealer.open(user.totp_secret, totpSealContext(user.id)), user.email);
    const delta = /^\d{6}$/.test(cleaned) ? totp.validate({ token: cleaned, timestamp: now, window: 1 }) : null;
    const counter = delta === null ? null : totp.counter({ timestamp: now }) + delta;
    // A code is good once: a replay of the last accepted step fails like a wrong code. The update
    // itself checks the step again, so of two requests with one code at the same moment (two
    // instances) exactly one moves the counter and succeeds.
    const accepted =
      counter !== null &&
      (user.totp_last_counter === null || counter > user.totp_last_counter) &&
      Number(
        (
          await this.db
            .updateTable('users')
            .set({ failed_logins: 0, locked_until: null, totp_last_counter: counter })
            .where('id', '=', user.id)
            .where((eb) => eb.or([eb('totp_last_counter', 'is', null), eb('totp_last_counter', '<', counter)]))
            .executeTakeFirst()
        ).numUpdatedRows,
      ) === 1;
    if (!accepted) {
      await this.recordFailure(ip, user.id);
      throw invalid();
    }
  }

  private async assertAddressAllowed(ip: string): Promise<void> {
    const now = this.clock.now();
    const row = await this.db.selectFrom('login_throttle').selectAll().where('key', '=', `ip:${ip}`).executeTakeFirst();
    if (row?.locked_until && row.locked_until > now) throw locked(row.locked_until, now);
  }

  /**
   * Each counter moves in one statement that reads and writes the row together, so failures
   * arriving at the same moment (on one instance or several) are all counted: a read, then a
   * write of the read value plus one, would let them overwrite each other and never lock.
   */
  private async recordFailure(ip: string, userId: string | undefined): Promise<void> {
    const now = this.clock.now();
    const lockedUntil = now + this.policy.lockoutMs;
    if (userId) {
      const max = this.policy.maxFailures;
      // A failure racing the one that locks keeps the lock it finds (`else locked_until`).
      await this.db
        .updateTable('users')
        .set({
          failed_logins: sql<number>`case when failed_logins + 1 >= ${max} then 0 else failed_logins + 1 end`,
          locked_until: sql<number | null>`case when failed_logins + 1 >= ${max} then ${lockedUntil} else locked_until end`,
        })
        .where('id', '=', userId)
        .execute();
    }
    // A window older than IP_WINDOW_MS starts again at this failure.
    const stale = sql<boolean>`login_throttle.window_start < ${now - IP_WINDOW_MS}`;
    const failures = sql<number>`case when ${stale} then 1 else login_throttle.failures + 1 end`;
    await this.db
      .insertInto('login_throttle')
      .values({ key: `ip:${ip}`, failures: 1, window_start: now, locked_until: null })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures,
          window_start: sql<number>`case when ${stale} then ${now} else login_throttle.window_start end`,
          // Typed: PostgreSQL would take a parameter beside a bare null for text.
          locked_until: sql<number | null>`case when ${failures} >= ${IP_MAX_FAILURES} then cast(${lockedUntil} as bigint) else null end`,
        }),
      )
      .execute();
  }
}
