import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Carriers, OutboundRcs, SendOutcome } from '../../src/carriers/carrier.js';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher, type DispatcherOptions } from '../../src/messaging/dispatcher.js';
import { SendBatchRequestSchema } from '../../src/messaging/schemas.js';
import { FakeClock } from '../../src/platform/clock.js';
import { createLogger } from '../../src/platform/logger.js';
import { ENDPOINT_CONCURRENCY } from '../../src/webhooks/worker.js';
import { expectLedgerBalanced } from '../billing/invariant.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';
import { postgresUnreachable, POSTGRES_ADMIN_URL } from '../helpers/postgres.js';

/**
 * Claims on PostgreSQL with two instances in one process: two contexts, each with its own pool,
 * on one database, driven by hand with a shared fake clock. The dispatcher's and the webhook
 * worker's claims skip rows another claim holds (SKIP LOCKED) instead of waiting for them, hand
 * each message and delivery to one instance, share the per-sender budget and the per-endpoint
 * cap, and take over a dead instance's leases when they run out. The process-level version with
 * SIGKILL is test/reliability/multi-instance.test.ts.
 */
const unreachable = await postgresUnreachable();
const required = process.env.REQUIRE_POSTGRES === '1';

describe.runIf(required && unreachable !== null)('PostgreSQL required (REQUIRE_POSTGRES=1)', () => {
  it('is reachable', () => {
    throw new Error(`PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL.replace(/\/\/[^@]*@/, '//…@')}: ${unreachable}`);
  });
});

const clock = new FakeClock(Date.UTC(2026, 4, 4, 9, 0, 0));
let seq = 0;
/** Valid German mobile numbers ending in 5: never one of the simulated network's special numbers. */
const phone = () => `+49151${String(20_000_005 + ++seq * 10).padStart(8, '0')}`;

describe.skipIf(unreachable !== null)('claims with two instances on one PostgreSQL database', () => {
  let database: TestDatabase;
  const dirs: string[] = [];
  const ctxs: AppContext[] = [];
  let accountId = '';
  let senderId = '';
  let locker: pg.Client;

  const instance = async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-claims-'));
    dirs.push(dir);
    const config = loadConfig({
      DATA_DIR: dir,
      DATABASE_URL: database.url,
      DATABASE_POOL_MAX: '4',
      SEALING_KEY: sealingKey,
      SEED_DEMO: 'false',
      PORT: '0',
      SIM_DELIVERY_DELAY_MS: '0',
      SIM_READ_DELAY_MS: '0',
      DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    });
    const ctx = await createContext(config, { clock, logger: createLogger('silent') });
    ctxs.push(ctx);
    return ctx;
  };
  const sealingKey = randomBytes(32).toString('hex');
  const dispatcher = (ctx: AppContext, options: Partial<DispatcherOptions> = {}, carriers: Carriers = ctx.carriers) =>
    new Dispatcher({ db: ctx.db, clock, carriers, accounts: ctx.services.accounts, events: ctx.messageEvents, logger: createLogger('silent'), options: { ...DEFAULT_DISPATCHER_OPTIONS, ...options } });
  const queue = async (n: number) => {
    const body = SendBatchRequestSchema.parse({ phoneNumbers: Array.from({ length: n }, phone), messageType: 'text', content: { text: 'Hi' }, sendernameId: senderId, batchSize: 1000, delayMs: 0 });
    const r = await ctxs[0]!.services.send.sendBatch(accountId, body);
    return (await ctxs[0]!.db.selectFrom('messages').select('id').where('job_id', '=', r.jobId).execute()).map((m) => m.id);
  };
  const atCarrier = async (ids: string[]) => (await ctxs[0]!.db.selectFrom('sim_messages').select('message_id').where('message_id', 'in', ids).execute()).map((s) => s.message_id);

  beforeAll(async () => {
    database = await createTestDatabase('rcs_claims');
    const a = await instance();
    await instance();
    const account = await a.services.accounts.create({ name: 'Claims Co', timezone: 'Europe/Berlin', credits: 10_000 });
    accountId = account.id;
    senderId = (await a.services.senders.create(accountId, { name: 'Claims Agent', type: 'RCS', status: 'APPROVED', isDefault: true })).id;
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
  }, 60_000);

  afterAll(async () => {
    await locker?.end();
    try {
      if (ctxs[0]) await expectLedgerBalanced(ctxs[0].db, 'two instances on PostgreSQL');
    } finally {
      for (const c of ctxs) await c.database.close();
      await database?.drop();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    }
  }, 60_000);

  it('a dispatcher claim skips messages another claim has locked instead of waiting for them', async () => {
    const ids = await queue(30);
    await locker.query('begin');
    try {
      // Another instance's claim in progress: the ten oldest due messages locked.
      const { rows } = await locker.query<{ id: string }>('select id from messages where pending = 1 and id = any($1) order by due_at, id limit 10 for no key update', [ids]);
      expect(rows).toHaveLength(10);
      const started = Date.now();
      expect(await dispatcher(ctxs[1]!).tick()).toBe(20);
      expect(Date.now() - started).toBeLessThan(5_000);
      const sent = new Set(await atCarrier(ids));
      expect(rows.filter((r) => sent.has(r.id))).toEqual([]);
    } finally {
      await locker.query('rollback');
    }
    expect(await dispatcher(ctxs[0]!).tick()).toBe(10);
    expect((await atCarrier(ids)).sort()).toEqual([...ids].sort());
  });

  it('two dispatchers draining one queue at once send every message once, and both take part', async () => {
    const ids = await queue(3000);
    const claimed = [0, 0];
    const drain = async (k: number) => {
      const d = dispatcher(ctxs[k]!, { claimLimit: 200 });
      for (;;) {
        const n = await d.tick();
        if (n === 0) return;
        claimed[k]! += n;
      }
    };
    await Promise.all([drain(0), drain(1)]);
    expect(claimed[0]! + claimed[1]!).toBe(3000);
    expect(claimed[0]).toBeGreaterThan(0);
    expect(claimed[1]).toBeGreaterThan(0);
    const sim = await atCarrier(ids);
    expect(sim).toHaveLength(3000);
    expect(new Set(sim).size).toBe(3000);
    const rows = await ctxs[1]!.db.selectFrom('messages').select(['status', 'attempts']).where('id', 'in', ids).execute();
    expect(rows.every((m) => m.status === 'SENT' && m.attempts === 1)).toBe(true);
  }, 60_000);

  it('the per-sender budget holds over both instances', async () => {
    clock.advance(5_000); // a full bucket
    const ids = await queue(300);
    const [a, b] = [dispatcher(ctxs[0]!, { perSenderPerSecond: 50, claimLimit: 20 }), dispatcher(ctxs[1]!, { perSenderPerSecond: 50, claimLimit: 20 })];
    const burst = async () => {
      let n = 0;
      for (;;) {
        const got = (await Promise.all([a.tick(), b.tick()])).reduce((x, y) => x + y, 0);
        if (got === 0) return n;
        n += got;
      }
    };
    expect(await burst()).toBe(50);
    clock.advance(200);
    expect(await burst()).toBe(10);
    clock.advance(1_000);
    expect(await burst()).toBe(50);
    expect(await atCarrier(ids)).toHaveLength(110);
    // The rest, a second's worth at a time, so the next tests find the queue empty.
    for (let sent = 110; sent < ids.length; sent += await burst()) clock.advance(1_000);
    expect(await atCarrier(ids)).toHaveLength(300);
  }, 60_000);

  it("a dead instance's claimed messages are taken over by the other once their lease runs out", async () => {
    clock.advance(1_000); // the budget refilled after the last test emptied it
    const ids = await queue(5);
    // Hands the messages to the network, then "dies" before recording anything.
    const sim = ctxs[0]!.carriers;
    const dying: Carriers = { ...sim, rcs: { ...sim.rcs, sendMany: async (ms: readonly OutboundRcs[]) => (await sim.rcs.sendMany(ms), new Promise<SendOutcome[]>(() => {})) }, start: sim.start.bind(sim), stop: sim.stop.bind(sim) };
    void dispatcher(ctxs[0]!, { leaseMs: 30_000 }, dying).tick();
    const survivor = dispatcher(ctxs[1]!, { leaseMs: 30_000 });
    for (let i = 0; i < 50 && (await atCarrier(ids)).length < 5; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await atCarrier(ids)).toHaveLength(5);
    const firstCarrierIds = await ctxs[1]!.db.selectFrom('sim_messages').select(['message_id', 'id']).where('message_id', 'in', ids).execute();
    expect(await survivor.tick()).toBe(0); // still leased
    clock.advance(30_001);
    expect(await survivor.tick()).toBe(5);
    const rows = await ctxs[1]!.db.selectFrom('messages').select(['id', 'status', 'attempts', 'carrier_message_id']).where('id', 'in', ids).execute();
    const carrierId = new Map(firstCarrierIds.map((s) => [s.message_id, s.id]));
    for (const m of rows) expect(m).toMatchObject({ status: 'SENT', attempts: 2, carrier_message_id: carrierId.get(m.id) });
    expect(await atCarrier(ids)).toHaveLength(5);
  });

  it('two webhook workers deliver every event once, within the endpoint’s cap over both, and take over a dead worker’s lease', async () => {
    let inFlight = 0;
    let most = 0;
    const posts: { delivery: string; attempt: number }[] = [];
    const receiver = http.createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          inFlight--;
          posts.push({ delivery: String(req.headers['x-rcs-delivery-id']), attempt: Number(req.headers['x-rcs-delivery-attempt']) });
          res.writeHead(204).end();
        }, 15),
      );
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const endpoint = (await ctxs[0]!.services.webhooks.create(accountId, { url, events: ['sms_message_received'] })).id;
      await ctxs[0]!.db.transaction().execute(async (tx) => {
        for (let i = 0; i < 120; i++) await ctxs[0]!.services.webhooks.emit(tx, accountId, 'sms_message_received', { message: { text: `event ${i}` } }, { kind: 'endpoint', endpointId: endpoint });
      });
      const workers = ctxs.map((c) => c.services.webhooks.worker);
      const pending = async () => Number((await ctxs[0]!.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'pending').executeTakeFirstOrThrow()).n);
      await Promise.all(
        workers.map(async (w) => {
          while ((await pending()) > 0) if ((await w.runOnce()) === 0) await new Promise((r) => setTimeout(r, 5));
        }),
      );
      expect(posts).toHaveLength(120);
      expect(new Set(posts.map((p) => p.delivery)).size).toBe(120);
      expect(posts.every((p) => p.attempt === 1)).toBe(true);
      expect(most).toBeLessThanOrEqual(ENDPOINT_CONCURRENCY);

      // A worker claims a delivery and dies before posting it: the other posts it once the lease ran out.
      await ctxs[0]!.db.transaction().execute((tx) => ctxs[0]!.services.webhooks.emit(tx, accountId, 'sms_message_received', { message: { text: 'orphan' } }, { kind: 'endpoint', endpointId: endpoint }));
      const [claimed] = await workers[0]!.claimDue(1);
      expect(claimed).toBeDefined();
      expect(await workers[1]!.runOnce()).toBe(0);
      clock.advance(workers[0]!.leaseMs + 1);
      expect(await workers[1]!.runOnce()).toBe(1);
      expect(posts.filter((p) => p.delivery === claimed!.d.id)).toEqual([{ delivery: claimed!.d.id, attempt: 2 }]);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  }, 60_000);
});
