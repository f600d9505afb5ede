import { createHmac, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { PollingLoop } from '../polling-loop.js';
import { settleSetting } from '../settings.js';

/** Limiter names go into every stored key; they must not contain the separator. */
const NAME = /^[a-z][a-z0-9-]{0,39}$/;

export interface RateLimitCountersDeps {
  db: Db;
  clock: Clock;
}

/**
 * The hit counters of express-rate-limit's limiters, in the database (table rate_limit_hits), so
 * a limit holds across every instance sharing the database and across restarts; express-rate-limit's
 * default MemoryStore counts per process, which N instances behind a load balancer multiply by N.
 * One fixed window per limiter and client; each hit is one statement that counts and reads back
 * atomically on SQLite and PostgreSQL alike.
 */
export class RateLimitCounters {
  private hashKey: Promise<Buffer> | null = null;

  constructor(private readonly d: RateLimitCountersDeps) {}

  /**
   * A Store for one limiter (express-rate-limit wants a store object per limiter). `name` keeps
   * limiters apart: the same client counts separately in each, and limiters of one name count
   * together wherever they run, which is the point.
   */
  store(name: string): Store {
    if (!NAME.test(name)) throw new Error(`rate limiter name "${name}": lower-case letters, digits and dashes`);
    return new DatabaseStore(this, name);
  }

  /** Deletes the counters whose window is over; returns how many. */
  async sweep(): Promise<number> {
    const res = await this.d.db.deleteFrom('rate_limit_hits').where('reset_at', '<=', this.d.clock.now()).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** @internal One hit: a new window at 1 when there is none or it ended, else one more in it. */
  async increment(key: string, windowMs: number): Promise<ClientRateLimitInfo> {
    const k = await this.storedKey(key);
    const now = this.d.clock.now();
    const ended = sql<boolean>`rate_limit_hits.reset_at <= ${now}`;
    const row = await this.d.db
      .insertInto('rate_limit_hits')
      .values({ key: k, hits: 1, reset_at: now + windowMs })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          hits: sql<number>`case when ${ended} then 1 else rate_limit_hits.hits + 1 end`,
          reset_at: sql<number>`case when ${ended} then excluded.reset_at else rate_limit_hits.reset_at end`,
        }),
      )
      .returning(['hits', 'reset_at'])
      .executeTakeFirstOrThrow();
    return { totalHits: Number(row.hits), resetTime: new Date(Number(row.reset_at)) };
  }

  /** @internal Takes one hit back (a request the limiter's options say not to count), never below 0. */
  async decrement(key: string): Promise<void> {
    const k = await this.storedKey(key);
    await this.d.db
      .updateTable('rate_limit_hits')
      .set({ hits: sql<number>`hits - 1` })
      .where('key', '=', k)
      .where('hits', '>', 0)
      .where('reset_at', '>', this.d.clock.now())
      .execute();
  }

  /** @internal The client's count in its current window; undefined when it has none. */
  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const k = await this.storedKey(key);
    const row = await this.d.db.selectFrom('rate_limit_hits').select(['hits', 'reset_at']).where('key', '=', k).where('reset_at', '>', this.d.clock.now()).executeTakeFirst();
    return row ? { totalHits: Number(row.hits), resetTime: new Date(Number(row.reset_at)) } : undefined;
  }

  /** @internal */
  async reset(key: string): Promise<void> {
    await this.d.db.deleteFrom('rate_limit_hits').where('key', '=', await this.storedKey(key)).execute();
  }

  /**
   * Client keys hold addresses; the table keeps only their HMAC under a random key of this
   * database (settings), the same for every instance: the first to start stores it, the others
   * read the winner's.
   */
  private async storedKey(key: string): Promise<string> {
    this.hashKey ??= this.loadHashKey().catch((err: unknown) => {
      this.hashKey = null;
      throw err;
    });
    return createHmac('sha256', await this.hashKey).update(key).digest('hex');
  }

  private async loadHashKey(): Promise<Buffer> {
    return Buffer.from(await settleSetting(this.d.db, 'rate_limit.key_hash_key', randomBytes(32).toString('base64url')), 'base64url');
  }
}

/** express-rate-limit's Store over RateLimitCounters, for one limiter. */
class DatabaseStore implements Store {
  /** Keys counted here count for every instance (express-rate-limit's double-count check reads this). */
  readonly localKeys = false;
  readonly prefix: string;
  private windowMs = 60_000;

  constructor(
    private readonly counters: RateLimitCounters,
    name: string,
  ) {
    this.prefix = `${name}|`;
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  increment(key: string): Promise<ClientRateLimitInfo> {
    return this.counters.increment(this.prefix + key, this.windowMs);
  }

  decrement(key: string): Promise<void> {
    return this.counters.decrement(this.prefix + key);
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.counters.get(this.prefix + key);
  }

  resetKey(key: string): Promise<void> {
    return this.counters.reset(this.prefix + key);
  }
}

/** Deletes ended windows at start and then every `intervalMs`. */
export function startRateLimitSweeper(counters: RateLimitCounters, onError: (err: unknown) => void, intervalMs = 10 * 60 * 1000): PollingLoop {
  const loop = new PollingLoop(
    async () => {
      await counters.sweep();
      return intervalMs;
    },
    onError,
    intervalMs,
  );
  loop.start();
  return loop;
}
