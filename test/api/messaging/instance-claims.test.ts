import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Carriers, OutboundRcs, SendOutcome } from '../../../src/carriers/carrier.js';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher, type DispatcherOptions } from '../../../src/messaging/dispatcher.js';
import { FakeClock } from '../../../src/platform/clock.js';
import { newInstanceId, thisHost } from '../../../src/platform/instances/identity.js';
import { InstanceRegistry } from '../../../src/platform/instances/registry.js';
import { createLogger } from '../../../src/platform/logger.js';
import { openTestDatabase } from '../../helpers/database.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { de, messageRow, simRows, waitFor } from './util.js';

/**
 * Claims carry the claiming instance (issue #31): a dead instance's messages are given back at
 * once — its process gone from this host, or (PostgreSQL) its heartbeat stale — while a live one's
 * stay with it, and a live but slow one has its leases renewed instead of losing them.
 */
const clock = new FakeClock(Date.UTC(2026, 5, 1, 9, 0, 0));
const logger = createLogger('silent');
let t: TestServer;
let acc: TestAccount;
let seq = 0;
const fresh = () => de(7000 + ++seq, '0042');

beforeAll(async () => {
  t = await startTestServer({ clock, workers: false });
  acc = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

function dispatcher(claimer: string | null, carriers: Carriers = t.ctx.carriers, options: Partial<DispatcherOptions> = {}) {
  return new Dispatcher({
    db: t.ctx.db,
    clock,
    carriers,
    accounts: t.ctx.services.accounts,
    events: t.ctx.messageEvents,
    logger,
    options: { ...DEFAULT_DISPATCHER_OPTIONS, ...options, ...(claimer ? { claimer: { id: claimer } } : {}) },
  });
}

/** A carrier that takes the messages and never answers: the claimer "dies" between hand-over and record. */
function hangingAfterHandOver(): Carriers {
  const sim = t.ctx.carriers;
  const sendMany = async (ms: readonly OutboundRcs[]) => {
    await sim.rcs.sendMany(ms);
    return new Promise<SendOutcome[]>(() => {});
  };
  return { ...sim, rcs: { ...sim.rcs, sendMany, send: async (m) => (await sendMany([m]))[0]! }, start: sim.start.bind(sim), stop: sim.stop.bind(sim) };
}

async function queue(n: number): Promise<string[]> {
  const r = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: Array.from({ length: n }, fresh), messageType: 'text', content: { text: 'Claimed' }, sendernameId: acc.senders.rcs }, { key: acc.apiKey });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return (await t.ctx.db.selectFrom('messages').select('id').where('job_id', '=', r.body.jobId).orderBy('id').execute()).map((m) => m.id);
}

/** Claims `ids` under `claimer` with a dispatcher that hands them over and never records (a process that then dies). */
async function claimAndHang(claimer: string, ids: string[]): Promise<void> {
  void dispatcher(claimer, hangingAfterHandOver()).tick();
  for (const id of ids) await waitFor(async () => (await simRows(t, id)).length > 0, { timeoutMs: 5000, what: `${id} at the carrier` });
  for (const id of ids) expect(await messageRow(t, id)).toMatchObject({ pending: 1, claimed_by: claimer });
}

/** A pid of this host whose process has ended. */
function endedPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  expect(child.status).toBe(0);
  return child.pid;
}

async function addInstance(row: { id: string; host: string; pid: number; silentMs: number }): Promise<void> {
  await t.ctx.db.insertInto('instances').values({ id: row.id, host: row.host, pid: row.pid, started_at: Date.now() - 60_000, heartbeat_at: Date.now() - row.silentMs }).execute();
}

const instanceIds = async () => (await t.ctx.db.selectFrom('instances').select('id').orderBy('id').execute()).map((r) => r.id);

describe('instances and their claims', () => {
  it('a started registry is a row; a stopped one is gone', async () => {
    const r = new InstanceRegistry({ db: t.ctx.db, logger, id: newInstanceId() });
    await r.start();
    try {
      expect(await instanceIds()).toContain(r.id);
      const row = await t.ctx.db.selectFrom('instances').selectAll().where('id', '=', r.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ host: thisHost(), pid: process.pid });
    } finally {
      await r.stop();
    }
    expect(await instanceIds()).not.toContain(r.id);
  });

  it('a stop without the database logs and goes on: a shutdown is not failed by it', async () => {
    const database = await openTestDatabase('instances-stop');
    const warnings: unknown[] = [];
    const r = new InstanceRegistry({ db: database.db, logger: { ...logger, warn: (...a: unknown[]) => void warnings.push(a) } as typeof logger, id: newInstanceId() });
    await r.start();
    await database.close();
    await expect(r.stop()).resolves.toBeUndefined();
    expect(warnings).toHaveLength(1);
  });

  it('an ended process of this host: its claims are given back when a live instance starts, and sent at once', async () => {
    const ids = await queue(3);
    const dead = `${os.hostname()}:${endedPid()}:deadbeef`;
    await claimAndHang(dead, ids);
    const carrierIds = await Promise.all(ids.map(async (id) => (await simRows(t, id))[0]!.id));
    await addInstance({ id: dead, host: thisHost(), pid: Number(dead.split(':')[1]), silentMs: 0 });

    const survivor = dispatcher('survivor');
    expect(await survivor.tick()).toBe(0); // leased: nothing to claim before the dead instance is found
    const registry = new InstanceRegistry({ db: t.ctx.db, logger, id: newInstanceId() });
    registry.holds({ name: 'messages', releaseClaimsOf: (x) => survivor.releaseClaimsOf(x) });
    await registry.start(); // no clock advance: the lease (30 s) has not run out
    try {
      expect(await instanceIds()).not.toContain(dead);
      for (const id of ids) expect(await messageRow(t, id)).toMatchObject({ pending: 1, lease_until: null, claimed_by: null });
      expect(await survivor.tick()).toBe(3);
      for (const [i, id] of ids.entries()) {
        expect(await messageRow(t, id)).toMatchObject({ status: 'SENT', attempts: 2, carrier_message_id: carrierIds[i] });
        expect(await simRows(t, id)).toHaveLength(1); // the carrier recognised each id: not delivered twice
      }
    } finally {
      await registry.stop();
    }
  });

  it.runIf(process.env.TEST_DATABASE === 'postgres')('a give-back does not wait for a row another transaction holds (a deadlock with three instances): the dead instance stays listed and the next beat gives the rest back', async () => {
    const ids = await queue(3);
    const dead = `${os.hostname()}:${endedPid()}:0ddba11`;
    await claimAndHang(dead, ids);
    await addInstance({ id: dead, host: thisHost(), pid: Number(dead.split(':')[1]), silentMs: 0 });
    const survivor = dispatcher('survivor');
    const registry = new InstanceRegistry({ db: t.ctx.db, logger, id: newInstanceId() });
    registry.holds({ name: 'messages', releaseClaimsOf: (x) => survivor.releaseClaimsOf(x) });
    // Another transaction holds the second row (as another survivor's give-back or a record would) until let go.
    let letGo!: () => void;
    const holding = new Promise<void>((resolve) => (letGo = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = t.ctx.db.transaction().execute(async (tx) => {
      await tx.selectFrom('messages').select('id').where('id', '=', ids[1]!).forNoKeyUpdate().execute();
      locked();
      await holding;
    });
    await isLocked;
    try {
      const started = Date.now();
      await registry.start();
      expect(Date.now() - started).toBeLessThan(5_000); // did not wait for the holder
      expect(await instanceIds()).toContain(dead);
      expect(await messageRow(t, ids[0]!)).toMatchObject({ lease_until: null, claimed_by: null });
      expect(await messageRow(t, ids[1]!)).toMatchObject({ claimed_by: dead });
      letGo();
      await holder;
      await registry.beat();
      expect(await instanceIds()).not.toContain(dead);
      for (const id of ids) expect(await messageRow(t, id)).toMatchObject({ pending: 1, lease_until: null, claimed_by: null });
      expect(await survivor.tick()).toBe(3);
      for (const id of ids) expect(await simRows(t, id)).toHaveLength(1);
    } finally {
      letGo();
      await holder;
      await registry.stop();
    }
  });

  it('an instance elsewhere whose heartbeat stopped: given back on PostgreSQL; SQLite has one process and no heartbeats', async () => {
    const ids = await queue(2);
    const silent = 'elsewhere.example:4242:0badc0de';
    await claimAndHang(silent, ids);
    await addInstance({ id: silent, host: 'elsewhere.example', pid: 4242, silentMs: 10_000 });
    const survivor = dispatcher('survivor');
    const registry = new InstanceRegistry({ db: t.ctx.db, logger, id: newInstanceId() });
    registry.holds({ name: 'messages', releaseClaimsOf: (x) => survivor.releaseClaimsOf(x) });
    await registry.start();
    try {
      await registry.beat();
      if (t.ctx.database.dialect === 'postgres') {
        expect(await instanceIds()).not.toContain(silent);
        expect(await survivor.tick()).toBe(2);
        for (const id of ids) expect(await messageRow(t, id)).toMatchObject({ status: 'SENT', attempts: 2 });
      } else {
        expect(await instanceIds()).toContain(silent);
        expect(await survivor.tick()).toBe(0);
        await t.ctx.db.deleteFrom('instances').where('id', '=', silent).execute();
        clock.advance(DEFAULT_DISPATCHER_OPTIONS.leaseMs + 1); // the lease decides
        expect(await survivor.tick()).toBe(2);
      }
    } finally {
      await registry.stop();
    }
  });

  it('a live instance keeps its claims: one elsewhere that beats, one of this process, one whose process runs', async () => {
    const ids = await queue(3);
    const beating = 'elsewhere.example:4343:0000beef';
    const sibling = new InstanceRegistry({ db: t.ctx.db, logger, id: newInstanceId() });
    await sibling.start();
    const runningHere = `${os.hostname()}:${process.ppid}:0000feed`; // this process's parent runs
    const claimers = [beating, sibling.id, runningHere];
    for (const [i, claimer] of claimers.entries()) await t.ctx.db.updateTable('messages').set({ lease_until: clock.now() + 30_000, claimed_by: claimer, attempts: 1 }).where('id', '=', ids[i]!).execute();
    await addInstance({ id: beating, host: 'elsewhere.example', pid: 4343, silentMs: 0 });
    // Its heartbeat silent for 10 s, yet its process runs on this host: alive (the process table decides here).
    await addInstance({ id: runningHere, host: thisHost(), pid: process.ppid, silentMs: 10_000 });
    const registry = new InstanceRegistry({ db: t.ctx.db, logger, id: newInstanceId() });
    const survivor = dispatcher('survivor');
    registry.holds({ name: 'messages', releaseClaimsOf: (x) => survivor.releaseClaimsOf(x) });
    await registry.start();
    try {
      await registry.beat();
      expect(await instanceIds()).toEqual(expect.arrayContaining([beating, sibling.id, runningHere]));
      expect(await survivor.tick()).toBe(0);
      for (const [i, id] of ids.entries()) expect(await messageRow(t, id)).toMatchObject({ pending: 1, claimed_by: claimers[i] });
    } finally {
      await registry.stop();
      await sibling.stop();
      await t.ctx.db.deleteFrom('instances').where('id', 'in', [beating, runningHere]).execute();
      clock.advance(30_001);
      await dispatcher(null).tick();
    }
  });

  it("another pid namespace under this host's name (a container given the same name): its heartbeat decides on PostgreSQL; on SQLite, one process per file, the name does", async () => {
    const ids = await queue(2);
    const pid = endedPid();
    const elsewhere = `${os.hostname()}:${pid}:00c0ffee`;
    await claimAndHang(elsewhere, ids);
    await addInstance({ id: elsewhere, host: `${os.hostname()}/pid:[1]`, pid, silentMs: 0 });
    const survivor = dispatcher('survivor');
    const registry = new InstanceRegistry({ db: t.ctx.db, logger, id: newInstanceId() });
    registry.holds({ name: 'messages', releaseClaimsOf: (x) => survivor.releaseClaimsOf(x) });
    await registry.start();
    try {
      if (t.ctx.database.dialect === 'postgres') {
        expect(await instanceIds()).toContain(elsewhere); // its pid means nothing here; it beats
        expect(await survivor.tick()).toBe(0);
        await t.ctx.db.deleteFrom('instances').where('id', '=', elsewhere).execute();
        clock.advance(DEFAULT_DISPATCHER_OPTIONS.leaseMs + 1);
      } else {
        expect(await instanceIds()).not.toContain(elsewhere);
      }
      expect(await survivor.tick()).toBe(2);
    } finally {
      await registry.stop();
    }
  });

  it('claims and adopted leases carry the instance', async () => {
    const d = dispatcher('me');
    d.start();
    try {
      const lease = await d.leaseForNewMessages(t.ctx.db, acc.senders.rcs, 2);
      expect(lease).toMatchObject({ count: 2, claimedBy: 'me' });
    } finally {
      await d.stop();
    }
    // Queued after the stop: a running loop would have sent them itself.
    const ids = await queue(2);
    // A claim of due rows stamps them too (a carrier that never answers keeps them claimed).
    await claimAndHang('me', ids);
    clock.advance(30_001);
    await dispatcher(null).tick();
  });

  it.runIf(process.env.TEST_DATABASE === 'postgres')('a renewal does not wait for a row a transaction holds (its own record, say): that row is renewed at the next beat', async () => {
    const d = dispatcher('renewing', t.ctx.carriers, { perSenderPerSecond: 1, leaseMs: 30_000 });
    d.start();
    const lease = await d.leaseForNewMessages(t.ctx.db, acc.senders.rcs, 2);
    await d.stop();
    const ids = await queue(2);
    let letGo!: () => void;
    const holding = new Promise<void>((resolve) => (letGo = resolve));
    let holder: Promise<void> | null = null;
    try {
      await t.ctx.db.updateTable('messages').set({ lease_until: lease.leaseUntil, claimed_by: 'renewing', attempts: 1 }).where('id', 'in', ids).execute();
      d.adopt(await t.ctx.db.selectFrom('messages').selectAll().where('id', 'in', ids).orderBy('id').execute());
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      holder = t.ctx.db.transaction().execute(async (tx) => {
        await tx.selectFrom('messages').select('id').where('id', '=', ids[1]!).forNoKeyUpdate().execute();
        locked();
        await holding;
      });
      await isLocked;
      clock.advance(20_000);
      const started = Date.now();
      await d.renewClaims();
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await messageRow(t, ids[0]!))!.lease_until).toBe(clock.now() + 30_000);
      expect((await messageRow(t, ids[1]!))!.lease_until).toBe(lease.leaseUntil);
      letGo();
      await holder;
      await d.renewClaims();
      expect((await messageRow(t, ids[1]!))!.lease_until).toBe(clock.now() + 30_000);
    } finally {
      letGo();
      await holder;
      clock.advance(60_000);
      await dispatcher(null).tick();
    }
  });

  it('a live but slow instance keeps its adopted rows: their leases are renewed once half has gone, only where still its own', async () => {
    const d = dispatcher('slow', t.ctx.carriers, { perSenderPerSecond: 1, leaseMs: 30_000 });
    d.start();
    const lease = await d.leaseForNewMessages(t.ctx.db, acc.senders.rcs, 3);
    await d.stop(); // stop the loop so the rows stay adopted...
    // Queued after the stop: a running loop would claim the first and record it sent over the lease written below.
    const ids = await queue(3);
    try {
      await t.ctx.db.updateTable('messages').set({ lease_until: lease.leaseUntil, claimed_by: 'slow', attempts: 1 }).where('id', 'in', ids).execute();
      d.adopt(await t.ctx.db.selectFrom('messages').selectAll().where('id', 'in', ids).orderBy('id').execute()); // ...and adopt them by hand
      // Another claimer took the third meanwhile (a lease that ran out, say): not renewed.
      await t.ctx.db.updateTable('messages').set({ lease_until: lease.leaseUntil + 5, claimed_by: 'other' }).where('id', '=', ids[2]!).execute();
      clock.advance(10_000);
      await d.renewClaims();
      expect((await messageRow(t, ids[0]!))!.lease_until).toBe(lease.leaseUntil); // two thirds left: not yet
      clock.advance(10_000);
      await d.renewClaims();
      for (const id of ids.slice(0, 2)) expect(await messageRow(t, id)).toMatchObject({ lease_until: clock.now() + 30_000, claimed_by: 'slow' });
      expect(await messageRow(t, ids[2]!)).toMatchObject({ lease_until: lease.leaseUntil + 5, claimed_by: 'other' });
      // Past the first lease, the renewed rows are still not claimable by anyone else.
      clock.advance(15_000);
      expect(await dispatcher('thief').tick()).toBe(1); // only the third, whose lease ran out
    } finally {
      clock.advance(60_000);
      await dispatcher(null).tick();
    }
  });
});
