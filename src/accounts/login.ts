import { sql, type RawBuilder } from 'kysely';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { AppError } from '../platform/errors.js';
import { randomToken, sha256Hex, verifyPassword } from '../platform/secrets.js';
import type { Sealer } from '../platform/sealing.js';
import { totpFor, totpSealContext } from './users.js';

export interface LoginPolicy {
  /** Failed attempts (password or code) per email, or per known device, before delays start. */
  maxFailures: number;
  /** The longest delay between two attempts once they are slowed. */
  lockoutMs: number;
}

/**
 * Throttling (issue #27: a stranger must not be able to lock the approver out).
 *
 * Three failure counters, each in login_failures so every instance shares them:
 * - per client address ("ip:…"): 20 free failures, then growing delays;
 * - per typed email ("acct:<sha256>"), for attempts from devices not known for that user:
 *   LOGIN_MAX_FAILURES free failures, then growing delays. Unknown emails get the same counter,
 *   so the delays (429 with Retry-After) do not tell which emails have an account;
 * - per known device ("dev:<token hash>"): a browser that once finished a login for the user
 *   carries the rcs_device cookie; its attempts for that user skip the address and email counters
 *   and count only against themselves. A thousand failures from elsewhere leave it untouched.
 * Delays double from 1 s up to LOGIN_LOCKOUT_MINUTES; an attempt refused for its delay neither
 * counts nor extends it, so the right password from an unknown device waits at most that long.
 * An attempt is counted when it is let in, before the password is checked, by one conditional
 * statement per counter: of many requests arriving when a wait ends, one is let in, not all of
 * them. A right password gives its count back; a finished login clears the email's (or device's).
 * A counter is forgotten after a quiet period (FORGET_MS, at least twice the longest delay).
 */
const IP_FREE_FAILURES = 20;
const FIRST_DELAY_MS = 1_000;
const FORGET_MS = 60 * 60_000;

/** How long a known device stays known without a new login from it. */
export const KNOWN_DEVICE_TTL_MS = 180 * 24 * 60 * 60_000;

// A fixed hash to verify against when the email is unknown, so response time does not reveal
// which emails exist.
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

const invalid = () => new AppError('UNAUTHORIZED', 'Email, password or code is not correct');
const throttled = (until: number, now: number) => {
  const seconds = Math.max(1, Math.ceil((until - now) / 1000));
  const wait = seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
  return new AppError('LOGIN_THROTTLED', `Too many failed attempts. Try again in ${wait}.`, { headers: { 'Retry-After': String(seconds) } });
};

interface Ramp {
  free: number;
  capMs: number;
}

/** Who an attempt counts against: a known device alone, or the client address and the typed email. */
type Counters = { device: string } | { ip: string; email: string };

const normaliseEmail = (email: string) => email.trim().toLowerCase();
const keysOf = (c: Counters): string[] => ('device' in c ? [`dev:${c.device}`] : [`ip:${c.ip}`, `acct:${sha256Hex(c.email)}`]);

export interface PasswordAccepted {
  userId: string;
  accountId: string;
}

export interface LoginDeps {
  db: Db;
  clock: Clock;
  /** Failures allowed and the longest lockout (config.login). */
  policy: LoginPolicy;
  /** Opens each user's sealed TOTP secret for the second factor. */
  sealer: Sealer;
}

/** Password and second-factor checks, slowed per address, per email and per known device. */
export class LoginService {
  private readonly ramps: Record<'ip' | 'acct' | 'dev', Ramp>;
  private readonly forgetMs: number;

  constructor(private readonly d: LoginDeps) {
    const policy = d.policy;
    const user = { free: policy.maxFailures, capMs: policy.lockoutMs };
    this.ramps = { ip: { free: IP_FREE_FAILURES, capMs: policy.lockoutMs }, acct: user, dev: user };
    this.forgetMs = Math.max(FORGET_MS, 2 * policy.lockoutMs);
  }

  /**
   * The first step. `deviceToken` is the rcs_device cookie, if any: when it belongs to the user of
   * `email`, only the device's own failures can slow this attempt.
   */
  async checkPassword(email: string, password: string, ip: string, deviceToken?: string): Promise<PasswordAccepted> {
    const now = this.d.clock.now();
    const typed = normaliseEmail(email);
    const user = await this.d.db.selectFrom('users').innerJoin('accounts', 'accounts.id', 'users.account_id').selectAll('users').select('accounts.active as account_active').where('email', '=', typed).executeTakeFirst();
    const device = user ? await this.knownDevice(user.id, deviceToken) : null;
    const counters: Counters = device ? { device } : { ip, email: typed };
    await this.admit(counters, now);
    // Unknown email, wrong password or disabled user: one answer, one status, and the same scrypt
    // work, so neither the page nor its timing tells which emails have an account.
    const ok = await verifyPassword(password.slice(0, 1024), user?.password_hash ?? DUMMY_HASH);
    if (!user || !ok || user.active !== 1 || user.account_active !== 1) throw invalid();
    await this.giveBack(counters);
    return { userId: user.id, accountId: user.account_id };
  }

  /**
   * The second step. On success the attempt's counter (the device's, or the email's) starts
   * again, and the device is remembered: the returned token goes into the rcs_device cookie (the
   * same token when the device was known already; its lifetime starts again).
   */
  async checkTotp(userId: string, code: string, ip: string, deviceToken?: string): Promise<{ deviceToken: string }> {
    const now = this.d.clock.now();
    const user = await this.d.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (!user || user.active !== 1) throw invalid();
    const device = await this.knownDevice(user.id, deviceToken);
    const counters: Counters = device ? { device } : { ip, email: normaliseEmail(user.email) };
    await this.admit(counters, now);
    const cleaned = code.replace(/\s+/g, '');
    const totp = totpFor(this.d.sealer.open(user.totp_secret, totpSealContext(user.id)), user.email);
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
          await this.d.db
            .updateTable('users')
            .set({ totp_last_counter: counter })
            .where('id', '=', user.id)
            .where((eb) => eb.or([eb('totp_last_counter', 'is', null), eb('totp_last_counter', '<', counter)]))
            .executeTakeFirst()
        ).numUpdatedRows,
      ) === 1;
    if (!accepted) throw invalid();
    // The person proved both factors: their counter starts again. The address's only gets this
    // attempt back (an attacker may share the address).
    await this.giveBack(counters);
    await this.d.db.deleteFrom('login_failures').where('key', '=', keysOf(counters).at(-1)!).execute();
    return { deviceToken: await this.rememberDevice(user.id, device ? deviceToken! : undefined, now) };
  }

  /** The token's hash when it names a live known device of this user, else null. */
  private async knownDevice(userId: string, token: string | undefined): Promise<string | null> {
    if (!token || token.length < 20 || token.length > 100) return null;
    const hash = sha256Hex(token);
    const row = await this.d.db.selectFrom('login_devices').select('token_hash').where('token_hash', '=', hash).where('user_id', '=', userId).where('expires_at', '>', this.d.clock.now()).executeTakeFirst();
    return row ? hash : null;
  }

  private async rememberDevice(userId: string, knownToken: string | undefined, now: number): Promise<string> {
    const expires = now + KNOWN_DEVICE_TTL_MS;
    if (knownToken) {
      await this.d.db.updateTable('login_devices').set({ last_used_at: now, expires_at: expires }).where('token_hash', '=', sha256Hex(knownToken)).execute();
      return knownToken;
    }
    const token = randomToken(32);
    await this.d.db.insertInto('login_devices').values({ token_hash: sha256Hex(token), user_id: userId, created_at: now, last_used_at: now, expires_at: expires }).execute();
    // Expired devices of this user go when a new one comes.
    await this.d.db.deleteFrom('login_devices').where('user_id', '=', userId).where('expires_at', '<=', now).execute();
    return token;
  }

  /**
   * Counts the attempt against each of its counters, or refuses it (429 with Retry-After) while a
   * counter's wait runs. The email's (or device's) counter goes first: an attempt refused there
   * counts nowhere.
   */
  private async admit(counters: Counters, now: number): Promise<void> {
    for (const key of keysOf(counters).reverse()) {
      if (await this.claim(key, now)) continue;
      const row = await this.d.db.selectFrom('login_failures').select('next_attempt_at').where('key', '=', key).executeTakeFirst();
      throw throttled(Math.max(row?.next_attempt_at ?? now, now + 1), now);
    }
  }

  /**
   * One statement reads and writes the row, and only while no wait runs: attempts arriving at the
   * same moment (on one instance or several) are each counted, and of those arriving when a wait
   * ends only the first is let in — a read, then a write, would let them all through.
   */
  private async claim(key: string, now: number): Promise<boolean> {
    const ramp = this.ramps[key.slice(0, key.indexOf(':')) as keyof LoginService['ramps']];
    // A counter quiet for forgetMs starts again at this attempt.
    const failures = sql<number>`case when login_failures.last_failure_at < ${now - this.forgetMs} then 1 else login_failures.failures + 1 end`;
    const res = await this.d.db
      .insertInto('login_failures')
      .values({ key, failures: 1, last_failure_at: now, next_attempt_at: lockFor(1, ramp, now) })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({ failures, last_failure_at: now, next_attempt_at: lockSql(failures, ramp, now) })
          .where((eb) => eb.or([eb('login_failures.next_attempt_at', 'is', null), eb('login_failures.next_attempt_at', '<=', now)])),
      )
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** A right password or code takes its attempt, and the wait it set, off the counters. */
  private async giveBack(counters: Counters): Promise<void> {
    await this.d.db.updateTable('login_failures').set({ failures: sql<number>`case when failures > 0 then failures - 1 else 0 end`, next_attempt_at: null }).where('key', 'in', keysOf(counters)).execute();
  }
}

/** The delay after the n-th failure: none for the free ones, then 1 s, 2 s, 4 s, … up to the cap. */
export function delayAfter(n: number, ramp: Ramp): number {
  if (n < ramp.free) return 0;
  return Math.min(ramp.capMs, FIRST_DELAY_MS * 2 ** Math.min(n - ramp.free, 40));
}

function lockFor(n: number, ramp: Ramp, now: number): number | null {
  const d = delayAfter(n, ramp);
  return d === 0 ? null : now + d;
}

/** lockFor in SQL, as a CASE over the few steps before the cap (portable: no pow() on SQLite). */
function lockSql(failures: RawBuilder<number>, ramp: Ramp, now: number): RawBuilder<number | null> {
  // Typed: PostgreSQL would take a parameter beside a bare null for text.
  const parts = [sql`case when ${failures} < ${ramp.free} then cast(null as bigint)`];
  for (let n = ramp.free; delayAfter(n, ramp) < ramp.capMs; n++) parts.push(sql` when ${failures} = ${n} then cast(${now + delayAfter(n, ramp)} as bigint)`);
  parts.push(sql` else cast(${now + ramp.capMs} as bigint) end`);
  return sql<number | null>`${sql.join(parts, sql``)}`;
}
