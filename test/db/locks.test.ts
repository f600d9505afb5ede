import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/bootstrap/database.js';
import { type OpenDb } from '../../src/platform/db/database.js';
import { lockForTransaction } from '../../src/platform/db/locks.js';
import { openTestDatabase } from '../helpers/database.js';
import { describePostgres } from '../helpers/instances.js';
import { until } from '../carriers/until.js';
import { ADVISORY_LOCK_WAITERS_SQL, createTestSchema, type TestSchema } from '../helpers/postgres.js';

/** Whether a backend of this database waits for an advisory lock (see ADVISORY_LOCK_WAITERS_SQL). */
async function someoneWaits(db: OpenDb): Promise<boolean> {
  const r = await sql.raw<{ n: number }>(ADVISORY_LOCK_WAITERS_SQL).execute(db.db);
  return r.rows[0]!.n > 0;
}

/** A promise with its resolve, to hold a transaction open until the test lets it go. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

describe('lockForTransaction', () => {
  let database: OpenDb;
  beforeAll(async () => {
    database = await openTestDatabase('locks');
  });
  afterAll(async () => {
    await database?.close();
  });

  it('refuses to run outside a transaction (the lock would end with the statement)', async () => {
    await expect(lockForTransaction(database.db, 'sandboxClient', ['x'])).rejects.toThrow(/needs a transaction/);
    await database.db.transaction().execute((tx) => lockForTransaction(tx, 'sandboxClient', ['x']));
  });
});

describePostgres('lockForTransaction on PostgreSQL, two pools on one database', () => {
  let schema: TestSchema;
  let one: OpenDb;
  let two: OpenDb;

  beforeAll(async () => {
    schema = await createTestSchema('locks2');
    const config = loadConfig({ DATABASE_URL: schema.url, DATABASE_POOL_MAX: '3' });
    one = await openDatabase(config.postgres!);
    two = await openDatabase(config.postgres!);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await schema?.drop();
  });

  it('an exclusive key waits until the holder commits; other keys and spaces do not', async () => {
    const held = gate();
    const order: string[] = [];
    const first = one.db.transaction().execute(async (tx) => {
      await lockForTransaction(tx, 'recipientThrottle', ['acc_1|4915100000001']);
      order.push('first has it');
      await held.wait;
      order.push('first commits');
    });
    await until('the first holds the key', () => order.includes('first has it'));
    const second = two.db.transaction().execute(async (tx) => {
      await lockForTransaction(tx, 'recipientThrottle', ['acc_1|4915100000001']);
      order.push('second has it');
    });
    // Another key, and the same string in another space, are free.
    await two.db.transaction().execute((tx) => lockForTransaction(tx, 'recipientThrottle', ['acc_1|4915100000002']));
    await two.db.transaction().execute((tx) => lockForTransaction(tx, 'sandboxClient', ['acc_1|4915100000001']));
    await until('the second queued behind the first', () => someoneWaits(one));
    expect(order).toEqual(['first has it']);
    held.open();
    await Promise.all([first, second]);
    expect(order).toEqual(['first has it', 'first commits', 'second has it']);
  });

  it('shared holders run side by side; an exclusive one waits for all of them', async () => {
    const held = gate();
    const order: string[] = [];
    const shared = [one, two].map((d, i) =>
      d.db.transaction().execute(async (tx) => {
        await lockForTransaction(tx, 'recipientThrottle', ['acc_2'], 'shared');
        order.push(`shared ${i}`);
        await held.wait;
      }),
    );
    await until('both shared holders', () => order.length === 2);
    expect(order.sort()).toEqual(['shared 0', 'shared 1']);
    const exclusive = one.db.transaction().execute(async (tx) => {
      await lockForTransaction(tx, 'recipientThrottle', ['acc_2']);
      order.push('exclusive');
    });
    await until('the exclusive one queued behind them', () => someoneWaits(one));
    expect(order).not.toContain('exclusive');
    held.open();
    await Promise.all([...shared, exclusive]);
    expect(order.at(-1)).toBe('exclusive');
  });
});
