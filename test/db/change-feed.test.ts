import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/bootstrap/database.js';
import { type PostgresDb } from '../../src/platform/db/database.js';
import { CHANGE_FEED_APPLICATION, ChangeFeed } from '../../src/platform/db/change-feed.js';
import { changeStampFor } from '../../src/platform/db/change-stamp.js';
import { postgresClientConfig } from '../../src/platform/db/postgres.js';
import { describePostgres } from '../helpers/instances.js';
import { createTestSchema, type TestSchema } from '../helpers/postgres.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it is true or `ms` passed. */
async function eventually(fn: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (fn()) return true;
    await sleep(10);
  }
  return fn();
}

describePostgres('ChangeFeed: the change stamp on PostgreSQL', () => {
  let schema: TestSchema;
  let database: PostgresDb;
  let other: PostgresDb;

  beforeAll(async () => {
    schema = await createTestSchema('feed');
    const config = loadConfig({ DATABASE_URL: schema.url, DATABASE_POOL_MAX: '2' });
    database = await openDatabase(config.postgres!);
    // Another instance (or the admin CLI) on the same database.
    other = await openDatabase(config.postgres!);
    await other.db.insertInto('accounts').values({ id: 'acc_feed', name: 'Feed', timezone: 'UTC', approval_required: 0, unsubscribe_url: null, company_profile: '{}', active: 1, created_at: 0 }).execute();
  });
  afterAll(async () => {
    await database?.close();
    await other?.close();
    await schema?.drop();
  });

  it('stays the same while nothing cached changes, and moves when another connection changes senders, keys or an account', async () => {
    const stamp = changeStampFor(database);
    expect(await eventually(() => database.changes.isListening)).toBe(true);
    const s0 = await stamp();
    expect(await stamp()).toBe(s0);
    // Not cached anywhere: a settings row changes nothing. No sleep before looking: a stamp is taken after a round trip
    // that brings in every notification of a change committed before it (the next test checks that 200 times), so a
    // notification this write had raised would be in it.
    await other.db.insertInto('settings').values({ key: 'feed.test', value: '1' }).execute();
    expect(await stamp()).toBe(s0);

    // The balance changes on every send and is not cached: no notification.
    await other.db.updateTable('accounts').set({ credits_milli: 5 }).where('id', '=', 'acc_feed').execute();
    expect(await stamp()).toBe(s0);
    await other.db.updateTable('accounts').set({ active: 0 }).where('id', '=', 'acc_feed').execute();
    expect(await stamp()).not.toBe(s0);
    const s1 = await stamp();
    await other.db.deleteFrom('senders').where('id', '=', 'snd_none').execute();
    expect(await stamp()).not.toBe(s1);
    const s2 = await stamp();
    await other.db.updateTable('api_keys').set({ revoked_at: 1 }).where('id', '=', 'key_none').execute();
    expect(await stamp()).not.toBe(s2);
    const s3 = await stamp();
    // last_used_at is written on use and not cached: no notification.
    await other.db.updateTable('api_keys').set({ last_used_at: 1 }).where('id', '=', 'key_none').execute();
    expect(await stamp()).toBe(s3);
  });

  it('a fresh stamp already reflects a change committed just before it, every time (no waiting for the notification)', async () => {
    const stamp = changeStampFor(database);
    expect(await eventually(() => database.changes.isListening)).toBe(true);
    for (let i = 0; i < 200; i++) {
      const before = await stamp();
      await other.db.updateTable('accounts').set({ active: i % 2 }).where('id', '=', 'acc_feed').execute();
      expect(await stamp(), `round ${i}`).not.toBe(before);
    }
    // Callers arriving together share round trips and agree while nothing changes.
    const all = await Promise.all(Array.from({ length: 50 }, () => Promise.resolve(stamp())));
    expect(new Set(all).size).toBe(1);
  });

  it('while the connection is lost nothing is cached (every stamp differs); after it listens again the old stamps are gone', async () => {
    const stamp = changeStampFor(database);
    expect(await eventually(() => database.changes.isListening)).toBe(true);
    const before = await stamp();
    const admin = new pg.Client({ connectionString: schema.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ ok: boolean }>('select pg_terminate_backend(pid) as ok from pg_stat_activity where pid = $1 and application_name = $2', [database.changes.backendPid, CHANGE_FEED_APPLICATION]);
      expect(rows).toEqual([{ ok: true }]);
    } finally {
      await admin.end();
    }
    expect(await eventually(() => !database.changes.isListening)).toBe(true);
    const a = await stamp();
    const b = await stamp();
    expect(a).not.toBe(b);
    expect(a).not.toBe(before);
    expect(await eventually(() => database.changes.isListening, 5000)).toBe(true);
    const after = await stamp();
    expect(after).not.toBe(before);
    expect(await stamp()).toBe(after);
  });

  it('a feed that cannot connect answers a different stamp every time: nothing is cached', async () => {
    const config = loadConfig({ DATABASE_URL: schema.url.replace(':5432', ':1'), DATABASE_POOL_MAX: '2' });
    const feed = new ChangeFeed(postgresClientConfig(config.postgres!), { retryMs: 50 });
    await feed.start();
    expect(feed.isListening).toBe(false);
    expect(await feed.freshStamp()).not.toBe(await feed.freshStamp());
    await feed.close();
  });
});
