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
    // A code is good once: a replay of the last accepted step fails like a wrong code.
    if (counter === null || (user.totp_last_counter !== null && counter <= user.totp_last_counter)) {
      await this.recordFailure(ip, user.id);
      throw invalid();
    }
    await this.db.updateTable('users').set({ failed_logins: 0, locked_until: null, totp_last_counter: counter }).where('id', '=', user.id).execute();
  }

  private async assertAddressAllowed(ip: string): Promise<void> {
    const now = this.clock.now();
    const row = await this.db.selectFrom('login_throttle').selectAll().where('key', '=', `ip:${ip}`).executeTakeFirst();
    if (row?.locked_until && row.locked_until > now) throw locked(row.locked_until, now);
  }

  private async recordFailure(ip: string, userId: string | undefined): Promise<void> {
    const now = this.clock.now();
    if (userId) {
      const user = await this.db.selectFrom('users').select(['failed_logins']).where('id', '=', userId).executeTakeFirst();
      const failures = (user?.failed_logins ?? 0) + 1;
      const lock = failures >= this.policy.maxFailures;
      await this.db
        .updateTable('users')
        .set({ failed_logins: lock ? 0 : failures, locked_until: lock ? now + this.policy.lockoutMs : null })
        .where('id', '=', userId)
        .execute();
    }
    const key = `ip:${ip}`;
    const row = await this.db.selectFrom('login_throttle').selectAll().where('key', '=', key).executeTakeFirst();
    const fresh = !row || now - row.window_start > IP_WINDOW_MS;
    const failures = fresh ? 1 : row.failures + 1;
    const values = { key, failures, window_start: fresh ? now : row.window_start, locked_until: failures >= IP_MAX_FAILURES ? now + this.policy.lockoutMs : null };
    await this.db.insertInto('login_throttle').values(values).onConflict((oc) => oc.column('key').doUpdateSet(values)).execute();
  }
}
