import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { appendEntries, type LedgerChange } from '../../src/billing/ledger.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/bootstrap/database.js';
import { type OpenDb } from '../../src/platform/db/database.js';
import { describePostgres } from '../helpers/instances.js';
import { createTestSchema, type TestSchema } from '../helpers/postgres.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Two instances' dispatcher rounds may refund the same accounts at once (each round holds
 * messages of several accounts). appendEntries updates the balances in account-id order, so the
 * two transactions queue on the first row instead of each holding one the other wants
 * (PostgreSQL would abort one with a deadlock, and that round's outcome would be recorded only
 * after its lease ran out).
 */
describePostgres('appendEntries on PostgreSQL: balances locked in one order', () => {
  let schema: TestSchema;
  let db: OpenDb;

  beforeAll(async () => {
    schema = await createTestSchema('ledger_order');
    db = await openDatabase(loadConfig({ DATABASE_URL: schema.url, DATABASE_POOL_MAX: '4' }).postgres!);
    for (const id of ['acc_a', 'acc_b']) {
      await db.db.insertInto('accounts').values({ id, name: id, timezone: 'UTC', approval_required: 0, credits_milli: 0, unsubscribe_url: null, company_profile: '{}', active: 1, created_at: 0 }).execute();
    }
  });
  afterAll(async () => {
    await db?.close();
    await schema?.drop();
  });

  it('two transactions naming the same accounts in opposite orders both commit', async () => {
    const change = (accountId: string): LedgerChange => ({ accountId, kind: 'refund', amountMilli: 1000, reason: 'test' });
    // A third transaction holds acc_a, and the two appends queue behind it one after the other:
    // the one naming acc_a first waits for it at once; the other, in the order given, would
    // update acc_b and then queue for acc_a second. When the holder lets go, the first in the
    // queue gets acc_a and wants acc_b, held by the second, which waits for acc_a: a deadlock.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const holding = new Promise<void>((r) => (locked = r));
    const holder = db.db.transaction().execute(async (tx) => {
      await sql`select id from accounts where id = 'acc_a' for update`.execute(tx);
      locked();
      await held;
    });
    await holding; // the holder has acc_a before either append starts
    const waiting = async (n: number) => {
      for (let i = 0; i < 200; i++) {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db.db);
        if (rows[0]!.n >= n) return;
        await sleep(20);
      }
      throw new Error(`fewer than ${n} transactions waiting for a lock`);
    };
    const aFirst = db.db.transaction().execute((tx) => appendEntries(tx, [change('acc_a'), change('acc_b')], 1));
    await waiting(1);
    const bFirst = db.db.transaction().execute((tx) => appendEntries(tx, [change('acc_b'), change('acc_a')], 2));
    await waiting(2);
    release();
    await holder;
    await expect(Promise.all([aFirst, bFirst])).resolves.toBeDefined();
    const balances = await db.db.selectFrom('accounts').select(['id', 'credits_milli']).orderBy('id').execute();
    expect(balances).toEqual([
      { id: 'acc_a', credits_milli: 2000 },
      { id: 'acc_b', credits_milli: 2000 },
    ]);
    expect(Number((await db.db.selectFrom('credit_ledger').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(4);
  });
});
