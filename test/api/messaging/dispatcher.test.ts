import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Carriers, OutboundRcs, SendOutcome } from '../../../src/carriers/carrier.js';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher, type DispatcherOptions } from '../../../src/messaging/dispatcher.js';
import { FakeClock } from '../../../src/platform/clock.js';
import { createLogger } from '../../../src/platform/logger.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { creditsOf, de, messageRow, simRows, waitFor } from './util.js';

/**
 * The durable queue under the REST API, driven by hand with a fake clock: per-sender throughput,
 * retries with backoff, leases after a "crash", carrier idempotency and receipts that overtake
 * the dispatcher's own record.
 */
const clock = new FakeClock(Date.UTC(2026, 4, 4, 9, 0, 0));
let t: TestServer;
let acc: TestAccount;
let seq = 0;
const fresh = (last4 = '0001') => de(8000 + ++seq, last4);

function dispatcher(carriers: Carriers, options: Partial<DispatcherOptions> = {}) {
  return new Dispatcher({ db: t.ctx.db, clock, carriers, accounts: t.ctx.services.accounts, events: t.ctx.messageEvents, logger: createLogger('silent'), options: { ...DEFAULT_DISPATCHER_OPTIONS, ...options } });
}

/** The simulated network with the RCS hand-over replaced. */
function withRcs(sendMany: (ms: readonly OutboundRcs[]) => Promise<SendOutcome[]>): Carriers {
  const sim = t.ctx.carriers;
  return { ...sim, rcs: { ...sim.rcs, sendMany, send: async (m) => (await sendMany([m]))[0]! }, start: sim.start.bind(sim), stop: sim.stop.bind(sim) };
}

async function queueBatch(phones: string[], sendernameId = acc.senders.rcs, extra: Record<string, unknown> = {}) {
  const r = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Queued' }, sendernameId, ...extra }, { key: acc.apiKey });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return (await t.ctx.db.selectFrom('messages').selectAll().where('job_id', '=', r.body.jobId).orderBy('id').execute()).map((m) => m.id);
}

beforeAll(async () => {
  t = await startTestServer({ clock, workers: false });
  acc = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('per-sender throughput', () => {
  it('a big batch of one sender cannot starve another sender', async () => {
    const second = await t.ctx.services.senders.create(acc.accountId, { name: 'Second agent', type: 'RCS', status: 'APPROVED' });
    const big = await queueBatch(Array.from({ length: 12 }, () => fresh()), acc.senders.rcs, { batchSize: 1000, delayMs: 0 });
    const small = await queueBatch([fresh()], second.id);
    const d = dispatcher(t.ctx.carriers, { perSenderPerSecond: 5 });
    expect(await d.tick()).toBe(6); // 5 of the big batch, and the other sender's one
    expect((await messageRow(t, small[0]!))!.status).toBe('SENT');
    expect(await d.tick()).toBe(0); // bucket empty until time passes
    clock.advance(1000);
    expect(await d.tick()).toBe(5);
    clock.advance(1000);
    expect(await d.tick()).toBe(2);
    const statuses = await Promise.all(big.map(async (id) => (await messageRow(t, id))!.status));
    expect(statuses.every((s) => s === 'SENT')).toBe(true);
  });
});

describe('temporary carrier errors', () => {
  it('retry with growing backoff, then fail and refund after maxAttempts', async () => {
    const before = await creditsOf(t, acc.accountId);
    const [id] = await queueBatch([fresh()]);
    let calls = 0;
    const d = dispatcher(
      withRcs(async (ms) => {
        calls += ms.length;
        return ms.map(() => ({ ok: false, retryable: true, code: 'THROTTLED', reason: 'Carrier busy' }));
      }),
      { maxAttempts: 3 },
    );
    expect(await d.tick()).toBe(1);
    let row = (await messageRow(t, id!))!;
    expect(row).toMatchObject({ status: 'SENDING', pending: 1, attempts: 1, lease_until: null });
    expect(row.error).toMatch(/THROTTLED.*will retry/);
    const firstDelay = row.due_at - clock.now();
    expect(firstDelay).toBeGreaterThanOrEqual(750);
    expect(firstDelay).toBeLessThanOrEqual(1250);
    expect(await d.tick()).toBe(0); // not due yet
    clock.set(row.due_at);
    expect(await d.tick()).toBe(1);
    row = (await messageRow(t, id!))!;
    expect(row.attempts).toBe(2);
    expect(row.due_at - clock.now()).toBeGreaterThanOrEqual(1500);
    clock.set(row.due_at);
    expect(await d.tick()).toBe(1);
    row = (await messageRow(t, id!))!;
    // Third attempt was the last; with no SMS fallback the message fails and is refunded.
    expect(row).toMatchObject({ status: 'FAILED', pending: 0, attempts: 3, credits_cost_milli: 0 });
    expect(row.error).toMatch(/THROTTLED/);
    expect(calls).toBe(3);
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before, 6);
  });

  it('a carrier that throws loses nothing: the messages are retried', async () => {
    const [id] = await queueBatch([fresh()]);
    const broken = dispatcher(
      withRcs(async () => {
        throw new Error('socket hang up');
      }),
    );
    expect(await broken.tick()).toBe(1);
    const row = (await messageRow(t, id!))!;
    expect(row).toMatchObject({ pending: 1, status: 'SENDING' });
    expect(row.error).toMatch(/INTERNAL/);
    clock.set(row.due_at);
    expect(await dispatcher(t.ctx.carriers).tick()).toBe(1);
    expect((await messageRow(t, id!))!.status).toBe('SENT');
    expect(await simRows(t, id!)).toHaveLength(1);
  });
});

describe('crash between hand-over and record', () => {
  it('the lease expires, another dispatcher re-claims, and the carrier does not deliver twice', async () => {
    const ids = await queueBatch([fresh(), fresh(), fresh()]);
    // A dispatcher that hands the messages to the network and then "dies" before recording.
    const dying = dispatcher(
      withRcs(async (ms) => {
        await t.ctx.carriers.rcs.sendMany(ms);
        return new Promise<SendOutcome[]>(() => {});
      }),
      { leaseMs: 30_000 },
    );
    void dying.tick();
    // Until the dying dispatcher has handed all three over (a fixed 100 ms was too short on PostgreSQL on a loaded machine).
    for (const id of ids) await waitFor(async () => (await simRows(t, id)).length > 0, { timeoutMs: 5000, what: `${id} at the carrier` });
    for (const id of ids) {
      expect(await simRows(t, id)).toHaveLength(1);
      expect((await messageRow(t, id))!).toMatchObject({ pending: 1, status: 'SENDING' });
    }
    const firstCarrierIds = await Promise.all(ids.map(async (id) => (await simRows(t, id))[0]!.id));
    const survivor = dispatcher(t.ctx.carriers, { leaseMs: 30_000 });
    expect(await survivor.tick()).toBe(0); // still leased
    clock.advance(30_001);
    expect(await survivor.tick()).toBe(3);
    for (const [i, id] of ids.entries()) {
      const row = (await messageRow(t, id))!;
      expect(row).toMatchObject({ status: 'SENT', pending: 0, attempts: 2, carrier_message_id: firstCarrierIds[i] });
      expect(await simRows(t, id)).toHaveLength(1);
    }
  });
});

describe('a record the database aborts in a conflict', () => {
  /**
   * A dispatcher whose transactions after the first hand-over fail with `error` (`times` of them; on PostgreSQL the
   * claim is a transaction too, so only those after the hand-over, i.e. the record's, are hit). Returns the dispatcher
   * and how many were failed so far.
   */
  function failingRecords(error: { message: string; code: string }, times: number) {
    let failed = 0;
    let handedOver = false;
    const carriers = withRcs(async (ms) => {
      const out = await t.ctx.carriers.rcs.sendMany(ms);
      handedOver = true;
      return out;
    });
    const db = new Proxy(t.ctx.db, {
      get(target, prop) {
        if (prop === 'transaction' && handedOver && failed < times) {
          return () => ({
            execute: async () => {
              failed++;
              throw Object.assign(new Error(error.message), { code: error.code });
            },
          });
        }
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const d = new Dispatcher({ db, clock, carriers, accounts: t.ctx.services.accounts, events: t.ctx.messageEvents, logger: createLogger('silent'), options: DEFAULT_DISPATCHER_OPTIONS });
    return { d, failed: () => failed };
  }

  it('is recorded again at once (a deadlock with another instance kept nothing), not left pending until its lease runs out', async () => {
    const [id] = await queueBatch([fresh()]);
    // Aborted the way PostgreSQL breaks a deadlock.
    const { d, failed } = failingRecords({ message: 'deadlock detected', code: '40P01' }, 1);
    expect(await d.tick()).toBe(1);
    expect(failed()).toBe(1);
    expect(await messageRow(t, id!)).toMatchObject({ status: 'SENT', pending: 0, attempts: 1, lease_until: null });
    expect(await simRows(t, id!)).toHaveLength(1);
  });

  it('any other failure is not retried by the record: the round fails and the lease decides', async () => {
    const [id] = await queueBatch([fresh()]);
    const { d, failed } = failingRecords({ message: 'no space left on device', code: '53100' }, Infinity);
    await expect(d.tick()).rejects.toThrow(/no space/);
    expect(failed()).toBe(1);
    expect(await messageRow(t, id!)).toMatchObject({ status: 'SENDING', pending: 1, attempts: 1 });
    clock.advance(DEFAULT_DISPATCHER_OPTIONS.leaseMs + 1);
    expect(await dispatcher(t.ctx.carriers).tick()).toBe(1);
    expect(await messageRow(t, id!)).toMatchObject({ status: 'SENT', attempts: 2 });
    expect(await simRows(t, id!)).toHaveLength(1);
  });
});

describe('an immediate send whose row another claimer took first', () => {
  it('waits for that claimer’s outcome and answers with it, not with the pending row', async () => {
    const [id] = await queueBatch([fresh()]);
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    // The background loop (or another instance) claims the row between the send's commit and
    // dispatchNow and is still handing it over.
    const other = dispatcher(withRcs(async (ms) => (await gate, t.ctx.carriers.rcs.sendMany(ms))));
    const otherRound = other.tick();
    await waitFor(async () => (await messageRow(t, id!))!.lease_until, { until: (v) => v !== null, what: 'the other claim' });
    setTimeout(release, 150);
    const answered = await dispatcher(t.ctx.carriers).dispatchNow(id!);
    expect(answered).toMatchObject({ status: 'SENT', pending: 0, attempts: 1 });
    expect(await otherRound).toBe(1);
    expect(await simRows(t, id!)).toHaveLength(1);
  });

  it('answers with the pending row after a bounded wait when that claimer never finishes', async () => {
    const [id] = await queueBatch([fresh()]);
    const dead = dispatcher(withRcs(() => new Promise<SendOutcome[]>(() => {})));
    void dead.tick();
    await waitFor(async () => (await messageRow(t, id!))!.lease_until, { until: (v) => v !== null, what: 'the dead claim' });
    const started = Date.now();
    const answered = await dispatcher(t.ctx.carriers).dispatchNow(id!);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(answered).toMatchObject({ status: 'SENDING', pending: 1, attempts: 1 });
    expect(await simRows(t, id!)).toHaveLength(0);
    clock.advance(30_001); // the dead lease runs out, so later tests find the queue empty
    expect(await dispatcher(t.ctx.carriers).tick()).toBe(1);
  });
});

describe('the simulated network', () => {
  it('de-duplicates by message id like an idempotency key', async () => {
    const m = { messageId: 'msg_01J0000000000000000000DUP1', accountId: acc.accountId, senderId: acc.senders.rcs, senderName: 'Agent', to: fresh(), messageType: 'text', content: { text: 'x' } };
    const [a] = await t.ctx.carriers.rcs.sendMany([m]);
    const [b, c] = await t.ctx.carriers.rcs.sendMany([m, m]);
    expect(a).toMatchObject({ ok: true });
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(await simRows(t, m.messageId)).toHaveLength(1);
    const refused = await t.ctx.carriers.rcs.sendMany([{ ...m, messageId: 'msg_01J0000000000000000000DUP2', to: fresh('9992') }]);
    expect(refused[0]).toMatchObject({ ok: false, retryable: false, code: 'SIM_UNREACHABLE' });
  });

  it('receipts that overtake the record are deferred, not lost; statuses never move backwards', async () => {
    const status = t.ctx.services.status;
    const [id] = await queueBatch([fresh()]);
    const at = clock.now();
    // Still pending (not handed over / not recorded): the carrier must try again later.
    expect(await status.handleMany([{ kind: 'status', messageId: id!, status: 'DELIVERED', at }])).toEqual([false]);
    expect(await status.handleMany([{ kind: 'status', messageId: 'msg_01J0000000000000000000NONE', status: 'DELIVERED', at }])).toEqual([true]);
    expect(await dispatcher(t.ctx.carriers).tick()).toBe(1);
    clock.advance(10);
    expect(await status.handleMany([{ kind: 'status', messageId: id!, status: 'READ', at: clock.now() }])).toEqual([true]);
    let row = (await messageRow(t, id!))!;
    expect(row).toMatchObject({ status: 'READ', read_at: clock.now(), delivered_at: clock.now() });
    await status.handleMany([
      { kind: 'status', messageId: id!, status: 'DELIVERED', at: clock.now() + 5 },
      { kind: 'status', messageId: id!, status: 'FAILED', at: clock.now() + 6, error: 'late' },
    ]);
    row = (await messageRow(t, id!))!;
    expect(row).toMatchObject({ status: 'READ', error: null, failed_at: null });
  });

  it('fires the stored receipts when they are due (also after a restart: due times live in the database)', async () => {
    const [id] = await queueBatch([fresh()]);
    expect(await dispatcher(t.ctx.carriers).tick()).toBe(1);
    const sim = (await simRows(t, id!))[0]!;
    expect(sim.deliver_due).toBe(clock.now()); // the test server runs the network without delays
    const received: unknown[] = [];
    const network = t.ctx.carriers as unknown as { start(s: unknown): Promise<void>; stop(): Promise<void>; processDue(): Promise<number> };
    await network.start(async (events: unknown[]) => {
      received.push(...events);
      return t.ctx.services.status.handleMany(events as never);
    });
    try {
      // The network's own loop, started above, may fire them first (then this finds none left): both are the stored receipts.
      await network.processDue();
    } finally {
      await network.stop();
    }
    expect(received.length).toBeGreaterThanOrEqual(2);
    expect(received).toEqual(expect.arrayContaining([expect.objectContaining({ messageId: id, status: 'DELIVERED' }), expect.objectContaining({ messageId: id, status: 'READ' })]));
    expect((await messageRow(t, id!))!.status).toBe('READ');
    const after = (await simRows(t, id!))[0]!;
    expect(after).toMatchObject({ deliver_due: null, read_due: null, delivered_at: clock.now(), read_at: clock.now() });
  });
});

describe('messages adopted at accept (leased as they are written)', () => {
  it('are sent from memory without a second claim, and a graceful stop gives back the leases of those not sent yet', async () => {
    const ids = await queueBatch(Array.from({ length: 5 }, () => fresh()), acc.senders.rcs, { batchSize: 1000, delayMs: 0 });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let handedOver!: () => void;
    const firstHandOver = new Promise<void>((r) => (handedOver = r));
    const sim = t.ctx.carriers;
    const d = dispatcher(
      withRcs(async (ms) => {
        handedOver();
        await released;
        return sim.rcs.sendMany(ms);
      }),
      { claimLimit: 2 },
    );
    expect((await d.leaseForNewMessages(t.ctx.db, acc.senders.rcs, 5)).count).toBe(0); // not running: nothing is adopted
    d.start();
    try {
      const lease = await d.leaseForNewMessages(t.ctx.db, acc.senders.rcs, 5);
      expect(lease.count).toBe(5);
      // What SendService writes for messages due now: the lease and the first attempt.
      await t.ctx.db.updateTable('messages').set({ lease_until: lease.leaseUntil, attempts: 1 }).where('id', 'in', ids).execute();
      const rows = await t.ctx.db.selectFrom('messages').selectAll().where('id', 'in', ids).orderBy('id').execute();
      d.adopt(rows);
      await firstHandOver; // the first round of two is at the carrier
    } finally {
      const stopping = d.stop();
      release();
      await stopping;
    }
    const after = await t.ctx.db.selectFrom('messages').select(['id', 'status', 'pending', 'lease_until', 'attempts']).where('id', 'in', ids).orderBy('id').execute();
    expect(after.slice(0, 2)).toEqual(ids.slice(0, 2).map((id) => ({ id, status: 'SENT', pending: 0, lease_until: null, attempts: 1 })));
    // Not sent before the stop: released for the next start, the attempt not counted.
    expect(after.slice(2)).toEqual(ids.slice(2).map((id) => ({ id, status: 'SENDING', pending: 1, lease_until: null, attempts: 0 })));
    // A plain claim picks them up.
    expect(await dispatcher(t.ctx.carriers).tick()).toBe(3);
    for (const id of ids) expect(await simRows(t, id)).toHaveLength(1);
  });

  it('a row whose lease is about to run out is left to the normal claim instead of being sent from memory', async () => {
    const [id] = await queueBatch([fresh()]);
    const d = dispatcher(t.ctx.carriers);
    d.start();
    try {
      await t.ctx.db.updateTable('messages').set({ lease_until: clock.now() + 1000, attempts: 1 }).where('id', '=', id!).execute();
      d.adopt(await t.ctx.db.selectFrom('messages').selectAll().where('id', '=', id!).execute());
      expect(await d.tick()).toBe(0); // dropped from memory; the lease still holds in the table
    } finally {
      await d.stop();
    }
    expect((await messageRow(t, id!))!).toMatchObject({ status: 'SENDING', pending: 1 });
    clock.advance(1001);
    expect(await dispatcher(t.ctx.carriers).tick()).toBe(1);
    expect((await messageRow(t, id!))!).toMatchObject({ status: 'SENT', attempts: 2 });
  });
});

describe('a batch through the running server', () => {
  it('every message of a batch is handed over once, on its first attempt', async () => {
    const live = await startTestServer();
    try {
      const a = await live.createAccount();
      const phones = Array.from({ length: 50 }, (_, i) => de(9000 + i));
      const r = await live.api('POST', '/api/rcs/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Hi {{contact_phone}}' }, sendernameId: a.senders.rcs, batchSize: 1000, delayMs: 0 }, { key: a.apiKey });
      expect(r.status).toBe(202);
      const rows = await waitFor(
        () => live.ctx.db.selectFrom('messages').select(['id', 'status', 'attempts', 'pending']).where('job_id', '=', r.body.jobId).execute(),
        { until: (rs) => rs.length === 50 && rs.every((m) => m.pending === 0), what: 'the batch to be sent' },
      );
      expect(rows.every((m) => m.attempts === 1 && ['SENT', 'DELIVERED', 'READ'].includes(m.status))).toBe(true);
      const sims = await live.ctx.db.selectFrom('sim_messages').select('message_id').where('message_id', 'in', rows.map((m) => m.id)).execute();
      expect(sims).toHaveLength(50);
    } finally {
      await live.close();
    }
  });
});

describe('a carrier that is not ready (no link to its network)', () => {
  it('keeps SMS queued without counting attempts, claims none of them meanwhile, and sends each once when it is ready', async () => {
    const at = new Date(clock.now() + 3_600_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: `Later ${i}`, sendernameId: acc.senders.sms, scheduleAt: at }, { key: acc.apiKey });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      ids.push(r.body.messageId as string);
    }
    clock.advance(3_600_000 + 1);
    let ready = false;
    const handed: string[] = [];
    const sim = t.ctx.carriers;
    const sendMany = async (ms: readonly Parameters<typeof sim.sms.send>[0][]): Promise<SendOutcome[]> => {
      handed.push(...ms.map((m) => m.messageId).filter((id) => ids.includes(id)));
      if (ready) return sim.sms.sendMany(ms);
      return ms.map(() => ({ ok: false, retryable: true, notReady: true, code: 'NO_LINK', reason: 'no bind' }));
    };
    const carriers: Carriers = { ...sim, sms: { ...sim.sms, isReady: () => ready, sendMany, send: async (m) => (await sendMany([m]))[0]! }, start: sim.start.bind(sim), stop: sim.stop.bind(sim) };
    const d = dispatcher(carriers, { maxAttempts: 2 });
    await d.tick();
    expect(handed.sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const row = (await messageRow(t, id))!;
      expect(row).toMatchObject({ status: 'SENDING', pending: 1, attempts: 0, lease_until: null });
      expect(row.error).toMatch(/NO_LINK/);
    }
    // Far more rounds than maxAttempts, long past every backoff: nothing is claimed, nothing fails.
    for (let i = 0; i < 6; i++) {
      clock.advance(10_000);
      await d.tick();
    }
    expect(handed).toHaveLength(3);
    ready = true;
    clock.advance(1_000);
    await d.tick();
    expect(handed).toHaveLength(6);
    for (const id of ids) expect((await messageRow(t, id))!).toMatchObject({ status: 'SENT', pending: 0, attempts: 1 });
  });
});
