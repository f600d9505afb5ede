import { afterAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/accounts/service.js';
import { BillingService } from '../../src/billing/service.js';
import { loadConfig } from '../../src/config.js';
import { SenderBudget } from '../../src/messaging/sender-budget.js';
import { FakeClock } from '../../src/platform/clock.js';
import { openDatabase } from '../../src/bootstrap/database.js';
import { type OpenDb } from '../../src/platform/db/database.js';
import { SendersService } from '../../src/senders/service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';
import { postgresUnreachable, POSTGRES_ADMIN_URL } from '../helpers/postgres.js';

/**
 * The per-sender throughput budget (messaging/sender-budget.ts): one token bucket per sender in
 * the database, on SQLite and on a real PostgreSQL server, where several pools (instances) take
 * from the same budget at the same moment and together get exactly what it holds.
 */
const T0 = Date.UTC(2026, 4, 4, 9, 0, 0);
const unreachable = await postgresUnreachable();
const required = process.env.REQUIRE_POSTGRES === '1';

async function withSender(database: OpenDb): Promise<string> {
  const clock = new FakeClock(T0);
  const account = await new AccountsService({ db: database.db, clock, billing: new BillingService({ db: database.db, clock }) }).create({ name: 'Budget Co', credits: 10 });
  const sender = await new SendersService({ db: database.db, clock }).create(account.id, { name: 'Budget Agent', type: 'RCS', status: 'APPROVED' });
  return sender.id;
}

const take = async (budget: SenderBudget, database: OpenDb, senderId: string, want: number, now: number) => (await budget.take(database.db, new Map([[senderId, want]]), now)).get(senderId);

function budgetCases(open: () => Promise<OpenDb>) {
  it('gives up to one second of tokens, refills continuously, never more than a second’s worth', async () => {
    const database = await open();
    try {
      const sender = await withSender(database);
      const budget = new SenderBudget(100);
      expect(await budget.available(database.db, sender, T0)).toBe(100);
      expect(await take(budget, database, sender, 30, T0)).toBe(30);
      expect(await budget.available(database.db, sender, T0)).toBe(70); // available() takes nothing
      expect(await take(budget, database, sender, 500, T0)).toBe(70);
      expect(await take(budget, database, sender, 1, T0)).toBe(0);
      expect(await take(budget, database, sender, 100, T0 + 250)).toBe(25);
      expect(await take(budget, database, sender, 100, T0 + 255)).toBe(0); // half a token
      expect(await take(budget, database, sender, 100, T0 + 260)).toBe(1); // the halves add up
      // A long gap fills the bucket, no further.
      expect(await take(budget, database, sender, 1000, T0 + 3_600_000)).toBe(100);
      // Another instance's clock a little behind: no refill, and no tokens from negative time.
      expect(await take(budget, database, sender, 10, T0 + 3_600_000 - 500)).toBe(0);
      expect(await take(budget, database, sender, 10, T0 + 3_600_000 + 100)).toBe(10);
    } finally {
      await database.close();
    }
  });

  it('takes for several senders in one call and leaves the others alone', async () => {
    const database = await open();
    try {
      const a = await withSender(database);
      const b = await withSender(database);
      const budget = new SenderBudget(5);
      const got = await budget.take(database.db, new Map([[b, 9], [a, 2]]), T0);
      expect(Object.fromEntries(got)).toEqual({ [a]: 2, [b]: 5 });
      expect(await budget.available(database.db, a, T0)).toBe(3);
      expect(await budget.available(database.db, b, T0)).toBe(0);
    } finally {
      await database.close();
    }
  });
}

describe('sender budget on SQLite', () => {
  budgetCases(() => openDatabase(':memory:'));
});

describe.runIf(required && unreachable !== null)('PostgreSQL required (REQUIRE_POSTGRES=1)', () => {
  it('is reachable', () => {
    throw new Error(`PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL.replace(/\/\/[^@]*@/, '//…@')}: ${unreachable}`);
  });
});

describe.skipIf(unreachable !== null)('sender budget on PostgreSQL', () => {
  const databases: TestDatabase[] = [];
  const scratch = async () => {
    const database = await createTestDatabase('h2_budget');
    databases.push(database);
    return database.url;
  };
  const openPg = async (url: string) => openDatabase(loadConfig({ DATABASE_URL: url, DATABASE_POOL_MAX: '8' }).postgres!);
  afterAll(async () => {
    for (const d of databases) await d.drop();
  });

  budgetCases(async () => openPg(await scratch()));

  it('three instances taking at once get exactly the budget between them', async () => {
    const url = await scratch();
    const instances = [await openPg(url), await openPg(url), await openPg(url)];
    try {
      const sender = await withSender(instances[0]!);
      const budget = new SenderBudget(1000);
      // 60 takes of 25 at the same instant, 20 per instance in parallel: 1,500 asked, 1,000 there.
      const takes = instances.flatMap((db) => Array.from({ length: 20 }, () => take(budget, db, sender, 25, T0)));
      const got = await Promise.all(takes);
      expect(got.reduce<number>((sum, n) => sum + (n ?? 0), 0)).toBe(1000);
      expect(got.every((n) => n === 0 || n === 25)).toBe(true);
      expect(await budget.available(instances[1]!.db, sender, T0)).toBe(0);
    } finally {
      for (const i of instances) await i.close();
    }
  });
});
