import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedNetwork } from '../../../src/carriers/simulated/network.js';
import { SIM_TEST_NUMBERS } from '../../../src/carriers/simulated/numbers.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { createHook, startReceiver, startWebhookServer, type Receiver } from './helpers.js';
import { settled } from '../../helpers/settled.js';

describe('without DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS', () => {
  let t: TestServer;
  let rx: Receiver;
  let port: string;
  beforeAll(async () => {
    t = await startTestServer({ env: { WEBHOOK_RETRY_BASE_MS: '40', WEBHOOK_RETRY_MAX_MS: '80' } });
    rx = await startReceiver();
    port = new URL(rx.url).port;
  });
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  it.each([
    ['https://127.0.0.1:PORT/hook', 'private_address'],
    ['https://localhost:PORT/hook', 'private_address'],
    ['https://[::1]:PORT/hook', 'private_address'],
    ['https://169.254.169.254/latest/meta-data', 'private_address'],
    ['https://10.1.2.3/hook', 'private_address'],
    ['https://[::ffff:192.168.0.1]/hook', 'private_address'],
    // Issue #27: IPv6 forms embedding an IPv4 address (the URL parser writes [::127.0.0.1] as [::7f00:1]).
    ['https://[::127.0.0.1]:PORT/hook', 'private_address'],
    ['https://[::ffff:7f00:1]:PORT/hook', 'private_address'],
    ['https://[::ffff:0:127.0.0.1]:PORT/hook', 'private_address'],
    ['https://[64:ff9b::169.254.169.254]/latest/meta-data', 'private_address'],
    ['https://[2002:7f00:1::1]/hook', 'private_address'],
    ['https://[::5efe:10.0.0.1]/hook', 'private_address'],
    ['http://example.com/hook', 'invalid_url'],
    ['http://127.0.0.1:PORT/hook', 'invalid_url'],
  ])('refuses %s when it is configured', async (url, code) => {
    const r = await t.api('POST', '/api/rcs/webhooks', { url: url.replace('PORT', port), events: ['delivery_status'] });
    expect(r.status).toBe(400);
    expect(r.body.error.details[0]).toMatchObject({ path: 'url', code });
    expect(rx.requests).toHaveLength(0);
  });

  it('refuses a form webhookUrl on a private address', async () => {
    const r = await t.api('POST', '/api/v1/forms', { name: 'News', doubleOptIn: false, webhookUrl: `https://localhost:${port}/form` });
    expect(r.status).toBe(400);
    expect(r.body.error.details[0]).toMatchObject({ path: 'webhookUrl', code: 'private_address' });
  });

  it('checks every attempt after DNS resolution: a button webhookUrl naming localhost is refused, logged, not retried', async () => {
    const send = await t.api('POST', '/api/rcs/send', {
      phoneNumber: SIM_TEST_NUMBERS.rcsCapable,
      messageType: 'richCard',
      content: {
        title: 'Tap',
        cardActions: [
          { text: 'Local', type: 'postback', postbackData: 'p1', webhookUrl: `https://localhost:${port}/button` },
          { text: 'Plain', type: 'postback', postbackData: 'p2', webhookUrl: 'http://example.invalid/button' },
        ],
      },
      sendernameId: t.account.senders.rcs,
    });
    expect(send.status).toBe(200);
    const network = t.ctx.carriers as SimulatedNetwork;
    const base = { messageId: send.body.messageRecordId, from: SIM_TEST_NUMBERS.rcsCapable, senderId: t.account.senders.rcs, type: 'postback' as const };
    await network.userTap({ ...base, buttonText: 'Local', postbackData: 'p1' });
    await network.userTap({ ...base, buttonText: 'Plain', postbackData: 'p2' });

    const hooks = async () => (await t.api('GET', '/api/rcs/webhooks')).body.data as any[];
    const deadline = Date.now() + 5000;
    let logs: any[] = [];
    while (Date.now() < deadline) {
      const list = (await hooks()).filter((w) => w.source === 'button');
      logs = await Promise.all(list.map(async (w) => ({ w, d: (await t.api('GET', `/api/rcs/webhooks/${w.id}/deliveries`)).body.data[0] })));
      if (logs.length === 2 && logs.every((l) => l.d?.status === 'failed')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const local = logs.find((l) => l.w.url.includes('localhost'))!;
    const plain = logs.find((l) => l.w.url.startsWith('http://'))!;
    expect(local.d).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: null });
    expect(local.d.lastError).toMatch(/^Refused: localhost resolves to (127\.0\.0\.1|::1).*private/);
    expect(plain.d).toMatchObject({ status: 'failed', attempts: 1 });
    expect(plain.d.lastError).toMatch(/^Refused: URL must use https/);
    expect((await t.api('GET', `/api/rcs/webhooks/${local.w.id}`)).body.data.health.status).toBe('failing');
    await settled(t);
    expect(rx.requests).toHaveLength(0);
  });
});

describe('redirects', () => {
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

  it('are not followed: the attempt fails with the 3xx, the target is never requested, no retry', async () => {
    rx.respond((r) => (r.path === '/moved' ? { status: 302, headers: { Location: `${rx.url}/elsewhere` } } : { status: 200 }));
    const { id } = await createHook(t, `${rx.url}/moved`, ['sms_message_received']);
    const test = await t.api('POST', `/api/rcs/webhooks/${id}/test`);
    expect(test.body.data).toMatchObject({ delivered: false, statusCode: 302 });
    expect(test.body.data.error).toMatch(/redirects are not followed/);

    await (t.ctx.carriers as SimulatedNetwork).userReply({ from: SIM_TEST_NUMBERS.rcsCapable, senderId: t.account.senders.sms, channel: 'SMS', text: 'hi' });
    await rx.waitFor((all) => all.filter((r) => r.path === '/moved').length >= 2);
    await settled(t);
    expect(rx.requests.filter((r) => r.path === '/moved')).toHaveLength(2);
    expect(rx.requests.filter((r) => r.path === '/elsewhere')).toHaveLength(0);
    const d = (await t.api('GET', `/api/rcs/webhooks/${id}/deliveries?event=sms_message_received`)).body.data[0];
    expect(d).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 302 });
  });
});
