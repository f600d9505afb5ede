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
 * Throttling (issue #27: a stranger must not be able to lock the approver out; issue #42: not even out of a
 * new browser).
 *
 * Four failure counters, each in login_failures so every instance shares them:
 * - per client address ("ip:…"): 20 free failures, then growing delays; every attempt from an unknown
 *   device counts here, whatever else happens to it;
 * - per typed email ("acct:<sha256>"), for password attempts from devices not known for that user:
 *   LOGIN_MAX_FAILURES free failures, then growing delays. Unknown emails get the same counter,
 *   so the delays (429 with Retry-After) do not tell which emails have an account;
 * - per typed email's second factor ("tfa:<sha256>"): wrong codes after a right password (the code
 *   step, or a form carrying password and code). Only someone who has the password moves it, so
 *   strangers guessing passwords cannot slow the person's second factor;
 * - per known device ("dev:<token hash>"): a browser that once finished a login for the user
 *   carries the rcs_device cookie; its attempts for that user skip the other counters and count
 *   only against themselves. A thousand failures from elsewhere leave it untouched.
 * Delays double from 1 s up to LOGIN_LOCKOUT_MINUTES; an attempt refused for its delay neither
 * counts nor extends it.
 *
 * While the email's wait runs, a password alone is refused unchecked, as before. A form carrying
 * password and code together is still checked (counted against its address and, with the right
 * password, the second factor): both right, and the code not used before, let the person in at
 * once; anything else gets exactly the email's 429, so the attempt tells nothing about the password
 * (the same scrypt work, the same round trips). Strangers gain nothing: their guesses stay slowed
 * per address, and a right pair needs the second factor too.
 *
 * An attempt is counted when it is let in, before the password is checked, by one conditional
 * statement per counter: of many requests arriving when a wait ends, one is let in, not all of
 * them. A right password gives its count back; a finished login clears the second factor's (or
 * the device's) counter, and the email's unless a wait runs on it (strangers are at work).
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
const emailKey = (email: string) => `acct:${sha256Hex(email)}`;
const secondFactorKey = (email: string) => `tfa:${sha256Hex(email)}`;
const keysOf = (c: Counters): string[] => ('device' in c ? [`dev:${c.device}`] : [`ip:${c.ip}`, emailKey(c.email)]);

export interface PasswordAccepted {
  userId: string;
  accountId: string;
  /**
   * Set when the attempt carried the code too and both factors passed: the login is finished, and this
   * token goes into the rcs_device cookie (as checkTotp returns it).
   */
  deviceToken?: string;
}

type UserRow = { id: string; account_id: string; email: string; password_hash: string; active: number; totp_secret: string; totp_last_counter: number | null };

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
  private readonly ramps: Record<'ip' | 'acct' | 'tfa' | 'dev', Ramp>;
  private readonly forgetMs: number;

  constructor(private readonly d: LoginDeps) {
    const policy = d.policy;
    const user = { free: policy.maxFailures, capMs: policy.lockoutMs };
    this.ramps = { ip: { free: IP_FREE_FAILURES, capMs: policy.lockoutMs }, acct: user, tfa: user, dev: user };
    this.forgetMs = Math.max(FORGET_MS, 2 * policy.lockoutMs);
  }

  /**
   * The first step, or both at once when `code` is given. `deviceToken` is the rcs_device cookie, if
   * any: when it belongs to the user of `email`, only the device's own failures can slow this attempt.
   */
  async checkPassword(email: string, password: string, ip: string, deviceToken?: string, code?: string): Promise<PasswordAccepted> {
    const now = this.d.clock.now();
    const typed = normaliseEmail(email);
    const user = await this.d.db.selectFrom('users').innerJoin('accounts', 'accounts.id', 'users.account_id').selectAll('users').select('accounts.active as account_active').where('email', '=', typed).executeTakeFirst();
    const usable = (u: typeof user): u is NonNullable<typeof user> => !!u && u.active === 1 && u.account_active === 1;
    const device = user ? await this.knownDevice(user.id, deviceToken) : null;
    const counters: Counters = device ? { device } : { ip, email: typed };
    const wait = await this.admit(counters, now, code !== undefined);
    if (wait !== null) return this.pairDuringWait({ user: usable(user) ? user : undefined, typed, password, code: code!, ip, wait, now });
    // Unknown email, wrong password or disabled user: one answer, one status, and the same scrypt
    // work, so neither the page nor its timing tells which emails have an account.
    const ok = await verifyPassword(password.slice(0, 1024), user?.password_hash ?? DUMMY_HASH);
    if (!ok || !usable(user)) throw invalid();
    if (code === undefined) {
      await this.giveBack(keysOf(counters));
      return { userId: user.id, accountId: user.account_id };
    }
    // Both factors in one form: a wrong code keeps this attempt's count (it failed) and counts against
    // the second factor too; it answers like a wrong password, even when the second factor is slowed.
    const second = 'device' in counters ? null : secondFactorKey(typed);
    if (second !== null && !(await this.claim(second, now))) throw invalid();
    if (!(await this.acceptCode(user, code, now))) throw invalid();
    return { userId: user.id, accountId: user.account_id, deviceToken: await this.finish(user.id, counters, second === null ? keysOf(counters) : [...keysOf(counters), second], device ? deviceToken : undefined, now) };
  }

  /**
   * Password and code while the email's wait runs (from an unknown device): the address counts the
   * attempt (its own wait refuses it with its own 429, as it would refuse a password alone); a right
   * password counts against the second factor and a right, unused code then lets the person in.
   * Every other outcome is the email's 429, after the same work.
   */
  private async pairDuringWait(a: { user: UserRow | undefined; typed: string; password: string; code: string; ip: string; wait: number; now: number }): Promise<PasswordAccepted> {
    const ipKey = `ip:${a.ip}`;
    if (!(await this.claim(ipKey, a.now))) throw await this.throttledBy(ipKey, a.now);
    const ok = await verifyPassword(a.password.slice(0, 1024), a.user?.password_hash ?? DUMMY_HASH);
    const second = secondFactorKey(a.typed);
    let passed = false;
    if (ok && a.user) passed = (await this.claim(second, a.now)) && (await this.acceptCode(a.user, a.code, a.now));
    // The same round trip as the claim above, so the answer's timing does not tell a right password.
    else await this.d.db.selectFrom('login_failures').select('next_attempt_at').where('key', '=', second).executeTakeFirst();
    if (!passed || !a.user) throw throttled(a.wait, a.now);
    return { userId: a.user.id, accountId: a.user.account_id, deviceToken: await this.finish(a.user.id, { ip: a.ip, email: a.typed }, [ipKey, second], undefined, a.now) };
  }

  /**
   * The second step. On success the attempt's counters start again, and the device is remembered:
   * the returned token goes into the rcs_device cookie (the same token when the device was known
   * already; its lifetime starts again). From an unknown device a code counts against the address
   * and the second factor, not the email's password counter: the person has proved the password,
   * and strangers' wrong passwords must not hold back their code.
   */
  async checkTotp(userId: string, code: string, ip: string, deviceToken?: string): Promise<{ deviceToken: string }> {
    const now = this.d.clock.now();
    const user = await this.d.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (!user || user.active !== 1) throw invalid();
    const device = await this.knownDevice(user.id, deviceToken);
    const counters: Counters = device ? { device } : { ip, email: normaliseEmail(user.email) };
    const keys = 'device' in counters ? keysOf(counters) : [`ip:${ip}`, secondFactorKey(counters.email)];
    for (const key of [...keys].reverse()) if (!(await this.claim(key, now))) throw await this.throttledBy(key, now);
    if (!(await this.acceptCode(user, code, now))) throw invalid();
    return { deviceToken: await this.finish(user.id, counters, keys, device ? deviceToken : undefined, now) };
  }

  /**
   * Whether `code` is the user's TOTP for now (±1 step) and newer than the last accepted one. A code is
   * good once: a replay of the last accepted step fails like a wrong code. The update itself checks the
   * step again, so of two requests with one code at the same moment (two instances) exactly one moves
   * the counter and succeeds.
   */
  private async acceptCode(user: UserRow, code: string, now: number): Promise<boolean> {
    const cleaned = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(cleaned)) return false;
    const totp = totpFor(this.d.sealer.open(user.totp_secret, totpSealContext(user.id)), user.email);
    const delta = totp.validate({ token: cleaned, timestamp: now, window: 1 });
    if (delta === null) return false;
    const counter = totp.counter({ timestamp: now }) + delta;
    if (user.totp_last_counter !== null && counter <= user.totp_last_counter) return false;
    const res = await this.d.db
      .updateTable('users')
      .set({ totp_last_counter: counter })
      .where('id', '=', user.id)
      .where((eb) => eb.or([eb('totp_last_counter', 'is', null), eb('totp_last_counter', '<', counter)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * Both factors proved: the attempt's counts (`counted`) are given back, the second factor's (or the device's)
   * counter starts again, and so does the email's unless its wait runs (strangers are at work; the
   * address's only gets the attempt back: an attacker may share it). Returns the device token.
   */
  private async finish(userId: string, counters: Counters, counted: string[], knownToken: string | undefined, now: number): Promise<string> {
    await this.giveBack(counted);
    if ('device' in counters) {
      await this.d.db.deleteFrom('login_failures').where('key', '=', keysOf(counters)[0]!).execute();
    } else {
      await this.d.db.deleteFrom('login_failures').where('key', '=', secondFactorKey(counters.email)).execute();
      await this.d.db
        .deleteFrom('login_failures')
        .where('key', '=', emailKey(counters.email))
        .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
        .execute();
    }
    return this.rememberDevice(userId, knownToken, now);
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
   * counts nowhere. With `pairAllowed` (the attempt carries a code), a wait on the email's counter
   * is returned instead of thrown: the caller checks the pair (pairDuringWait). Null: let in.
   */
  private async admit(counters: Counters, now: number, pairAllowed: boolean): Promise<number | null> {
    for (const key of keysOf(counters).reverse()) {
      if (await this.claim(key, now)) continue;
      const err = await this.throttledBy(key, now);
      if (pairAllowed && key.startsWith('acct:')) return err.until;
      throw err;
    }
    return null;
  }

  /** The 429 for a counter whose wait runs, with the moment it ends. */
  private async throttledBy(key: string, now: number): Promise<AppError & { until: number }> {
    const row = await this.d.db.selectFrom('login_failures').select('next_attempt_at').where('key', '=', key).executeTakeFirst();
    const until = Math.max(Number(row?.next_attempt_at ?? now), now + 1);
    return Object.assign(throttled(until, now), { until });
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
  private async giveBack(keys: string[]): Promise<void> {
    await this.d.db.updateTable('login_failures').set({ failures: sql<number>`case when failures > 0 then failures - 1 else 0 end`, next_attempt_at: null }).where('key', 'in', keys).execute();
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
