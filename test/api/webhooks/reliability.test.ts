import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedNetwork } from '../../../src/carriers/simulated/network.js';
import { SIM_TEST_NUMBERS } from '../../../src/carriers/simulated/numbers.js';
import { FakeClock } from '../../../src/platform/clock.js';
import { backoffMs } from '../../../src/webhooks/worker.js';
import type { TestServer } from '../../helpers/server.js';
import { createHook, FAST_RETRY_ENV, startOn, startReceiver, startWebhookServer, tempDataDir, verifyWebhook, type Receiver } from './helpers.js';
import { settled } from '../../helpers/settled.js';

describe('retries', () => {
  let t: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    t = await startWebhookServer();
    rx = await startReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  it('a receiver failing 5 times (500, 503, 408, 429, timeout) then succeeding gets the event exactly once more, same id and bytes', async () => {
    const { id, secret } = await createHook(t, `${rx.url}/flaky`, ['sms_message_received']);
    const answers = [{ status: 500 }, { status: 503 }, { status: 408 }, { status: 429, headers: { 'Retry-After': '0' } }, { status: 200, delayMs: 2600 }];
    rx.respond((_r, n) => answers[n - 1] ?? { status: 200, body: 'thanks' });
    const network = t.ctx.carriers as SimulatedNetwork;
    await network.userReply({ from: SIM_TEST_NUMBERS.rcsCapable, senderId: t.account.senders.sms, channel: 'SMS', text: 'retry me' });

    await rx.waitFor((all) => all.length >= 6, 20_000, 'six attempts');
    // Nothing after the success.
    await settled(t);
    const all = rx.requests.filter((r) => r.path === '/flaky');
    expect(all).toHaveLength(6);
    expect(all.map((r) => r.headers['x-rcs-delivery-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(new Set(all.map((r) => r.headers['x-rcs-event-id'])).size).toBe(1);
    expect(new Set(all.map((r) => r.headers['x-rcs-delivery-id'])).size).toBe(1);
    for (const r of all) {
      expect(r.raw.equals(all[0]!.raw)).toBe(true);
      expect(verifyWebhook(r.raw, r.headers['x-rcs-signature'], secret)).toBe(true);
    }
    // The backoff doubles from the 40 ms base up to the 160 ms cap (FAST_RETRY_ENV), jittered ±20 %.
    // Each retry waits at least its backoff after the previous attempt ended, so the gaps between
    // arrivals have lower bounds that load can only make easier to meet (no upper bounds: a busy
    // machine delays a retry, never brings it forward); a constant or missing backoff fails the third
    // and fourth. The fifth attempt timed out (2,000 ms) before its backoff began. 5 ms: timer rounding.
    const gaps = all.slice(1).map((r, i) => r.at - all[i]!.at);
    const least = [40, 80, 160, 160].map((ms) => ms * 0.8 - 5);
    least.push(2000 + 160 * 0.8 - 5);
    gaps.forEach((gap, i) => expect(gap, `gap before attempt ${i + 2}`).toBeGreaterThanOrEqual(least[i]!));

    const log = await t.api('GET', `/api/rcs/webhooks/${id}/deliveries`);
    const d = log.body.data[0];
    expect(d).toMatchObject({ status: 'delivered', attempts: 6, lastStatusCode: 200, event: 'sms_message_received' });
    expect(d.log.map((a: any) => [a.outcome, a.statusCode])).toEqual([
      ['retry', 500],
      ['retry', 503],
      ['retry', 408],
      ['retry', 429],
      ['retry', null],
      ['success', 200],
    ]);
    expect(d.log[4].error).toMatch(/Timed out after 2000 ms/);
    const hook = await t.api('GET', `/api/rcs/webhooks/${id}`);
    expect(hook.body.data.health).toMatchObject({ status: 'healthy', consecutiveFailures: 0, pendingDeliveries: 0, lastError: expect.stringMatching(/Timed out/) });
  });

  it('does not retry other 4xx answers', async () => {
    const { id } = await createHook(t, `${rx.url}/gone`, ['rcs_message_received']);
    rx.respond((r) => (r.path === '/gone' ? { status: 410, body: 'gone' } : { status: 200 }));
    const network = t.ctx.carriers as SimulatedNetwork;
    await network.userReply({ from: SIM_TEST_NUMBERS.rcsCapable, senderId: t.account.senders.rcs, channel: 'RCS', text: 'once' });
    await rx.waitFor((all) => all.some((r) => r.path === '/gone'));
    await settled(t);
    expect(rx.requests.filter((r) => r.path === '/gone')).toHaveLength(1);
    const log = await t.api('GET', `/api/rcs/webhooks/${id}/deliveries`);
    expect(log.body.data[0]).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 410 });
    expect((await t.api('GET', `/api/rcs/webhooks/${id}`)).body.data.health).toMatchObject({ status: 'failing', failedDeliveries: 1 });
    rx.respond(() => ({ status: 200 }));
  });

  it('backoff: exponential, capped, jittered', () => {
    expect(backoffMs(1, 10_000, 3_600_000, () => 0.5)).toBe(10_000);
    expect(backoffMs(2, 10_000, 3_600_000, () => 0.5)).toBe(20_000);
    expect(backoffMs(5, 10_000, 3_600_000, () => 0.5)).toBe(160_000);
    expect(backoffMs(40, 10_000, 3_600_000, () => 0.5)).toBe(3_600_000);
    expect(backoffMs(1, 10_000, 3_600_000, () => 0)).toBe(8_000);
    expect(backoffMs(1, 10_000, 3_600_000, () => 0.999999)).toBe(12_000);
  });
});

describe('24-hour retry window, flagging, manual redelivery (fake clock)', () => {
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 9, 0, 0));
  let t: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    // Production backoff (10 s doubling to 1 h) and window (24 h).
    t = await startWebhookServer({ clock, env: { WEBHOOK_RETRY_BASE_MS: '10000', WEBHOOK_RETRY_MAX_MS: '3600000' } });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  it('retries a dead endpoint for at least 24 hours, flags it, keeps the failed delivery, redelivers by hand', async () => {
    const worker = t.ctx.services.webhooks.worker;
    await worker.stop(); // driven by hand below
    const { id } = await createHook(t, `${rx.url}/down`, ['sms_message_received']);
    rx.respond(() => ({ status: 503, body: 'maintenance' }));
    const network = t.ctx.carriers as SimulatedNetwork;
    await network.userReply({ from: SIM_TEST_NUMBERS.rcsCapable, senderId: t.account.senders.sms, channel: 'SMS', text: 'anyone there?' });
    const start = clock.now();

    let attempts = 0;
    let status = 'pending';
    let lastAttemptAt = start;
    for (let guard = 0; guard < 200 && status === 'pending'; guard++) {
      const d = await t.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', id).executeTakeFirstOrThrow();
      status = d.status;
      if (status !== 'pending') break;
      clock.set(Math.max(clock.now(), d.next_attempt_at!));
      attempts += await worker.runOnce();
      lastAttemptAt = clock.now();
    }
    expect(status).toBe('failed');
    expect(lastAttemptAt - start).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(lastAttemptAt - start).toBeLessThan(26 * 3_600_000);
    expect(attempts).toBeGreaterThan(20);
    expect(rx.requests.filter((r) => r.path === '/down')).toHaveLength(attempts);

    const hook = (await t.api('GET', `/api/rcs/webhooks/${id}`)).body.data;
    expect(hook.health).toMatchObject({ status: 'failing', consecutiveFailures: attempts, failedDeliveries: 1, pendingDeliveries: 0, lastError: 'HTTP 503' });
    expect(hook.health.failingSince).toBe(new Date(start).toISOString());

    // A new event is still queued for the flagged endpoint (not dropped).
    await network.userReply({ from: SIM_TEST_NUMBERS.rcsCapable, senderId: t.account.senders.sms, channel: 'SMS', text: 'second' });
    expect((await t.api('GET', `/api/rcs/webhooks/${id}/deliveries?status=pending`)).body.data).toHaveLength(1);

    // The receiver is back: redeliver the failed one by hand.
    rx.respond(() => ({ status: 200 }));
    const failed = (await t.api('GET', `/api/rcs/webhooks/${id}/deliveries?status=failed`)).body.data[0];
    const again = await t.api('POST', `/api/rcs/webhooks/${id}/deliveries/${failed.id}/redeliver`);
    expect(again.body.data).toMatchObject({ delivered: true, statusCode: 200 });
    const after = (await t.api('GET', `/api/rcs/webhooks/${id}`)).body.data.health;
    expect(after).toMatchObject({ status: 'healthy', consecutiveFailures: 0, failedDeliveries: 0 });
    expect(await worker.runOnce()).toBe(1);
    expect((await t.api('GET', `/api/rcs/webhooks/${id}/deliveries?status=delivered`)).body.data).toHaveLength(2);
  });

  it('a disabled endpoint gets nothing new; queued deliveries wait and resume when enabled', async () => {
    const worker = t.ctx.services.webhooks.worker;
    const quiet = await startReceiver();
    try {
      const { id } = await createHook(t, `${quiet.url}/paused`, ['rcs_message_received']);
      const network = t.ctx.carriers as SimulatedNetwork;
      await network.userReply({ from: SIM_TEST_NUMBERS.rcsCapable, senderId: t.account.senders.rcs, channel: 'RCS', text: 'queued' });
      await t.api('PUT', `/api/rcs/webhooks/${id}`, { enabled: false });
      await worker.runOnce();
      await network.userReply({ from: SIM_TEST_NUMBERS.rcsCapable, senderId: t.account.senders.rcs, channel: 'RCS', text: 'not queued' });
      expect(quiet.requests).toHaveLength(0);
      expect((await t.api('GET', `/api/rcs/webhooks/${id}/deliveries`)).body.data).toHaveLength(1);
      await t.api('PUT', `/api/rcs/webhooks/${id}`, { enabled: true });
      await worker.runOnce();
      expect(quiet.requests.map((r) => r.json.message.text)).toEqual(['queued']);
    } finally {
      await quiet.close();
    }
  });
});

describe('restart with undelivered events pending', () => {
  it('posts what the outbox held when the previous process stopped', async () => {
    const dataDir = tempDataDir();
    const rx = await startReceiver();
    const env = { ...FAST_RETRY_ENV };
    let a = await startOn(dataDir, env);
    try {
      const account = await a.ctx.services.accounts.create({ name: 'Restart Co', timezone: 'Europe/Berlin', credits: 100 });
      const sms = await a.ctx.services.senders.create(account.id, { name: 'RESTART', type: 'SMS', status: 'APPROVED', isDefault: true });
      const key = (await a.ctx.services.apiKeys.create(account.id, 'k', ['messages:read', 'messages:write', 'webhooks:manage'])).key;
      const api = (base: string, method: string, path: string, body?: unknown) =>
        fetch(`${base}${path}`, { method, headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const hook = await api(a.url, 'POST', '/api/rcs/webhooks', { url: `${rx.url}/restart`, events: ['delivery_status', 'sms_message_received'] });
      expect(hook.status).toBe(201);

      // The delivery worker of this process is down: events pile up in the outbox.
      await a.ctx.services.webhooks.worker.stop();
      const sent = await api(a.url, 'POST', '/api/rcs/send-sms', { phoneNumber: '+4915112340007', message: 'before the restart', sendernameId: sms.id });
      expect(sent.status).toBe(200);
      await (a.ctx.carriers as SimulatedNetwork).userReply({ from: '+4915112340007', senderId: sms.id, channel: 'SMS', text: 'reply before the restart' });
      const deadline = Date.now() + 5000;
      let pending = 0;
      while (Date.now() < deadline) {
        pending = (await a.ctx.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute()).length;
        if (pending >= 4) break; // SENT, DELIVERED, READ, the reply
        await new Promise((r) => setTimeout(r, 30));
      }
      expect(pending).toBe(4);
      expect(rx.requests).toHaveLength(0);
      await a.close();

      a = await startOn(dataDir, env);
      await rx.waitFor((all) => all.length >= 4, 10_000, 'the four queued events');
      await settled(a); // nothing due, leased or in flight: a fifth post (a double) would have been made by now
      expect(rx.requests).toHaveLength(4);
      expect(rx.requests.map((r) => r.json.event).sort()).toEqual(['delivery_status', 'delivery_status', 'delivery_status', 'sms_message_received']);
      const secret = (await api(a.url, 'GET', `/api/rcs/webhooks/${hook.body.data.id}/secret`)).body.data.secret;
      expect(secret).toBe(hook.body.data.secret); // the sealing key survived the restart
      for (const r of rx.requests) expect(verifyWebhook(r.raw, r.headers['x-rcs-signature'], secret)).toBe(true);
      expect((await a.ctx.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute()).length).toBe(0);
    } finally {
      await a.close();
      await rx.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
