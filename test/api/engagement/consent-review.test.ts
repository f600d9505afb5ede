import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { ALL_PERMISSIONS } from '../../../src/platform/permissions.js';
import { WebClient } from '../../helpers/web-client.js';
import { createHook, FAST_RETRY_ENV, startReceiver, type Receiver } from '../webhooks/helpers.js';
import { DAY, num, startEngagementServer, type EngagementServer } from './helpers.js';

/**
 * Issue #42: every request to stop is honoured. Clear requests opt out at once; replies that may be one pause
 * marketing to the number at once and wait for a person, who confirms or releases; transactional sends still go;
 * an assistant's credential cannot decide; every change is a webhook and on the consent record.
 */
const T0 = Date.UTC(2026, 5, 1, 9, 0, 0);
const clock = new FakeClock(T0);
let t: EngagementServer;
let rx: Receiver;
let assistantKey: string;

beforeAll(async () => {
  t = await startEngagementServer({ clock, env: FAST_RETRY_ENV });
  rx = await startReceiver();
  await createHook(t, rx.url, ['contact.opted_out', 'contact.resubscribed', 'consent.review']);
  assistantKey = (await t.ctx.services.apiKeys.create(t.account.accountId, 'Assistant', ALL_PERMISSIONS, { sendsNeedApproval: true })).key;
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

const iso = (ms: number) => new Date(ms).toISOString();
const text = (to: string, extra: Record<string, unknown> = {}) => ({ phoneNumber: to, messageType: 'text', content: { text: 'Our offer' }, sendernameId: t.account.senders.rcs, ...extra });
const scheduledTo = async (phone: string) => (await t.api('GET', `/api/messages/log?status=SCHEDULED&phoneNumber=${encodeURIComponent(phone)}`)).body.messages as any[];
const reviews = async (status = 'open') => (await t.api('GET', `/api/v1/consent/reviews?status=${status}`)).body.data as any[];
const reviewOf = async (phone: string, status = 'open') => (await reviews(status)).find((r) => r.phone === phone);
const history = async (phone: string) => (await t.api('GET', `/api/v1/contacts/${encodeURIComponent(phone)}/consent`)).body;
const hooks = (event: string, phone: string) => rx.events(event, (r) => r.json.contact?.phone === phone);

describe('clear requests to stop opt out at once', () => {
  const cases = ["STOP. Don't text me again", "Stop texting me, I'm not interested", 'wrong number, stop', 'remove me from your list', "don't text me anymore", 'opt me out', 'Leave me alone'];
  it.each(cases.map((c, i) => [c, i] as const))('"%s" opts out, and the next marketing send is refused', async (reply, i) => {
    const to = num(100 + i);
    expect((await t.api('POST', '/api/rcs/send', text(to))).status).toBe(200);
    clock.advance(1000);
    await t.reply(to, t.account.senders.rcs, reply);
    const next = await t.api('POST', '/api/rcs/send', text(to));
    expect(next.status).toBe(400);
    expect(next.body.error.code).toBe('CONTACT_OPTED_OUT');
    await rx.waitFor(() => hooks('contact.opted_out', to).length === 1, 10_000, `contact.opted_out for ${reply}`);
    expect(hooks('contact.opted_out', to)[0]!.json.optOut).toMatchObject({ source: 'keyword', confirmedBy: null });
  });
});

describe('a reply that may be a request to stop', () => {
  const P = num(200);

  it('pauses marketing at once: queued marketing is cancelled, new marketing is refused, transactional still goes', async () => {
    await t.api('POST', '/api/rcs/send', text(P, { scheduleAt: iso(T0 + DAY) }));
    await t.api('POST', '/api/rcs/send', text(P, { scheduleAt: iso(T0 + DAY), transactional: true, content: { text: 'Your code is 123456' } }));
    expect(await scheduledTo(P)).toHaveLength(2);
    clock.advance(1000);
    await t.reply(P, t.account.senders.rcs, 'Stop? I want these messages');

    const review = await reviewOf(P);
    expect(review).toMatchObject({ phone: P, status: 'open', reason: 'contradicted', keyword: 'STOP', receivedText: 'Stop? I want these messages', cancelledMessages: 1, replies: 1 });
    // The transactional one is still scheduled; the marketing one was cancelled.
    const left = await scheduledTo(P);
    expect(left).toHaveLength(1);
    expect(JSON.stringify(left[0])).toContain('Your code is 123456');

    const marketing = await t.api('POST', '/api/rcs/send', text(P));
    expect(marketing.status).toBe(400);
    expect(marketing.body.error.code).toBe('CONSENT_UNDER_REVIEW');
    const batch = await t.api('POST', '/api/rcs/send-batch', { ...text(P), phoneNumber: undefined, phoneNumbers: [P, num(201)] });
    expect(batch.status).toBe(202);
    expect(batch.body.rejected).toEqual([expect.objectContaining({ phoneNumber: P, code: 'CONSENT_UNDER_REVIEW' })]);
    expect((await t.api('POST', '/api/rcs/send', text(P, { transactional: true }))).status).toBe(200);

    // Not opted out: a person decides.
    expect((await history(P)).status.optedOut).toBe(false);
    expect((await history(P)).data[0]).toMatchObject({ kind: 'paused', source: 'keyword', receivedText: 'Stop? I want these messages' });
    await rx.waitFor(() => hooks('consent.review', P).length === 1, 10_000, 'consent.review opened');
    expect(hooks('consent.review', P)[0]!.json).toMatchObject({ event: 'consent.review', action: 'opened', review: { id: review.id, status: 'open' } });
  });

  it('a preview of a transactional send to a paused number tells the person approving it', async () => {
    const marked = await t.api('POST', '/api/rcs/previews/send', text(P, { transactional: true }), { key: assistantKey });
    expect(marked.status).toBe(201);
    expect(marked.body.data.warnings).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'consent_review_reached', message: expect.stringMatching(/^1 recipient replied something that may be a request to stop/) })]));
    const plain = await t.api('POST', '/api/rcs/previews/send', text(P), { key: assistantKey });
    expect(plain.body.error?.code ?? plain.body.data?.warnings).toBeDefined();
    expect(JSON.stringify(plain.body)).toContain('CONSENT_UNDER_REVIEW');
  });

  it('a second such reply adds to the open review instead of opening another', async () => {
    clock.advance(1000);
    await t.reply(P, t.account.senders.rcs, 'who is this?');
    const open = (await reviews()).filter((r) => r.phone === P);
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ replies: 2, lastText: 'who is this?' });
  });

  it('an assistant credential can read the list but not decide', async () => {
    const review = await reviewOf(P);
    expect((await t.api('GET', `/api/v1/consent/reviews/${review.id}`, undefined, { key: assistantKey })).status).toBe(200);
    for (const action of ['confirm', 'release']) {
      const r = await t.api('POST', `/api/v1/consent/reviews/${review.id}/${action}`, {}, { key: assistantKey });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('FORBIDDEN');
    }
    expect((await reviewOf(P)).status).toBe('open');
  });

  it('another account sees none of it: 404 on its id, an empty list', async () => {
    const review = await reviewOf(P);
    const other = await t.createAccount();
    expect((await t.api('GET', `/api/v1/consent/reviews/${review.id}`, undefined, { key: other.apiKey })).status).toBe(404);
    expect((await t.api('POST', `/api/v1/consent/reviews/${review.id}/release`, {}, { key: other.apiKey })).status).toBe(404);
    expect((await t.api('GET', '/api/v1/consent/reviews', undefined, { key: other.apiKey })).body.data).toEqual([]);
  });

  it('bad input gets a clear 400', async () => {
    expect((await t.api('GET', '/api/v1/consent/reviews/ct_nope')).body.error.code).toBe('INVALID_ID');
    expect((await t.api('GET', '/api/v1/consent/reviews?status=maybe')).status).toBe(400);
    expect((await t.api('GET', '/api/v1/consent/reviews?cursor=%%%')).status).toBe(400);
    const review = await reviewOf(P);
    expect((await t.api('POST', `/api/v1/consent/reviews/${review.id}/release`, { note: 'x'.repeat(501) })).status).toBe(400);
    expect((await t.api('POST', `/api/v1/consent/reviews/${review.id}/release`, undefined, { rawBody: '{"note":' })).status).toBe(400);
  });

  it('a person releases it: marketing goes again, on the record with who, webhook released; a second decision is 409', async () => {
    const review = await reviewOf(P);
    const r = await t.api('POST', `/api/v1/consent/reviews/${review.id}/release`, { note: 'Asked on the phone: wants them' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: review.id, status: 'released', decidedVia: 'api_key' });
    expect((await t.api('POST', '/api/rcs/send', text(P))).status).toBe(200);
    expect((await history(P)).data[0]).toMatchObject({ kind: 'released', source: 'api' });
    expect((await t.api('POST', `/api/v1/consent/reviews/${review.id}/confirm`, {})).status).toBe(409);
    await rx.waitFor(() => hooks('consent.review', P).some((h) => h.json.action === 'released'), 10_000, 'consent.review released');
  });
});

describe('at the same moment', () => {
  it('five doubtful replies from one number at once open exactly one review holding all five (PostgreSQL: several transactions)', async () => {
    const M = num(400);
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        t.ctx.services.inbound.receive({ kind: 'inbound', senderId: t.account.senders.rcs, from: M, channel: 'RCS', text: `wrong number ${i}`, carrierMessageId: `same-moment-${i}`, at: clock.now() } as never),
      ),
    );
    const open = (await reviews()).filter((r) => r.phone === M);
    expect(open).toHaveLength(1);
    expect(open[0].replies).toBe(5);
    expect((await history(M)).data.filter((e: { kind: string }) => e.kind === 'paused')).toHaveLength(1);
  });

  it('a STOP and a doubtful reply at once: opted out, and no review left open', async () => {
    const N = num(401);
    await Promise.all([
      t.ctx.services.inbound.receive({ kind: 'inbound', senderId: t.account.senders.rcs, from: N, channel: 'RCS', text: 'STOP', carrierMessageId: 'race-stop', at: clock.now() } as never),
      t.ctx.services.inbound.receive({ kind: 'inbound', senderId: t.account.senders.rcs, from: N, channel: 'RCS', text: 'this is spam', carrierMessageId: 'race-spam', at: clock.now() } as never),
    ]);
    expect((await history(N)).status).toMatchObject({ optedOut: true, underReview: false });
  });
});

describe('deciding a review', () => {
  it('a person confirms on the console: opted out by the console, with the person as actor, and webhooks', async () => {
    const C = num(300);
    await t.api('POST', '/api/rcs/send', text(C));
    await t.reply(C, t.account.senders.rcs, 'this is spam');
    const review = await reviewOf(C);
    expect(review.reason).toBe('complaint');

    const web = new WebClient(t.url);
    await web.login(t.account.email, t.account.password, t.account.totpSecret, '/console', clock.now());
    const page = await web.get('/console/consent');
    expect(page.status).toBe(200);
    expect(page.text).toContain('this is spam');
    const res = await web.post('/console/consent/review', { csrf: WebClient.hidden(page.text, 'csrf'), reviewId: review.id, action: 'confirm' });
    expect(res.status).toBe(303);

    expect((await history(C)).status.optedOut).toBe(true);
    expect((await history(C)).data[0]).toMatchObject({ kind: 'opt_out', source: 'console', actor: `user ${JSON.stringify(t.account.email)}` });
    expect((await reviewOf(C, 'confirmed'))).toMatchObject({ id: review.id, decidedVia: 'session' });
    expect((await t.api('POST', '/api/rcs/send', text(C))).body.error.code).toBe('CONTACT_OPTED_OUT');
    await rx.waitFor(() => hooks('contact.opted_out', C).length === 1 && hooks('consent.review', C).length === 2, 10_000, 'opt-out and review webhooks');
    expect(hooks('contact.opted_out', C)[0]!.json.optOut).toMatchObject({ source: 'console', confirmedBy: `user ${JSON.stringify(t.account.email)}` });
  });

  it("the recipient's own STOP closes an open review as confirmed; START releases one", async () => {
    const S = num(301);
    await t.reply(S, t.account.senders.rcs, 'not interested');
    expect(await reviewOf(S)).toBeDefined();
    await t.reply(S, t.account.senders.rcs, 'STOP');
    expect(await reviewOf(S)).toBeUndefined();
    expect(await reviewOf(S, 'confirmed')).toMatchObject({ decidedBy: 'recipient', decidedVia: 'keyword' });

    const R = num(302);
    await t.reply(R, t.account.senders.rcs, 'wrong number');
    await t.reply(R, t.account.senders.rcs, 'START');
    expect(await reviewOf(R, 'released')).toMatchObject({ decidedBy: 'recipient' });
    expect((await t.api('POST', '/api/rcs/send', text(R))).status).toBe(200);
  });

  it('START after an opt-out raises contact.resubscribed', async () => {
    const Q = num(303);
    await t.reply(Q, t.account.senders.rcs, 'STOP');
    await t.reply(Q, t.account.senders.rcs, 'START');
    await rx.waitFor(() => hooks('contact.resubscribed', Q).length === 1, 10_000, 'contact.resubscribed');
    expect(hooks('contact.resubscribed', Q)[0]!.json.resubscribe).toMatchObject({ source: 'keyword', keyword: 'START' });
  });

  it('the unsubscribe link raises contact.opted_out with source link', async () => {
    const L = num(304);
    const sent = await t.api('POST', '/api/rcs/send', text(L, { content: { text: 'Offer. Unsubscribe: {{unsubscribe_link}}' } }));
    expect(sent.status).toBe(200);
    const received = (await t.ctx.services.virtualPhone!.view(t.account.accountId, L)).threads[0]!.items.find((i) => i.kind === 'out' && i.messageId === sent.body.messageRecordId);
    const path = /\/u\/[A-Za-z0-9_-]+/.exec(JSON.stringify(received))![0];
    const web = new WebClient(t.url);
    const page = await web.get(path);
    const res = await web.post(path, { csrf: WebClient.hidden(page.text, 'csrf') });
    expect(res.text).toContain('You are unsubscribed');
    await rx.waitFor(() => hooks('contact.opted_out', L).length === 1, 10_000, 'link opt-out webhook');
    expect(hooks('contact.opted_out', L)[0]!.json.optOut.source).toBe('link');
  });
});
