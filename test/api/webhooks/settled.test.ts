import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TEST_NUMBERS } from '../../../src/carriers/simulated/numbers.js';
import type { TestServer } from '../../helpers/server.js';
import { settled } from '../../helpers/settled.js';
import { createHook, startReceiver, startWebhookServer, type Receiver } from './helpers.js';

/**
 * The test helper that replaces "sleep, then assert nothing more happened" (test/helpers/settled.ts)
 * must itself wait for the work in progress: a send's hand-over, its receipts and their webhook
 * posts, with no polling for them by the caller.
 */
let t: TestServer;
let rx: Receiver;

beforeAll(async () => {
  t = await startWebhookServer();
  rx = await startReceiver();
  await createHook(t, `${rx.url}/all`, ['delivery_status']);
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

describe('settled()', () => {
  it('returns only once a send, its receipts and every webhook post they caused are done', async () => {
    const before = rx.requests.length;
    const phones = Array.from({ length: 20 }, (_, i) => `+4915112${String(340100 + i)}`);
    const r = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: [SIM_TEST_NUMBERS.rcsCapable, ...phones], messageType: 'text', content: { text: 'Settle' }, sendernameId: t.account.senders.rcs, batchSize: 1000, delayMs: 0 });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    await settled(t);
    // SENT, DELIVERED and READ of each of the 21 messages, posted and answered: nothing was still on its way.
    expect(rx.requests.length - before).toBe(21 * 3);
  });
});
