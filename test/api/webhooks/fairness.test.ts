import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { DeliveryWorker, FAILING_THRESHOLD } from '../../../src/webhooks/worker.js';
import type { TestServer } from '../../helpers/server.js';
import { startReceiver, startWebhookServer, type Receiver } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A receiver that takes every request and never answers (until closed). */
async function startHangingReceiver(): Promise<{ url: string; count(): number; close(): Promise<void> }> {
  let n = 0;
  const server = http.createServer((req) => {
    n++;
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => n,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Events for one endpoint, raised in one transaction as the product's event hubs do. */
async function raise(t: TestServer, accountId: string, endpointId: string, n: number, tag: string): Promise<number> {
  const at = Date.now();
  await t.ctx.db.transaction().execute(async (tx) => {
    for (let i = 0; i < n; i++) await t.ctx.services.webhooks.emit(tx, accountId, 'sms_message_received', { message: { text: `${tag} ${i}` } }, { kind: 'endpoint', endpointId });
  });
  return at;
}

async function hook(t: TestServer, accountId: string, url: string): Promise<string> {
  return (await t.ctx.services.webhooks.create(accountId, { url, events: ['sms_message_received'] })).id;
}

describe('fair delivery across endpoints and accounts', () => {
  let t: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    // A hanging post holds its slot for the whole timeout.
    t = await startWebhookServer({ env: { WEBHOOK_TIMEOUT_MS: '4000' } });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  it("account A's healthy endpoint gets its events promptly while account B's endpoint hangs", async () => {
    const hang = await startHangingReceiver();
    try {
      const b = await t.createAccount({ name: 'Hanging Co' });
      const bHook = await hook(t, b.accountId, `${hang.url}/b`);
      const aHook = await hook(t, t.account.accountId, `${rx.url}/a`);
      // B's events are older: a claim in due order alone would give B every slot.
      await raise(t, b.accountId, bHook, 40, 'b');
      await sleep(100);
      const raisedAt = await raise(t, t.account.accountId, aHook, 30, 'a');
      await rx.waitFor((all) => all.filter((r) => r.path === '/a').length >= 30, 10_000, "A's 30 events");
      const arrivals = rx.requests.filter((r) => r.path === '/a').map((r) => r.at - raisedAt);
      // Well under the 4 s a hanging post holds its slot.
      expect(Math.max(...arrivals)).toBeLessThan(2000);
      // B never has more than its per-endpoint share in flight.
      expect(hang.count()).toBeLessThanOrEqual(4);
    } finally {
      await hang.close();
    }
  });
});

describe('circuit breaker (fake clock)', () => {
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 9, 0, 0));
  let t: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    t = await startWebhookServer({ clock, env: { WEBHOOK_RETRY_BASE_MS: '10000', WEBHOOK_RETRY_MAX_MS: '3600000' } });
    await t.ctx.services.webhooks.worker.stop(); // driven by hand below
    rx = await startReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  it(`opens after ${FAILING_THRESHOLD} failures in a row; its events wait without attempts; a half-open probe tests it; success closes it`, async () => {
    const worker = t.ctx.services.webhooks.worker;
    const id = await hook(t, t.account.accountId, `${rx.url}/breaker`);
    rx.respond(() => ({ status: 500, body: 'down' }));
    await raise(t, t.account.accountId, id, 10, 'cb');
    const requests = () => rx.requests.filter((r) => r.path === '/breaker');
    const deliveries = () => t.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', id).execute();

    const openedAt = clock.now();
    for (let i = 0; i < 4; i++) await worker.runOnce();
    expect(requests()).toHaveLength(FAILING_THRESHOLD);
    let health = (await t.api('GET', `/api/rcs/webhooks/${id}`)).body.data.health;
    expect(health).toMatchObject({ status: 'failing', circuit: 'open', consecutiveFailures: FAILING_THRESHOLD });
    const probeAt = Date.parse(health.nextProbeAt);
    expect(probeAt).toBeGreaterThan(clock.now());
    // The five events never tried keep attempt 0 and wait for the probe.
    const untouched = (await deliveries()).filter((d) => d.attempts === 0);
    expect(untouched).toHaveLength(10 - FAILING_THRESHOLD);
    for (const d of untouched) expect(d.next_attempt_at).toBeGreaterThanOrEqual(probeAt);

    // While open: nothing is attempted, and new events queue behind the circuit.
    clock.set(probeAt - 1);
    await raise(t, t.account.accountId, id, 1, 'while open');
    expect(await worker.runOnce()).toBe(0);
    expect(requests()).toHaveLength(FAILING_THRESHOLD);

    // Half-open: exactly one probe; it fails, so the circuit opens again for longer.
    clock.set(probeAt);
    expect(await worker.runOnce()).toBe(1);
    expect(requests()).toHaveLength(FAILING_THRESHOLD + 1);
    health = (await t.api('GET', `/api/rcs/webhooks/${id}`)).body.data.health;
    expect(health.circuit).toBe('open');
    const secondProbeAt = Date.parse(health.nextProbeAt);
    expect(secondProbeAt - probeAt).toBeGreaterThan(probeAt - openedAt); // 10 s ±20 %, then 20 s ±20 %
    expect(await worker.runOnce()).toBe(0);

    // The receiver is back: the next probe succeeds, the circuit closes, the backlog flows.
    rx.respond(() => ({ status: 200 }));
    clock.set(secondProbeAt);
    expect(await worker.runOnce()).toBe(1);
    health = (await t.api('GET', `/api/rcs/webhooks/${id}`)).body.data.health;
    expect(health).toMatchObject({ status: 'healthy', circuit: 'closed', consecutiveFailures: 0, nextProbeAt: null });
    for (let i = 0; i < 10 && (await deliveries()).some((d) => d.status === 'pending'); i++) await worker.runOnce();
    const all = await deliveries();
    expect(all.every((d) => d.status === 'delivered')).toBe(true);
    // Events that waited behind the open circuit were posted once, as attempt 1: no attempts burned.
    const firstProbe = requests()[FAILING_THRESHOLD]!.headers['x-rcs-delivery-id'];
    const waited = new Set(untouched.map((d) => d.id).filter((x) => x !== firstProbe));
    expect(waited.size).toBeGreaterThanOrEqual(10 - FAILING_THRESHOLD - 1);
    for (const r of requests().filter((x) => waited.has(x.headers['x-rcs-delivery-id'] as string))) expect(r.headers['x-rcs-delivery-attempt']).toBe('1');
    expect(requests()).toHaveLength(FAILING_THRESHOLD + 1 + 11);
  });

  it('after a crash mid-post the next attempt is number 2, and attempt 1 is in the log with an unknown outcome', async () => {
    const worker = t.ctx.services.webhooks.worker;
    const id = await hook(t, t.account.accountId, `${rx.url}/crash`);
    rx.respond(() => ({ status: 200 }));
    await raise(t, t.account.accountId, id, 1, 'crash');
    // The crashed process claimed the delivery (its lease and attempt) and died before the post finished.
    const claimed = await worker.claimDue(1);
    expect(claimed).toHaveLength(1);
    expect(await worker.runOnce()).toBe(0); // the lease still holds
    clock.set(clock.now() + worker.leaseMs + 1);
    expect(await worker.runOnce()).toBe(1);
    const got = rx.requests.filter((r) => r.path === '/crash');
    expect(got.map((r) => r.headers['x-rcs-delivery-attempt'])).toEqual(['2']);
    const d = (await t.api('GET', `/api/rcs/webhooks/${id}/deliveries`)).body.data[0];
    expect(d).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(d.log.map((a: any) => [a.attempt, a.outcome, a.latencyMs === null])).toEqual([
      [1, 'unknown', true],
      [2, 'success', false],
    ]);
  });
});

describe('one warning per failure streak, one recovery line', () => {
  let t: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    t = await startWebhookServer(); // 40 ms retry base
    await t.ctx.services.webhooks.worker.stop();
    rx = await startReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  it('logs the failing warning once per streak and the recovery once, over two streaks', async () => {
    const lines: Array<{ level: number; msg: string; webhookId?: string }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString('utf8').split('\n')) if (l.trim()) lines.push(JSON.parse(l));
        done();
      },
    });
    const c = t.ctx.config;
    const worker = new DeliveryWorker(
      { db: t.ctx.db, clock: t.ctx.clock, logger: pino({ level: 'info' }, sink), allowPrivateNetwork: true, ...c.webhooks },
      (row, now) => t.ctx.services.webhooks.signingSecrets(row, now),
    );
    const id = await hook(t, t.account.accountId, `${rx.url}/streak`);
    const failing = () => lines.filter((l) => l.level === 40 && /endpoint is failing/.test(l.msg) && l.webhookId === id);
    const recovered = () => lines.filter((l) => /endpoint recovered/.test(l.msg) && l.webhookId === id);
    const drain = async () => {
      for (let i = 0; i < 400; i++) {
        await worker.runOnce();
        const pending = await t.ctx.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id).where('status', '=', 'pending').execute();
        if (pending.length === 0) return;
        await sleep(15);
      }
      throw new Error('deliveries still pending');
    };

    // Streak 1: 14 failures (the circuit opens, probes fail), then the endpoint answers.
    let n = 0;
    rx.respond(() => (++n <= 14 ? { status: 500 } : { status: 200 }));
    await raise(t, t.account.accountId, id, 12, 's1');
    await drain();
    expect(n).toBeGreaterThan(14);
    expect(failing()).toHaveLength(1);
    expect(recovered()).toHaveLength(1);
    expect(lines.findIndex((l) => l === failing()[0])).toBeLessThan(lines.findIndex((l) => l === recovered()[0]));

    // Streak 2.
    n = 0;
    rx.respond(() => (++n <= 9 ? { status: 503 } : { status: 200 }));
    await raise(t, t.account.accountId, id, 8, 's2');
    await drain();
    expect(failing()).toHaveLength(2);
    expect(recovered()).toHaveLength(2);
    expect((await t.api('GET', `/api/rcs/webhooks/${id}`)).body.data.health).toMatchObject({ status: 'healthy', circuit: 'closed' });

    // A short run of failures below the threshold is no streak: no warning, no recovery line.
    n = 0;
    rx.respond(() => (++n <= 2 ? { status: 500 } : { status: 200 }));
    await raise(t, t.account.accountId, id, 1, 's3');
    await drain();
    expect(failing()).toHaveLength(2);
    expect(recovered()).toHaveLength(2);
  });
});

describe('the timeout covers the whole response', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startWebhookServer({ env: { WEBHOOK_TIMEOUT_MS: '800' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a receiver that answers 200 at once and trickles its body past the deadline times out', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('o');
      const tick = setInterval(() => res.write('k'), 100); // well inside undici's per-chunk bodyTimeout
      const stop = setTimeout(() => {
        clearInterval(tick);
        res.end();
      }, 3000);
      res.on('close', () => {
        clearInterval(tick);
        clearTimeout(stop);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const id = await hook(t, t.account.accountId, `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow-body`);
      const started = Date.now();
      const r = await t.api('POST', `/api/rcs/webhooks/${id}/test`);
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ delivered: false, error: 'Timed out after 800 ms' });
      expect(Date.now() - started).toBeLessThan(2500);
      const log = (await t.api('GET', `/api/rcs/webhooks/${id}/deliveries`)).body.data[0].log;
      expect(log[0]).toMatchObject({ attempt: 1, outcome: 'failed', error: 'Timed out after 800 ms' });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
