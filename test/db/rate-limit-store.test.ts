import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Options } from 'express-rate-limit';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/bootstrap/database.js';
import { type OpenDb } from '../../src/platform/db/database.js';
import { FakeClock } from '../../src/platform/clock.js';
import { RateLimitCounters } from '../../src/platform/http/rate-limit-store.js';
import { openTestDatabase } from '../helpers/database.js';
import { describePostgres } from '../helpers/instances.js';
import { createTestSchema, type TestSchema } from '../helpers/postgres.js';

/** The limiter's options as express-rate-limit hands them to Store.init; only windowMs is read. */
const WINDOW = 60_000;
const options = { windowMs: WINDOW } as Options;

describe('RateLimitCounters (the database store of the express-rate-limit limiters)', () => {
  let database: OpenDb;
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  let counters: RateLimitCounters;

  beforeAll(async () => {
    database = await openTestDatabase('rls');
    counters = new RateLimitCounters({ db: database.db, clock });
  });
  afterAll(async () => {
    await database?.close();
  });

  it('counts hits in a fixed window and starts again at 1 when it has ended', async () => {
    const store = counters.store('t-window');
    await store.init?.(options);
    const start = clock.now();
    for (let i = 1; i <= 3; i++) {
      clock.advance(1_000);
      expect(await store.increment('1.2.3.4')).toEqual({ totalHits: i, resetTime: new Date(start + 1_000 + WINDOW) });
    }
    expect(await store.get!('1.2.3.4')).toEqual({ totalHits: 3, resetTime: new Date(start + 1_000 + WINDOW) });
    clock.set(start + 1_000 + WINDOW);
    expect(await store.get!('1.2.3.4')).toBeUndefined();
    expect(await store.increment('1.2.3.4')).toEqual({ totalHits: 1, resetTime: new Date(clock.now() + WINDOW) });
  });

  it('keeps limiters and clients apart, and takes hits back without going below zero', async () => {
    const submit = counters.store('t-submit');
    const confirm = counters.store('t-confirm');
    await submit.init?.(options);
    await confirm.init?.(options);
    await submit.increment('5.6.7.8');
    await submit.increment('5.6.7.8');
    expect((await confirm.increment('5.6.7.8')).totalHits).toBe(1);
    expect((await submit.increment('9.9.9.9')).totalHits).toBe(1);
    await submit.decrement('5.6.7.8');
    expect((await submit.get!('5.6.7.8'))?.totalHits).toBe(1);
    await submit.decrement('5.6.7.8');
    await submit.decrement('5.6.7.8');
    expect((await submit.get!('5.6.7.8'))?.totalHits).toBe(0);
    await submit.resetKey('9.9.9.9');
    expect(await submit.get!('9.9.9.9')).toBeUndefined();
  });

  it('stores no client key in the clear, and sweeps ended windows', async () => {
    const store = counters.store('t-sweep');
    await store.init?.(options);
    await store.increment('203.0.113.77');
    const keys = (await database.db.selectFrom('rate_limit_hits').select('key').execute()).map((r) => r.key);
    expect(keys.every((k) => /^[0-9a-f]{64}$/.test(k))).toBe(true);
    expect(keys.join(' ')).not.toContain('203.0.113.77');
    const before = keys.length;
    clock.advance(WINDOW);
    expect(await counters.sweep()).toBe(before);
    expect(await database.db.selectFrom('rate_limit_hits').select('key').execute()).toEqual([]);
  });

  it('refuses limiter names that could run into the client key', () => {
    expect(() => counters.store('Form|submit')).toThrow(/rate limiter name/);
    expect(() => counters.store('')).toThrow(/rate limiter name/);
  });
});

describePostgres('RateLimitCounters of two instances on one PostgreSQL database', () => {
  let schema: TestSchema;
  let dbs: OpenDb[] = [];

  beforeAll(async () => {
    schema = await createTestSchema('rls2');
    const config = loadConfig({ DATABASE_URL: schema.url, DATABASE_POOL_MAX: '4' });
    dbs = [await openDatabase(config.postgres!), await openDatabase(config.postgres!)];
  });
  afterAll(async () => {
    await Promise.all(dbs.map((d) => d.close()));
    await schema?.drop();
  });

  it('hits at the same moment through both are each counted once: every total from 1 to n exactly once', async () => {
    const clock = new FakeClock();
    const stores = dbs.map((d) => new RateLimitCounters({ db: d.db, clock }).store('burst'));
    for (const s of stores) await s.init?.(options);
    const n = 60;
    const results = await Promise.all(Array.from({ length: n }, (_, i) => Promise.resolve(stores[i % 2]!.increment('198.51.100.7'))));
    expect(results.map((r) => r.totalHits).sort((x, y) => x - y)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    // Both hashed the address under the one key the first of them stored.
    expect(await dbs[0]!.db.selectFrom('rate_limit_hits').select('hits').execute()).toEqual([{ hits: n }]);
    expect(await dbs[0]!.db.selectFrom('settings').select('key').where('key', '=', 'rate_limit.key_hash_key').execute()).toHaveLength(1);
  });
});
