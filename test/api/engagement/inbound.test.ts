import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { num, startEngagementServer, type EngagementServer } from './helpers.js';

const T0 = Date.UTC(2026, 4, 4, 10, 0, 0);
const clock = new FakeClock(T0);
let t: EngagementServer;

beforeAll(async () => {
  t = await startEngagementServer({ clock });
});
afterAll(async () => {
  await t?.close();
});

const iso = (ms: number) => new Date(ms).toISOString();
const R = num(600);
const S = num(601);
let rcsMessageId: string;

const offer = {
  messageType: 'text',
  content: {
    text: 'Spring sale: 20% off. Interested?',
    suggestions: [
      { reply: { text: 'Yes please', postbackData: 'offer_yes' } },
      { reply: { text: 'No thanks', postbackData: 'offer_no' } },
      { action: { type: 'openUrl', text: 'Open shop', postbackData: 'open_shop', openUrlAction: { url: 'https://shop.example.com' } } },
    ],
  },
};

describe('inbound messages and interactions', () => {
  it('a chip tap is recorded as button_click with campaign, phone, time and the message', async () => {
    const sent = await t.api('POST', '/api/rcs/send', { phoneNumber: R, sendernameId: t.account.senders.rcs, campaignName: 'spring', ...offer });
    expect(sent.status).toBe(200);
    rcsMessageId = sent.body.messageRecordId;
    clock.advance(60_000);
    await t.network.userTap({ messageId: rcsMessageId, from: R, senderId: t.account.senders.rcs, type: 'reply', buttonText: 'Yes please', postbackData: 'offer_yes' });
    const list = await t.api('GET', '/api/rcs/interactions');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      type: 'button_click',
      actionType: 'reply',
      campaignName: 'spring',
      phoneNumber: R,
      sendernameId: t.account.senders.rcs,
      messageId: rcsMessageId,
      buttonText: 'Yes please',
      postbackData: 'offer_yes',
      channel: 'RCS',
      occurredAt: iso(T0 + 60_000),
    });
    expect(list.body.data[0].id).toMatch(/^int_/);
    expect(list.body.data[0].contact).toMatchObject({ id: expect.stringMatching(/^ct_/), name: null });
    expect(list.body.pagination).toMatchObject({ hasNext: false, count: 1, nextCursor: null });
  });

  it('an incoming RCS message is in the message log (INBOUND, RECEIVED) and a reply_received interaction', async () => {
    clock.advance(60_000);
    await t.reply(R, t.account.senders.rcs, 'Sounds good, which sizes?');
    const log = await t.api('GET', `/api/messages/log?direction=INBOUND&phoneNumber=${encodeURIComponent(R)}`);
    expect(log.status).toBe(200);
    expect(log.body.messages).toHaveLength(1);
    const m = log.body.messages[0];
    expect(m).toMatchObject({ type: 'RCS', status: 'RECEIVED', direction: 'INBOUND', source: 'INBOUND', phoneNumber: R, content: 'Sounds good, which sizes?', campaignName: 'spring', sendernameId: t.account.senders.rcs, creditsCost: null, createdAt: iso(T0 + 120_000) });
    const content = await t.api('GET', `/api/messages/${m.id}/content`);
    expect(content.body.message).toMatchObject({ direction: 'INBOUND', text: 'Sounds good, which sizes?', content: { text: 'Sounds good, which sizes?' } });
    const replies = await t.api('GET', '/api/rcs/interactions?type=reply_received');
    expect(replies.body.data).toHaveLength(1);
    expect(replies.body.data[0]).toMatchObject({ type: 'reply_received', actionType: 'text', text: 'Sounds good, which sizes?', messageId: rcsMessageId, inboundMessageId: m.id, campaignName: 'spring', phoneNumber: R, occurredAt: iso(T0 + 120_000) });
  });

  it('an incoming SMS is recorded as an SMS message of the SMS sender', async () => {
    const sms = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: S, message: 'Your table is booked for 7pm.', sendernameId: t.account.senders.sms, campaignName: 'bookings' });
    expect(sms.status).toBe(200);
    clock.advance(60_000);
    await t.reply(S, t.account.senders.sms, 'Thanks! Can we make it 8?', 'SMS');
    const log = await t.api('GET', `/api/messages/log?direction=INBOUND&type=sms`);
    expect(log.body.messages).toHaveLength(1);
    expect(log.body.messages[0]).toMatchObject({ type: 'SMS', status: 'RECEIVED', direction: 'INBOUND', phoneNumber: S, sendernameId: t.account.senders.sms, campaignName: 'bookings', smsSegments: 1 });
    const r = await t.api('GET', `/api/rcs/interactions?phone=${encodeURIComponent(S)}`);
    expect(r.body.data).toEqual([expect.objectContaining({ type: 'reply_received', channel: 'SMS', campaignName: 'bookings', text: 'Thanks! Can we make it 8?' })]);
  });

  it('a network delivering the same incoming message twice records it once', async () => {
    const event = { kind: 'inbound' as const, channel: 'RCS' as const, from: R, senderId: t.account.senders.rcs, text: 'dup?', at: clock.now(), carrierMessageId: 'sim_DUPLICATE_TEST' };
    await t.ctx.services.status.handleMany([event]);
    await t.ctx.services.status.handleMany([event]);
    const log = await t.api('GET', `/api/messages/log?direction=INBOUND&phoneNumber=${encodeURIComponent(R)}`);
    expect(log.body.messages.filter((m: any) => m.content === 'dup?')).toHaveLength(1);
  });

  it('the same incoming message handed over by several instances at once is recorded once', async () => {
    // Each call is its own transaction on its own connection (PostgreSQL): the lock around the
    // duplicate check is what keeps them from all finding none and all inserting.
    const event = { kind: 'inbound' as const, channel: 'SMS' as const, from: R, senderId: t.account.senders.sms, text: 'at once?', at: clock.now(), carrierMessageId: 'smpp_mo_CONCURRENT_TEST' };
    const applied = await Promise.all(Array.from({ length: 8 }, () => t.ctx.services.status.handle(event)));
    expect(applied.every((a) => a)).toBe(true);
    const rows = await t.ctx.db.selectFrom('messages').select('id').where('direction', '=', 'INBOUND').where('carrier_message_id', '=', event.carrierMessageId).execute();
    expect(rows).toHaveLength(1);
  });

  it('a message from a number we never wrote to is logged but is no reply; unknown senders are ignored', async () => {
    const stranger = num(602);
    await t.reply(stranger, t.account.senders.rcs, 'Who is this?');
    const log = await t.api('GET', `/api/messages/log?direction=INBOUND&phoneNumber=${encodeURIComponent(stranger)}`);
    expect(log.body.messages).toHaveLength(1);
    expect(log.body.messages[0].campaignName).toBeNull();
    expect((await t.api('GET', `/api/rcs/interactions?phone=${encodeURIComponent(stranger)}`)).body.data).toEqual([]);
    await t.ctx.services.status.handleMany([{ kind: 'inbound', channel: 'RCS', from: stranger, senderId: 'snd_01HZZZZZZZZZZZZZZZZZZZZZZZ', text: 'lost', at: clock.now(), carrierMessageId: 'sim_lost' }]);
    await t.ctx.services.status.handleMany([{ kind: 'interaction', type: 'reply', messageId: 'msg_01HZZZZZZZZZZZZZZZZZZZZZZZ', from: stranger, senderId: t.account.senders.rcs, buttonText: 'x', postbackData: null, at: clock.now() }]);
    expect((await t.api('GET', `/api/messages/log?direction=INBOUND&phoneNumber=${encodeURIComponent(stranger)}`)).body.messages).toHaveLength(1);
  });

  it('filters: type, campaign, phone, date range; cursor pagination newest first', async () => {
    clock.advance(60_000);
    await t.network.userTap({ messageId: rcsMessageId, from: R, senderId: t.account.senders.rcs, type: 'action', buttonText: 'Open shop', postbackData: 'open_shop' });
    const clicks = await t.api('GET', '/api/rcs/interactions?type=button_click');
    expect(clicks.body.data.map((i: any) => i.buttonText)).toEqual(['Open shop', 'Yes please']);
    expect(clicks.body.data[0].actionType).toBe('action');
    // Tap, reply, the de-duplicated "dup?" reply, tap.
    expect((await t.api('GET', '/api/rcs/interactions?campaign=spring')).body.data).toHaveLength(4);
    expect((await t.api('GET', '/api/rcs/interactions?campaign=bookings')).body.data).toHaveLength(1);
    expect((await t.api('GET', '/api/rcs/interactions?campaign=nothing')).body.data).toHaveLength(0);
    expect((await t.api('GET', `/api/rcs/interactions?phone=${R.slice(1)}`)).body.data).toHaveLength(4);
    const range = await t.api('GET', `/api/rcs/interactions?startDate=${iso(T0 + 90_000)}&endDate=${iso(T0 + 150_000)}`);
    expect(range.body.data.map((i: any) => i.type)).toEqual(['reply_received']);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await t.api('GET', `/api/rcs/interactions?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((i: any) => i.id));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    const all = await t.api('GET', '/api/rcs/interactions?limit=200');
    expect(seen).toEqual(all.body.data.map((i: any) => i.id));
    expect(seen).toHaveLength(5);
    const times = all.body.data.map((i: any) => i.occurredAt);
    expect([...times].sort().reverse()).toEqual(times);

    expect((await t.api('GET', '/api/rcs/interactions?type=click')).status).toBe(400);
    expect((await t.api('GET', '/api/rcs/interactions?cursor=nope!')).status).toBe(400);
    expect((await t.api('GET', '/api/rcs/interactions?phone=abc')).status).toBe(400);
    expect((await t.api('GET', `/api/rcs/interactions?startDate=${iso(T0 + DAYS)}&endDate=${iso(T0)}`)).status).toBe(400);
    expect((await t.api('GET', '/api/rcs/interactions?limit=201')).status).toBe(400);
  });

  it('the service API the MCP tool uses answers the same', async () => {
    const r = await t.ctx.services.interactions.list(t.account.accountId, { campaign: 'spring', type: 'button_click', limit: 10 });
    expect(r.data.map((i) => i.buttonText)).toEqual(['Open shop', 'Yes please']);
  });

  it('tenant isolation: another account never sees these interactions or inbound messages', async () => {
    const other = await t.createAccount();
    expect((await t.api('GET', '/api/rcs/interactions', undefined, { key: other.apiKey })).body.data).toEqual([]);
    expect((await t.api('GET', `/api/rcs/interactions?phone=${encodeURIComponent(R)}`, undefined, { key: other.apiKey })).body.data).toEqual([]);
    expect((await t.api('GET', '/api/messages/log?direction=INBOUND', undefined, { key: other.apiKey })).body.messages).toEqual([]);
    // The other account messages the same number; the person's reply to it stays with it.
    const sent = await t.api('POST', '/api/rcs/send', { phoneNumber: R, messageType: 'text', content: { text: 'Hi from other' }, sendernameId: other.senders.rcs, campaignName: 'other-campaign' }, { key: other.apiKey });
    expect(sent.status).toBe(200);
    clock.advance(60_000);
    await t.reply(R, other.senders.rcs, 'Hi other');
    const theirs = await t.api('GET', '/api/rcs/interactions', undefined, { key: other.apiKey });
    expect(theirs.body.data).toEqual([expect.objectContaining({ text: 'Hi other', campaignName: 'other-campaign' })]);
    const ours = await t.api('GET', '/api/rcs/interactions?limit=200');
    expect(ours.body.data.some((i: any) => i.text === 'Hi other')).toBe(false);
    // A foreign cursor is just a position; the account filter still applies.
    const walk = await t.api('GET', '/api/rcs/interactions?limit=1');
    const foreign = await t.api('GET', `/api/rcs/interactions?limit=5&cursor=${walk.body.pagination.nextCursor}`, undefined, { key: other.apiKey });
    expect(foreign.body.data.every((i: any) => i.campaignName === 'other-campaign')).toBe(true);
    const readless = await t.createKey(t.account.accountId, ['contacts:read']);
    expect((await t.api('GET', '/api/rcs/interactions', undefined, { key: readless })).status).toBe(403);
  });
});

const DAYS = 86_400_000;
