import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { startEngagementServer, type EngagementServer } from './helpers.js';

const clock = new FakeClock(Date.UTC(2026, 2, 2, 9, 0, 0));
let t: EngagementServer;
beforeAll(async () => {
  t = await startEngagementServer({ clock });
});
afterAll(async () => {
  await t?.close();
});

it('an RCS message that was free in an open window is billed as SMS when it falls back', async () => {
  // …9991: the RCS send fails at the carrier, so every message goes out as the SMS fallback.
  const to = '+4915112349991';
  const extra = { smsFallback: { message: 'Hello by SMS', sendernameId: t.account.senders.sms } };
  const first = await t.send(to, { extra });
  const second = await t.send(to, { extra });
  expect(first.body).toMatchObject({ fallbackUsed: true, method: 'SMS' });
  expect(second.body).toMatchObject({ fallbackUsed: true, method: 'SMS' });
  // Windows cover RCS only: the SMS that actually went out costs one DE segment either way.
  expect((await t.record(first.body.messageRecordId)).creditsCost).toBe(0.085);
  expect((await t.record(second.body.messageRecordId)).creditsCost).toBe(0.085);
});
