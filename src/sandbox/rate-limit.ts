import { createHmac, randomBytes } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { lockForTransaction } from '../platform/db/locks.js';
import { AppError } from '../platform/errors.js';
import { settleSetting } from '../platform/settings.js';
import { SANDBOX_REQUESTS_PER_DAY, SANDBOX_REQUESTS_PER_MINUTE } from './limits.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

export interface SandboxRateLimits {
  perMinute: number;
  perDay: number;
}

export interface RateDecision {
  /** Requests left in the tighter of the two windows after this one. */
  remaining: number;
}

/**
 * Client key of a request: IPv4 as is (IPv4-mapped IPv6 unwrapped), IPv6 reduced to its /64,
 * because one subscriber usually holds a whole /64 and could otherwise rotate addresses.
 */
export function clientKey(address: string | undefined): string {
  if (!address) return 'unknown';
  let a = address.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) return mapped[1]!;
  const zone = a.indexOf('%');
  if (zone !== -1) a = a.slice(0, zone);
  if (!isIPv6(a)) return a;
  const [head = '', tail = ''] = a.split('::');
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = a.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const missing = 8 - headParts.length - tailParts.length;
  const full = a.includes('::') ? [...headParts, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailParts] : headParts;
  return `${full.slice(0, 4).map((p) => parseInt(p || '0', 16).toString(16)).join(':')}::/64`;
}

export interface SandboxRateLimiterDeps {
  db: Db;
  clock: Clock;
  /** Tuning, not a dependency: §8's limits unless a test asks for smaller ones. */
  limits?: SandboxRateLimits;
}

/**
 * The sandbox limit of §8: 20 requests per minute and 100 per day per client address, as exact
 * sliding windows. Stored in the database (one row per accepted request, at most 100 per client,
 * deleted after a day), so the limit survives restarts and holds across instances sharing a
 * database (one transaction per request, serialised per client). Refused requests are not
 * recorded: hammering while limited does not extend the wait.
 */
export class SandboxRateLimiter {
  private hashKey: Buffer | null = null;

  private readonly limits: SandboxRateLimits;

  constructor(private readonly d: SandboxRateLimiterDeps) {
    this.limits = d.limits ?? { perMinute: SANDBOX_REQUESTS_PER_MINUTE, perDay: SANDBOX_REQUESTS_PER_DAY };
  }

  /** Counts one request of the client, or throws 429 SANDBOX_RATE_LIMITED with Retry-After. */
  async hit(address: string | undefined): Promise<RateDecision> {
    const client = await this.hashClient(clientKey(address));
    return this.d.db.transaction().execute(async (tx) => {
      // Count, then insert: instances sharing PostgreSQL take turns per client, or two of them
      // could both see the last free slot (locks.ts).
      await lockForTransaction(tx, 'sandboxClient', [client]);
      const now = this.d.clock.now();
      await tx.deleteFrom('sandbox_rate_events').where('client_hash', '=', client).where('at', '<=', now - DAY_MS).execute();
      const rows = await tx
        .selectFrom('sandbox_rate_events')
        .select('at')
        .where('client_hash', '=', client)
        .where('at', '>', now - DAY_MS)
        .orderBy('at', 'asc')
        .execute();
      const day = rows.map((r) => r.at);
      const minute = day.filter((at) => at > now - MINUTE_MS);
      const { perMinute, perDay } = this.limits;
      if (day.length >= perDay) {
        // The request that must leave the 24-hour window before one more fits.
        const oldest = day[day.length - perDay]!;
        throw this.refusal('day', perDay, oldest + DAY_MS - now);
      }
      if (minute.length >= perMinute) {
        const oldest = minute[minute.length - perMinute]!;
        throw this.refusal('minute', perMinute, oldest + MINUTE_MS - now);
      }
      await tx.insertInto('sandbox_rate_events').values({ client_hash: client, at: now }).execute();
      return { remaining: Math.min(perMinute - minute.length - 1, perDay - day.length - 1) };
    });
  }

  /** Deletes events older than a day; returns how many. */
  async sweep(): Promise<number> {
    const res = await this.d.db.deleteFrom('sandbox_rate_events').where('at', '<=', this.d.clock.now() - DAY_MS).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  private refusal(window: 'minute' | 'day', limit: number, waitMs: number): AppError {
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
    return new AppError(
      'SANDBOX_RATE_LIMITED',
      `Sandbox rate limit reached: at most ${limit} requests per ${window} per client address. Retry after ${retryAfterSeconds} s.`,
      { headers: { 'Retry-After': String(retryAfterSeconds) }, extra: { limit, window, retryAfterSeconds } },
    );
  }

  /**
   * Client addresses are stored only as an HMAC under a per-instance random key kept in the
   * settings table, so the table holds no addresses in the clear.
   */
  private async hashClient(key: string): Promise<string> {
    if (!this.hashKey) {
      this.hashKey = Buffer.from(await settleSetting(this.d.db, 'sandbox.client_hash_key', randomBytes(32).toString('base64url')), 'base64url');
    }
    return createHmac('sha256', this.hashKey).update(key).digest('hex');
  }
}
