import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { DAY, DE_RCS, HOUR, num, startEngagementServer, type EngagementServer } from './helpers.js';

const T0 = Date.UTC(2026, 2, 2, 9, 0, 0);
let t: EngagementServer;
const clock = new FakeClock(T0);

beforeAll(async () => {
  t = await startEngagementServer({ clock });
});
afterAll(async () => {
  await t?.close();
});

const iso = (ms: number) => new Date(ms).toISOString();

describe('conversation windows (spec §3.3)', () => {
  const A = num(1);

  it('the first message opens a 24 h window and is charged; later ones inside it are free', async () => {
    clock.set(T0);
    const first = await t.send(A);
    expect(first.status).toBe(200);
    expect(first.body.creditsEstimated).toBe(DE_RCS);
    expect((await t.record(first.body.messageRecordId)).creditsCost).toBe(DE_RCS);

    const status = await t.api('GET', `/api/rcs/conversations/${encodeURIComponent(A)}/status`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      success: true,
      phoneNumber: A,
      hasActiveConversation: true,
      status: 'ACTIVE',
      sessionStarted: iso(T0),
      sessionExpires: iso(T0 + DAY),
      sendernameId: t.convSender,
      remainingSeconds: 86_400,
    });
    expect(status.body.conversation.openedByMessageId).toBe(first.body.messageRecordId);

    clock.set(T0 + 5 * HOUR);
    const second = await t.send(A);
    expect(second.body.creditsEstimated).toBe(0);
    expect((await t.record(second.body.messageRecordId)).creditsCost).toBe(0);

    // One millisecond before the end: still inside, still free.
    clock.set(T0 + DAY - 1);
    const third = await t.send(A);
    expect(third.body.creditsEstimated).toBe(0);
    const list = await t.api('GET', `/api/rcs/conversations?phoneNumber=${encodeURIComponent(A)}`);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ messageCount: 3, lastActivity: iso(T0 + DAY - 1), status: 'ACTIVE' });
  });

  it('status is derived at request time: EXPIRED at exactly 24 h, without any write', async () => {
    clock.set(T0 + DAY);
    const status = await t.api('GET', `/api/rcs/conversations/${encodeURIComponent(A)}/status`);
    expect(status.body).toMatchObject({ hasActiveConversation: false, status: 'EXPIRED', sessionExpires: iso(T0 + DAY), remainingSeconds: 0 });
    // The + may come URL-encoded or bare, and without + at all.
    const bare = await t.api('GET', `/api/rcs/conversations/${A.slice(1)}/status`);
    expect(bare.body.status).toBe('EXPIRED');
    const expired = await t.api('GET', '/api/rcs/conversations?status=EXPIRED');
    expect(expired.body.data.map((c: any) => c.phoneNumber)).toContain(A);
    const active = await t.api('GET', '/api/rcs/conversations?status=ACTIVE');
    expect(active.body.data.map((c: any) => c.phoneNumber)).not.toContain(A);
  });

  it('a message at exactly 24 h is charged again and opens a new window', async () => {
    clock.set(T0 + DAY);
    const again = await t.send(A);
    expect(again.body.creditsEstimated).toBe(DE_RCS);
    const status = await t.api('GET', `/api/rcs/conversations/${encodeURIComponent(A)}/status`);
    expect(status.body).toMatchObject({ hasActiveConversation: true, sessionStarted: iso(T0 + DAY), sessionExpires: iso(T0 + 2 * DAY) });
    const all = await t.api('GET', `/api/rcs/conversations?phoneNumber=${encodeURIComponent(A)}`);
    expect(all.body.data.map((c: any) => c.status)).toEqual(['ACTIVE', 'EXPIRED']);
  });

  it('windows are per sender: another conversation-billing sender opens its own', async () => {
    clock.set(T0 + DAY + HOUR);
    const other = await t.convSenderFor(t.account);
    const r = await t.send(A, { sender: other });
    expect(r.body.creditsEstimated).toBe(DE_RCS);
    const status = await t.api('GET', `/api/rcs/conversations/${encodeURIComponent(A)}/status`);
    expect(status.body.activeSendernameIds.sort()).toEqual([t.convSender, other].sort());
    const filtered = await t.api('GET', `/api/rcs/conversations/${encodeURIComponent(A)}/status?sendernameId=${other}`);
    expect(filtered.body.conversations).toHaveLength(1);
    expect(filtered.body.sessionStarted).toBe(iso(T0 + DAY + HOUR));
  });

  it('senders without conversation billing charge every message and open no window; test phones are free', async () => {
    clock.set(T0 + 2 * DAY + HOUR);
    const B = num(2);
    for (let i = 0; i < 2; i++) expect((await t.send(B, { sender: t.account.senders.rcs })).body.creditsEstimated).toBe(DE_RCS);
    expect((await t.api('GET', `/api/rcs/conversations/${encodeURIComponent(B)}/status`)).body).toMatchObject({ hasActiveConversation: false, status: 'NONE', conversations: [] });
    const test = await t.send('+4915550000001', { sender: t.account.senders.rcsTest });
    expect(test.body.creditsEstimated).toBe(0);
  });

  it('list: newest activity first, page and limit, status filter', async () => {
    clock.set(T0 + 3 * DAY);
    for (let i = 10; i < 13; i++) {
      clock.advance(60_000);
      await t.send(num(i));
    }
    const page1 = await t.api('GET', '/api/rcs/conversations?status=ACTIVE&limit=2&page=1');
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((c: any) => c.phoneNumber)).toEqual([num(12), num(11)]);
    expect(page1.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    const page2 = await t.api('GET', '/api/rcs/conversations?status=ACTIVE&limit=2&page=2');
    expect(page2.body.data.map((c: any) => c.phoneNumber)).toEqual([num(10)]);
    expect((await t.api('GET', '/api/rcs/conversations?status=OPEN')).status).toBe(400);
    expect((await t.api('GET', '/api/rcs/conversations?status=active')).status).toBe(400);
    expect((await t.api('GET', '/api/rcs/conversations?limit=0')).status).toBe(400);
    expect((await t.api('GET', '/api/rcs/conversations/abc/status')).status).toBe(400);
  });

  it('a scheduled message opens its window at its send time; cancelling it voids the window', async () => {
    clock.set(T0 + 5 * DAY);
    const C = num(20);
    const at = T0 + 5 * DAY + 2 * HOUR;
    const scheduled = await t.send(C, { extra: { scheduleAt: iso(at) } });
    expect(scheduled.status).toBe(200);
    expect(scheduled.body.creditsEstimated).toBe(DE_RCS);
    // Another message scheduled inside that future window is free…
    const inside = await t.send(C, { extra: { scheduleAt: iso(at + HOUR) } });
    expect(inside.body.creditsEstimated).toBe(0);
    // …an immediate one now is not (the window has not started).
    const now = await t.send(C);
    expect(now.body.creditsEstimated).toBe(DE_RCS);
    // Cancel the opener of the future window: it no longer counts.
    expect((await t.api('DELETE', `/api/messages/${scheduled.body.messageId}`)).status).toBe(200);
    clock.set(at + 30 * 60_000);
    const conversations = await t.api('GET', `/api/rcs/conversations?phoneNumber=${encodeURIComponent(C)}`);
    expect(conversations.body.data.map((c: any) => c.sessionStarted)).toEqual([iso(T0 + 5 * DAY)]);
  });

  it('the permission messages:read is needed; a foreign account sees none of it', async () => {
    const other = await t.createAccount();
    const list = await t.api('GET', '/api/rcs/conversations', undefined, { key: other.apiKey });
    expect(list.body.data).toEqual([]);
    const status = await t.api('GET', `/api/rcs/conversations/${encodeURIComponent(num(1))}/status`, undefined, { key: other.apiKey });
    expect(status.body).toMatchObject({ hasActiveConversation: false, status: 'NONE', conversations: [] });
    const preview = await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: [num(1)] }, { key: other.apiKey });
    expect(preview.body.results[0].reason).toBe('NO_ACTIVE_CONVERSATION');
    // A foreign sender id is unknown to this account.
    const foreignSender = await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: [num(1)], sendernameId: t.convSender }, { key: other.apiKey });
    expect(foreignSender.status).toBe(400);
    const writeOnly = await t.createKey(t.account.accountId, ['messages:write']);
    expect((await t.api('GET', '/api/rcs/conversations', undefined, { key: writeOnly })).status).toBe(403);
    expect((await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: [num(1)] }, { key: writeOnly })).status).toBe(403);
    expect((await t.api('GET', '/api/rcs/conversations', undefined, { key: null })).status).toBe(401);
  });
});

describe('billing preview (spec §4.1)', () => {
  it('agrees with the real charge for the same numbers at the same moment', async () => {
    clock.set(T0 + 10 * DAY);
    const open = [num(30), num(31)];
    const fresh = [num(32), num(33), num(34)];
    for (const n of open) await t.send(n);
    clock.advance(3 * HOUR);
    const numbers = [...open, ...fresh, 'not a number', num(30)];
    const preview = await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: numbers, sendernameId: t.convSender });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ total: 7, freeCount: 2, chargeableCount: 4, errorCount: 1, duplicateCount: 1, sendernameId: t.convSender });
    expect(preview.body.results.map((r: any) => r.reason)).toEqual([
      'ACTIVE_CONVERSATION',
      'ACTIVE_CONVERSATION',
      'NO_ACTIVE_CONVERSATION',
      'NO_ACTIVE_CONVERSATION',
      'NO_ACTIVE_CONVERSATION',
      'ERROR_CHECKING',
      'DUPLICATE',
    ]);
    expect(preview.body.results[5]).toMatchObject({ phoneNumber: 'not a number', normalized: null, free: false, chargeable: true });
    expect(preview.body.estimatedCredits).toBe(0.105);

    // The same numbers, the same moment, a real batch: the charge is the preview's.
    const batch = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: [...open, ...fresh], messageType: 'text', content: { text: 'Hi' }, sendernameId: t.convSender });
    expect(batch.status).toBe(202);
    expect(batch.body.creditsEstimated).toBe(preview.body.estimatedCredits);
    const log = await t.api('GET', `/api/messages/log?startDate=${iso(clock.now() - 1000)}&endDate=${iso(clock.now() + 1000)}`);
    const cost = new Map(log.body.messages.filter((m: any) => m.jobId === batch.body.jobId).map((m: any) => [m.phoneNumber, m.creditsCost]));
    for (const r of preview.body.results.slice(0, 5)) expect(cost.get(r.normalized)).toBe(r.free ? 0 : DE_RCS);

    // And right after, the preview reflects the windows the batch opened.
    const after = await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: fresh, sendernameId: t.convSender });
    expect(after.body.freeCount).toBe(3);
  });

  it('without sendernameId any open window counts; a sender without conversation billing charges all', async () => {
    const r = await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: [num(30), num(99)] });
    expect(r.body.sendernameId).toBeNull();
    expect(r.body.results.map((x: any) => x.reason)).toEqual(['ACTIVE_CONVERSATION', 'NO_ACTIVE_CONVERSATION']);
    expect(r.body.results[0].conversation.sendernameId).toBe(t.convSender);
    const plain = await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: [num(30)], sendernameId: t.account.senders.rcs });
    expect(plain.body.results[0]).toMatchObject({ reason: 'NOT_CONVERSATION_BILLING', chargeable: true, estimatedCost: DE_RCS });
    const test = await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: ['+4915550000001'], sendernameId: t.account.senders.rcsTest });
    expect(test.body.results[0]).toMatchObject({ reason: 'TEST_PHONE', free: true });
  });

  it('ERROR_CHECKING: unreadable numbers are counted as chargeable', async () => {
    const r = await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: ['', '0151 2345', '+1', 'abc'] });
    expect(r.status).toBe(200);
    expect(r.body.results.every((x: any) => x.reason === 'ERROR_CHECKING' && x.chargeable && !x.free && typeof x.error === 'string')).toBe(true);
    expect(r.body).toMatchObject({ chargeableCount: 4, errorCount: 4, freeCount: 0, estimatedCredits: 0 });
  });

  it('400 when phoneNumbers is missing, empty or longer than 1000; 1000 is fine', async () => {
    expect((await t.api('POST', '/api/rcs/conversations/billing-preview', {})).status).toBe(400);
    expect((await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: [] })).status).toBe(400);
    expect((await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: 'x' })).status).toBe(400);
    expect((await t.api('POST', '/api/rcs/conversations/billing-preview')).status).toBe(400);
    const many = Array.from({ length: 1001 }, (_, i) => num(1000 + i));
    const tooMany = await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('VALIDATION_ERROR');
    const ok = await t.api('POST', '/api/rcs/conversations/billing-preview', { phoneNumbers: many.slice(0, 1000) });
    expect(ok.status).toBe(200);
    expect(ok.body.total).toBe(1000);
  });
});

describe('a reply from the person (docs/decisions.md: inbound and windows)', () => {
  it('the first reply inside a window moves its end to 24 h after the reply, once', async () => {
    const D = num(40);
    const start = T0 + 20 * DAY;
    clock.set(start);
    await t.send(D);
    clock.set(start + 23 * HOUR);
    await t.reply(D, t.convSender, 'Yes please');
    let s = await t.api('GET', `/api/rcs/conversations/${encodeURIComponent(D)}/status`);
    expect(s.body.conversation).toMatchObject({ sessionExpires: iso(start + 47 * HOUR), userRepliedAt: iso(start + 23 * HOUR), inboundCount: 1 });
    // Beyond the original 24 h, inside the moved end: free.
    clock.set(start + 30 * HOUR);
    expect((await t.send(D)).body.creditsEstimated).toBe(0);
    // A second reply does not move it again.
    clock.set(start + 40 * HOUR);
    await t.reply(D, t.convSender, 'And another thing');
    s = await t.api('GET', `/api/rcs/conversations/${encodeURIComponent(D)}/status`);
    expect(s.body.conversation).toMatchObject({ sessionExpires: iso(start + 47 * HOUR), inboundCount: 2 });
    clock.set(start + 47 * HOUR);
    expect((await t.send(D)).body.creditsEstimated).toBe(DE_RCS);
  });

  it('a message from a number without a window opens none; the business reply is charged', async () => {
    const E = num(41);
    clock.set(T0 + 30 * DAY);
    await t.reply(E, t.convSender, 'Hello, are you open today?');
    const s = await t.api('GET', `/api/rcs/conversations/${encodeURIComponent(E)}/status`);
    expect(s.body).toMatchObject({ hasActiveConversation: false, status: 'NONE' });
    clock.advance(60_000);
    expect((await t.send(E)).body.creditsEstimated).toBe(DE_RCS);
    clock.advance(60_000);
    expect((await t.send(E)).body.creditsEstimated).toBe(0);
  });
});
