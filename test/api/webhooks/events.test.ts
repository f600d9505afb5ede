import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedNetwork } from '../../../src/carriers/simulated/network.js';
import { SIM_TEST_NUMBERS } from '../../../src/carriers/simulated/numbers.js';
import type { TestServer } from '../../helpers/server.js';
import { createHook, startReceiver, startWebhookServer, verifyWebhook, type Received, type Receiver } from './helpers.js';
import { settled } from '../../helpers/settled.js';

/**
 * Every event kind arrives with the shape docs/webhooks.md documents: delivery_status from real
 * sends on the simulated network, incoming RCS/SMS and button taps through the simulated network's
 * user events (the engagement area's hub), each signed and verified by the receiver.
 */
let t: TestServer;
let rx: Receiver;
let own: Receiver;
let network: SimulatedNetwork;
let secret: string;
let hookId: string;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const EVT = /^evt_[0-9A-Z]{26}$/;

beforeAll(async () => {
  t = await startWebhookServer();
  rx = await startReceiver();
  own = await startReceiver();
  network = t.ctx.carriers as SimulatedNetwork;
  ({ id: hookId, secret } = await createHook(t, `${rx.url}/all`, ['delivery_status', 'rcs_message_received', 'sms_message_received', 'button_interaction']));
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
  await own?.close();
});

const verified = (r: Received, s = secret) => verifyWebhook(r.raw, r.headers['x-rcs-signature'], s, 300);
const statusesOf = (messageId: string) => rx.events('delivery_status', (r) => r.json.message.messageRecordId === messageId);

function envelope(r: Received, type: string) {
  expect(r.json.id).toMatch(EVT);
  expect(r.json.event).toBe(type);
  expect(r.json.createdAt).toMatch(ISO);
  expect(r.headers['x-rcs-event-id']).toBe(r.json.id);
  expect(r.headers['x-rcs-event']).toBe(type);
  expect(r.headers['x-rcs-webhook-id']).toBe(hookId);
  expect(verified(r)).toBe(true);
}

describe('delivery_status', () => {
  it('reports SENT, DELIVERED and READ of a real send, each once, in the documented shape', async () => {
    const c = await t.api('POST', '/api/v1/contacts', { phone: SIM_TEST_NUMBERS.rcsCapable, firstName: 'Ada', lastName: 'Lovelace' });
    expect(c.status).toBe(201);
    const send = await t.api('POST', '/api/rcs/send', { phoneNumber: SIM_TEST_NUMBERS.rcsCapable, messageType: 'text', content: { text: 'Hi {{contact_first_name}}' }, sendernameId: t.account.senders.rcs, campaignName: 'spring' });
    expect(send.status).toBe(200);
    const id = send.body.messageRecordId;
    await rx.waitFor(() => statusesOf(id).length >= 3, 10_000, 'SENT, DELIVERED, READ');
    await settled(t);
    // Deliveries run in parallel, so arrival order is not guaranteed (docs/webhooks.md): order by status.
    const rank = { SENT: 1, DELIVERED: 2, READ: 3 } as Record<string, number>;
    const events = statusesOf(id).sort((a, b) => rank[a.json.message.status]! - rank[b.json.message.status]!);
    expect(events.map((e) => e.json.message.status)).toEqual(['SENT', 'DELIVERED', 'READ']);
    expect(events.map((e) => e.json.message.previousStatus)).toEqual(['SENDING', 'SENT', 'DELIVERED']);
    expect(new Set(events.map((e) => e.json.id)).size).toBe(3);
    for (const e of events) envelope(e, 'delivery_status');
    const read = events[2]!.json;
    expect(Object.keys(read)).toEqual(['id', 'event', 'createdAt', 'message', 'contact']);
    expect(read.message).toEqual({
      messageRecordId: id,
      type: 'RCS',
      status: 'READ',
      previousStatus: 'DELIVERED',
      statusAt: expect.stringMatching(ISO),
      phoneNumber: SIM_TEST_NUMBERS.rcsCapable,
      sendernameId: t.account.senders.rcs,
      campaignName: 'spring',
      jobId: null,
      method: 'RCS',
      fallbackUsed: false,
      fallbackReason: null,
      fallbackSendernameId: null,
      error: null,
      smsSegments: null,
      sentAt: expect.stringMatching(ISO),
      deliveredAt: expect.stringMatching(ISO),
      readAt: expect.stringMatching(ISO),
      failedAt: null,
    });
    expect(read.contact).toEqual({ id: c.body.data.id, phone: SIM_TEST_NUMBERS.rcsCapable, name: 'Ada Lovelace' });
    // The log agrees.
    const log = await t.api('GET', `/api/messages/log?messageId=${id}`);
    expect(log.body.messages[0].status).toBe('READ');
  });

  it('reports the SMS fallback used when RCS fails, and FAILED with its error', async () => {
    const fb = await t.api('POST', '/api/rcs/send', {
      phoneNumber: SIM_TEST_NUMBERS.rcsFails,
      messageType: 'text',
      content: { text: 'Rich hello' },
      sendernameId: t.account.senders.rcs,
      smsFallback: { message: 'Plain hello', sendernameId: t.account.senders.sms },
    });
    expect(fb.status).toBe(200);
    const fid = fb.body.messageRecordId;
    await rx.waitFor(() => ['SENT', 'DELIVERED'].every((st) => statusesOf(fid).some((e) => e.json.message.status === st)));
    const sent = statusesOf(fid).find((e) => e.json.message.status === 'SENT')!.json.message;
    expect(sent).toMatchObject({ method: 'SMS', fallbackUsed: true, fallbackReason: expect.stringContaining('RCS_FAILED'), fallbackSendernameId: t.account.senders.sms, smsSegments: 1, error: null });

    const unreachable = await t.api('POST', '/api/rcs/send', { phoneNumber: SIM_TEST_NUMBERS.unreachable, messageType: 'text', content: { text: 'x' }, sendernameId: t.account.senders.rcs });
    const uid = unreachable.body.messageRecordId;
    await rx.waitFor(() => statusesOf(uid).length >= 1);
    const failed = statusesOf(uid)[0]!.json.message;
    expect(failed).toMatchObject({ status: 'FAILED', previousStatus: 'SENDING', error: expect.any(String), failedAt: expect.stringMatching(ISO), sentAt: null });
    expect(failed.error.length).toBeGreaterThan(5);

    const late = await t.api('POST', '/api/rcs/send', { phoneNumber: SIM_TEST_NUMBERS.deliveryFails, messageType: 'text', content: { text: 'y' }, sendernameId: t.account.senders.rcs });
    const lid = late.body.messageRecordId;
    await rx.waitFor(() => statusesOf(lid).some((e) => e.json.message.status === 'FAILED'));
    const seq = statusesOf(lid).map((e) => e.json.message);
    expect(seq.map((m) => m.status).sort()).toEqual(['FAILED', 'SENT']);
    expect(seq.find((m) => m.status === 'FAILED')).toMatchObject({ previousStatus: 'SENT', error: expect.stringContaining('SIM_DELIVERY_FAILED') });
  });

  it('does not reach endpoints that did not subscribe, or another account’s', async () => {
    const other = await t.createAccount();
    const quiet = await startReceiver();
    try {
      await createHook(t, `${quiet.url}/forms-only`, ['form_submission']);
      await createHook(t, `${quiet.url}/other`, ['delivery_status'], other.apiKey);
      const s = await t.api('POST', '/api/rcs/send', { phoneNumber: '+4915112340002', messageType: 'text', content: { text: 'z' }, sendernameId: t.account.senders.rcs });
      await rx.waitFor(() => statusesOf(s.body.messageRecordId).length >= 3);
      await settled(t);
      expect(quiet.requests).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});

describe('incoming messages and button taps (simulated network user events)', () => {
  it('sms_message_received and rcs_message_received', async () => {
    await network.userReply({ from: SIM_TEST_NUMBERS.rcsCapable, senderId: t.account.senders.sms, channel: 'SMS', text: 'Hello from my phone' });
    await network.userReply({ from: SIM_TEST_NUMBERS.rcsCapable, senderId: t.account.senders.rcs, channel: 'RCS', text: 'Rich reply 👍' });
    await rx.waitFor(() => rx.events('sms_message_received').length >= 1 && rx.events('rcs_message_received').length >= 1);
    const sms = rx.events('sms_message_received')[0]!;
    envelope(sms, 'sms_message_received');
    expect(Object.keys(sms.json)).toEqual(['id', 'event', 'createdAt', 'message', 'contact']);
    expect(sms.json.message).toEqual({
      messageRecordId: expect.stringMatching(/^msg_/),
      type: 'SMS',
      direction: 'INBOUND',
      status: 'RECEIVED',
      text: 'Hello from my phone',
      from: SIM_TEST_NUMBERS.rcsCapable,
      sendernameId: t.account.senders.sms,
      campaignName: null,
      smsSegments: 1,
      receivedAt: expect.stringMatching(ISO),
    });
    expect(sms.json.contact).toMatchObject({ id: expect.stringMatching(/^ct_/), phone: SIM_TEST_NUMBERS.rcsCapable, name: 'Ada Lovelace' });
    const rcs = rx.events('rcs_message_received')[0]!;
    envelope(rcs, 'rcs_message_received');
    expect(rcs.json.message).toMatchObject({ type: 'RCS', text: 'Rich reply 👍', sendernameId: t.account.senders.rcs, campaignName: 'spring', smsSegments: null });
    // The log has the same message.
    const log = await t.api('GET', `/api/messages/log?messageId=${rcs.json.message.messageRecordId}`);
    expect(log.body.messages[0]).toMatchObject({ direction: 'INBOUND', status: 'RECEIVED' });
  });

  it('button_interaction: to the account’s endpoint, or to the button’s own webhookUrl instead', async () => {
    const send = await t.api('POST', '/api/rcs/send', {
      phoneNumber: SIM_TEST_NUMBERS.rcsCapable,
      messageType: 'richCard',
      content: {
        title: 'Table for two?',
        media: { height: 'MEDIUM', contentInfo: { fileUrl: 'https://example.com/a.png', contentType: 'image/png' } },
        cardActions: [{ text: 'Book', type: 'postback', postbackData: 'book_1', webhookUrl: `${own.url}/button` }],
        suggestions: [{ reply: { text: 'Yes', postbackData: 'yes_please' } }],
      },
      sendernameId: t.account.senders.rcs,
      campaignName: 'dinner',
    });
    expect(send.status).toBe(200);
    const messageId = send.body.messageRecordId;
    const base = { messageId, from: SIM_TEST_NUMBERS.rcsCapable, senderId: t.account.senders.rcs };
    await network.userTap({ ...base, type: 'reply', buttonText: 'Yes', postbackData: 'yes_please' });
    await network.userTap({ ...base, type: 'postback', buttonText: 'Book', postbackData: 'book_1' });
    await rx.waitFor(() => rx.events('button_interaction').length >= 1);
    await own.waitFor((all) => all.length >= 1);
    await settled(t);

    const taps = rx.events('button_interaction');
    expect(taps).toHaveLength(1);
    const tap = taps[0]!;
    envelope(tap, 'button_interaction');
    expect(Object.keys(tap.json)).toEqual(['id', 'event', 'createdAt', 'interaction', 'contact']);
    expect(tap.json.interaction).toEqual({
      type: 'button_click',
      buttonText: 'Yes',
      postbackData: 'yes_please',
      actionType: 'reply',
      interactionId: expect.stringMatching(/^int_/),
      messageRecordId: messageId,
      campaignName: 'dinner',
      sendernameId: t.account.senders.rcs,
      occurredAt: expect.stringMatching(ISO),
    });
    expect(tap.json.contact).toEqual({ id: expect.stringMatching(/^ct_/), phone: SIM_TEST_NUMBERS.rcsCapable, name: 'Ada Lovelace' });

    // The button with its own webhookUrl: an endpoint of its own (source button), with its own secret.
    const mine = own.requests[0]!;
    expect(mine.path).toBe('/button');
    expect(mine.json).toMatchObject({ event: 'button_interaction', interaction: { type: 'button_click', buttonText: 'Book', postbackData: 'book_1', actionType: 'postback' } });
    const list = await t.api('GET', '/api/rcs/webhooks');
    const btn = list.body.data.find((w: any) => w.url === `${own.url}/button`);
    expect(btn).toMatchObject({ source: 'button', events: [], enabled: true });
    const s = await t.api('GET', `/api/rcs/webhooks/${btn.id}/secret`);
    expect(verifyWebhook(mine.raw, mine.headers['x-rcs-signature'], s.body.data.secret)).toBe(true);
    expect(verifyWebhook(mine.raw, mine.headers['x-rcs-signature'], secret)).toBe(false);
  });
});
