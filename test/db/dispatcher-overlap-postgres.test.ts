import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Carriers, OutboundRcs, SendOutcome } from '../../src/carriers/carrier.js';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher, type DispatcherOptions } from '../../src/messaging/dispatcher.js';
import { SendBatchRequestSchema } from '../../src/messaging/schemas.js';
import { FakeClock } from '../../src/platform/clock.js';
import { createLogger, type Logger } from '../../src/platform/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';
import { postgresUnreachable } from '../helpers/postgres.js';
import { waitFor } from '../api/messaging/util.js';

/**
 * On PostgreSQL the dispatcher's loop records a round while it hands the next one over
 * (statementsRunInParallel): one record at a time, in round order. A record is held up here by a
 * row lock another session takes on one of its messages, so what overlaps is seen, not guessed
 * from timings. SQLite keeps one round after the other (test/api/messaging/dispatcher.test.ts).
 */
const unreachable = await postgresUnreachable();
const clock = new FakeClock(Date.UTC(2026, 4, 4, 9, 0, 0));
let seq = 0;
/** Valid German mobile numbers ending in 5: never one of the simulated network's special numbers. */
const phone = () => `+49151${String(30_000_005 + ++seq * 10).padStart(8, '0')}`;

describe.skipIf(unreachable !== null)('dispatcher rounds overlapping their records on PostgreSQL', () => {
  let database: TestDatabase;
  let dir = '';
  let ctx: AppContext;
  let accountId = '';
  let senderId = '';
  let locker: pg.Client;

  /** The simulated network, with a hook that sees each RCS hand-over before the network takes it. */
  const watched = (onHandOver: (ms: readonly OutboundRcs[], call: number) => Promise<SendOutcome[] | void>): Carriers => {
    const sim = ctx.carriers;
    let call = 0;
    const sendMany = async (ms: readonly OutboundRcs[]) => (await onHandOver(ms, ++call)) ?? sim.rcs.sendMany(ms);
    return { ...sim, rcs: { ...sim.rcs, sendMany, send: async (m) => (await sendMany([m]))[0]! }, start: sim.start.bind(sim), stop: sim.stop.bind(sim) };
  };
  const dispatcher = (carriers: Carriers, options: Partial<DispatcherOptions> = {}, logger: Logger = createLogger('silent')) =>
    new Dispatcher({ db: ctx.db, clock, carriers, accounts: ctx.services.accounts, events: ctx.messageEvents, logger, options: { ...DEFAULT_DISPATCHER_OPTIONS, idleMs: 20, ...options } });
  const queue = async (n: number) => {
    const body = SendBatchRequestSchema.parse({ phoneNumbers: Array.from({ length: n }, phone), messageType: 'text', content: { text: 'Hi' }, sendernameId: senderId, batchSize: 1000, delayMs: 0 });
    const r = await ctx.services.send.sendBatch(accountId, body);
    return (await ctx.db.selectFrom('messages').select('id').where('job_id', '=', r.jobId).execute()).map((m) => m.id);
  };
  const rows = (ids: string[]) => ctx.db.selectFrom('messages').select(['id', 'status', 'pending', 'attempts']).where('id', 'in', ids).orderBy('id').execute();
  const atCarrier = async (ids: string[]) => (await ctx.db.selectFrom('sim_messages').select('message_id').where('message_id', 'in', ids).execute()).map((s) => s.message_id);
  /** Another session locks the message until release(): an UPDATE of it (its round's record) waits; an insert referencing it does not. */
  const lockMessage = async (id: string) => {
    await locker.query('begin');
    await locker.query('select id from messages where id = $1 for no key update', [id]);
  };
  const release = () => locker.query('rollback');

  beforeAll(async () => {
    database = await createTestDatabase('h5_overlap');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-overlap-'));
    const config = loadConfig({ DATA_DIR: dir, DATABASE_URL: database.url, DATABASE_POOL_MAX: '4', SEALING_KEY: randomBytes(32).toString('hex'), SEED_DEMO: 'false', PORT: '0', SIM_DELIVERY_DELAY_MS: '0', SIM_READ_DELAY_MS: '0' });
    ctx = await createContext(config, { clock, logger: createLogger('silent') });
    const account = await ctx.services.accounts.create({ name: 'Overlap Co', timezone: 'Europe/Berlin', credits: 10_000 });
    accountId = account.id;
    senderId = (await ctx.services.senders.create(accountId, { name: 'Overlap Agent', type: 'RCS', status: 'APPROVED', isDefault: true })).id;
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
  }, 60_000);

  afterAll(async () => {
    await locker?.end();
    await ctx?.database.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  beforeEach(async () => {
    // Earlier tests' leftovers (messages whose lease the fake clock has not run out) stay out of the way.
    await ctx.db.updateTable('messages').set({ pending: 0 }).where('pending', '=', 1).execute();
  });

  it('hands the next round over while the previous round is still being recorded, and records every round', async () => {
    const ids = await queue(3);
    const handedOver: string[][] = [];
    let lockedId = '';
    const d = dispatcher(
      watched(async (ms, call) => {
        handedOver.push(ms.map((m) => m.messageId));
        // The first round's record will wait for this lock until the second round is handed over.
        if (call === 1) await lockMessage((lockedId = ms[0]!.messageId));
      }),
      { claimLimit: 1 },
    );
    d.start();
    try {
      await waitFor(() => handedOver.length >= 2, { timeoutMs: 10_000, what: 'the second hand-over while the first record waits' });
      // The first round is handed over but not recorded: its record is the one waiting.
      expect((await rows([lockedId]))[0]).toMatchObject({ status: 'SENDING', pending: 1 });
      await release();
      await waitFor(async () => (await rows(ids)).every((r) => r.status === 'SENT'), { timeoutMs: 10_000, what: 'every message SENT' });
    } finally {
      await release().catch(() => undefined);
      await d.stop();
    }
    expect(handedOver.flat().sort()).toEqual([...ids].sort());
    expect((await atCarrier(ids)).sort()).toEqual([...ids].sort());
    expect((await rows(ids)).map((r) => [r.pending, r.attempts])).toEqual(ids.map(() => [0, 1]));
  }, 30_000);

  it('stop() waits for the record still running, so nothing handed over is left unrecorded', async () => {
    const ids = await queue(2);
    let calls = 0;
    const d = dispatcher(
      watched(async (ms, call) => {
        calls = call;
        if (call === 1) await lockMessage(ms[0]!.messageId);
      }),
      { claimLimit: 1 },
    );
    d.start();
    let stopped = false;
    try {
      await waitFor(() => calls >= 2, { timeoutMs: 10_000, what: 'the second hand-over' });
      const stopping = d.stop().then(() => (stopped = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(stopped).toBe(false);
      await release();
      await stopping;
    } finally {
      await release().catch(() => undefined);
      await d.stop();
    }
    expect((await rows(ids)).map((r) => [r.status, r.pending])).toEqual(ids.map(() => ['SENT', 0]));
  }, 30_000);

  it('a record that fails is logged, later rounds are recorded, and its messages are sent again once their lease runs out', async () => {
    const ids = await queue(3);
    const logged: string[] = [];
    const logger = pino({ level: 'error' }, new Writable({ write: (chunk: Buffer, _enc, done) => (logged.push(chunk.toString()), done()) }));
    // The first round's record fails: its carrier id is one no message may take (a CHECK constraint of this test's database).
    await sql(`alter table messages add constraint h5_no_poison check (carrier_message_id is distinct from 'poison')`);
    let failedId = '';
    const d = dispatcher(
      watched(async (ms, call) => {
        if (call !== 1) return;
        failedId = ms[0]!.messageId;
        await ctx.carriers.rcs.sendMany(ms);
        return ms.map((): SendOutcome => ({ ok: true, carrierMessageId: 'poison' }));
      }),
      { claimLimit: 1, leaseMs: 30_000 },
      logger,
    );
    d.start();
    try {
      await waitFor(async () => (await rows(ids)).filter((r) => r.status === 'SENT').length === 2, { timeoutMs: 10_000, what: 'the two other rounds recorded' });
      expect((await rows([failedId]))[0]).toMatchObject({ status: 'SENDING', pending: 1, attempts: 1 });
      expect(logged.join('')).toContain('dispatcher could not record a round');
      clock.advance(30_001);
      await waitFor(async () => (await rows([failedId]))[0]!.status === 'SENT', { timeoutMs: 10_000, what: 'the failed round sent again' });
    } finally {
      await d.stop();
      await sql('alter table messages drop constraint h5_no_poison');
    }
    expect((await rows([failedId]))[0]).toMatchObject({ status: 'SENT', pending: 0, attempts: 2 });
    // The network took it once: the second hand-over was recognised by the message id.
    expect(await atCarrier([failedId])).toEqual([failedId]);
  }, 30_000);

  const sql = (text: string) => locker.query(text);
});
