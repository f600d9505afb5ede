import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { num, startEngagementServer, type EngagementServer } from './helpers.js';

const T0 = Date.UTC(2026, 3, 1, 8, 0, 0);
const clock = new FakeClock(T0);
let t: EngagementServer;

// A small limit so the test is short: 3 messages per recipient per 60 minutes.
beforeAll(async () => {
  t = await startEngagementServer({ clock, env: { RECIPIENT_RATE_LIMIT: '3', RECIPIENT_RATE_WINDOW_MINUTES: '60' } });
});
afterAll(async () => {
  await t?.close();
});

const rateLimit = (phone: string, key?: string) => t.api('GET', `/api/rcs/conversations/${encodeURIComponent(phone)}/rate-limit`, undefined, key ? { key } : {});

describe('per-recipient throttle', () => {
  const P = num(500);

  it('counts messages per recipient and refuses the one over the limit with 429 RATE_LIMITED', async () => {
    const first = await rateLimit(P);
    expect(first.body).toMatchObject({ success: true, phoneNumber: P, enabled: true, limit: 3, windowSeconds: 3600, used: 0, remaining: 3, limited: false, resetAt: null, retryAfterSeconds: 0 });
    for (let i = 0; i < 3; i++) {
      clock.advance(10 * 60_000); // T0+10, +20, +30 min
      const r = await t.send(P, { sender: t.account.senders.rcs });
      expect(r.status).toBe(200);
    }
    const full = await rateLimit(P);
    expect(full.body).toMatchObject({ used: 3, remaining: 0, limited: true, resetAt: new Date(T0 + 70 * 60_000).toISOString(), retryAfterSeconds: 40 * 60 });

    const refused = await t.send(P, { sender: t.account.senders.rcs });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(refused.body.error.retryAfterSeconds).toBe(2400);
    expect(refused.headers.get('retry-after')).toBe('2400');
    // SMS sends count against the same recipient.
    const sms = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: P, message: 'Hi', sendernameId: t.account.senders.sms });
    expect(sms.status).toBe(429);
    // Nothing was written for the refused sends.
    expect((await rateLimit(P)).body.used).toBe(3);
  });

  it('in a batch the throttled number is a rejected entry; the others go out', async () => {
    const batch = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: [P, num(501)], messageType: 'text', content: { text: 'Hi' }, sendernameId: t.account.senders.rcs });
    expect(batch.status).toBe(202);
    expect(batch.body.accepted).toBe(1);
    expect(batch.body.rejected).toEqual([expect.objectContaining({ phoneNumber: P, code: 'RATE_LIMITED', retryAfterSeconds: 2400 })]);
  });

  it('a big batch (another lookup strategy) finds the throttled number as well', async () => {
    const many = [...Array.from({ length: 60 }, (_, i) => num(800 + i)), P];
    const batch = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: many, messageType: 'text', content: { text: 'Hi' }, sendernameId: t.account.senders.rcs });
    expect(batch.status).toBe(202);
    expect(batch.body.accepted).toBe(60);
    expect(batch.body.rejected).toEqual([expect.objectContaining({ phoneNumber: P, code: 'RATE_LIMITED' })]);
  });

  it('recovers when the oldest message leaves the window', async () => {
    clock.set(T0 + 70 * 60_000 - 1);
    expect((await t.send(P, { sender: t.account.senders.rcs })).status).toBe(429);
    clock.set(T0 + 70 * 60_000);
    expect((await rateLimit(P)).body).toMatchObject({ used: 2, remaining: 1, limited: false, retryAfterSeconds: 0 });
    const ok = await t.send(P, { sender: t.account.senders.rcs });
    expect(ok.status).toBe(200);
    expect((await rateLimit(P)).body).toMatchObject({ used: 3, limited: true, retryAfterSeconds: 10 * 60 });
  });

  it('is per account: another tenant may still message the number', async () => {
    const other = await t.createAccount();
    const r = await t.api('POST', '/api/rcs/send', { phoneNumber: P, messageType: 'text', content: { text: 'Hi' }, sendernameId: other.senders.rcs }, { key: other.apiKey });
    expect(r.status).toBe(200);
    expect((await rateLimit(P, other.apiKey)).body).toMatchObject({ used: 1, limited: false });
  });

  it('scheduled messages count when accepted; cancelling one frees its slot', async () => {
    const Q = num(502);
    clock.set(T0 + 5 * 3_600_000);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await t.send(Q, { sender: t.account.senders.rcs, extra: { scheduleAt: new Date(clock.now() + (i + 1) * 86_400_000).toISOString() } });
      expect(r.status).toBe(200);
      ids.push(r.body.messageId);
    }
    expect((await t.send(Q, { sender: t.account.senders.rcs })).status).toBe(429);
    expect((await t.api('DELETE', `/api/messages/${ids[0]}`)).status).toBe(200);
    expect((await t.send(Q, { sender: t.account.senders.rcs })).status).toBe(200);
  });

  it('400 for a number that cannot be read', async () => {
    expect((await rateLimit('12')).status).toBe(400);
  });
});
