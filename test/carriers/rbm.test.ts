import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceAccountTokenSource } from '../../src/carriers/rbm/auth.js';
import { RbmCarrier } from '../../src/carriers/rbm/carrier.js';
import { sqliteHandle } from '../../src/platform/db/database.js';
import { onPostgres } from '../helpers/database.js';
import { phoneLookupsWithoutPhoneIndex, recordStatements } from '../helpers/query-plans.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeRbm, signedCallback, type FakeRbm } from './fake-rbm.js';
import { CONTENT_CASES, UNSUBSCRIBE_URL } from './fixtures.js';
import { until } from './until.js';

const CLIENT_TOKEN = 'client-token-0123456789';
/** German mobile numbers (country in the default price list). */
const num = (i: number) => `+49151${String(30_000_000 + i).padStart(8, '0')}`;

describe('Google RBM carrier against a local RBM peer', () => {
  let rbm: FakeRbm;
  let t: TestServer;
  let carrier: RbmCarrier;
  let recorder: ReturnType<typeof recordStatements> | undefined;

  beforeAll(async () => {
    rbm = await startFakeRbm();
    t = await startTestServer({
      env: {
        CARRIER_RCS: 'rbm',
        RBM_AGENT_ID: rbm.agentId,
        RBM_SERVICE_ACCOUNT_FILE: rbm.serviceAccountFile,
        RBM_ENDPOINT: rbm.url,
        RBM_WEBHOOK_CLIENT_TOKEN: CLIENT_TOKEN,
      },
    });
    expect(t.ctx.carriers.rcs).toBeInstanceOf(RbmCarrier);
    carrier = t.ctx.carriers.rcs as RbmCarrier;
    // Every statement this file's RBM traffic prepares, for the plan check at the end (SQLite).
    if (t.ctx.database.dialect === 'sqlite') recorder = recordStatements(t.ctx.database.raw);
  });

  afterAll(async () => {
    recorder?.stop();
    await t?.close();
    await rbm?.close();
  });

  const send = (to: string, messageType: string, content: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    t.api('POST', '/api/rcs/send', { phoneNumber: to, messageType, content, sendernameId: t.account.senders.rcs, ...extra });
  const record = async (id: string) => (await t.api('GET', `/api/messages/log?messageId=${id}`)).body.messages[0];
  const webhook = async (payload: Record<string, unknown>, token = CLIENT_TOKEN, signature?: string) => {
    const signed = signedCallback(payload, token);
    const res = await fetch(`${t.url}/webhooks/rbm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-signature': signature ?? signed.signature },
      body: JSON.stringify(signed.body),
    });
    return { status: res.status, text: await res.text() };
  };

  it('sends every message type with the JSON of the snapshots, with a cached Bearer token', async () => {
    for (const [i, c] of CONTENT_CASES.entries()) {
      const to = num(100 + i);
      const r = await send(to, c.messageType, c.content);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const id = r.body.messageRecordId as string;
      const stored = await until(`RBM to receive ${c.name}`, async () => rbm.messages.get(id));
      expect(stored.phone).toBe(to);
      expect(stored.agentId).toBe(rbm.agentId);
      // The merged unsubscribe link carries a fresh token per send; the rest is the snapshot byte for byte.
      const sent = `${JSON.stringify(stored.body, null, 2)}\n`.replace(/https?:\/\/[^"\s]+\/u\/[A-Za-z0-9_-]+/g, UNSUBSCRIBE_URL);
      expect(sent).toBe(fs.readFileSync(new URL(`./__snapshots__/rbm/${c.name}.json`, import.meta.url), 'utf8'));
      const rec = await until('SENT', async () => {
        const x = await record(id);
        return x?.status === 'SENT' ? x : null;
      });
      expect(rec.carrierMessageId).toBe(`phones/${to}/agentMessages/${id}`);
    }
    expect(rbm.problems).toEqual([]);
    // One exchange for all of them, and every API call carried its token.
    expect(rbm.tokenExchanges).toBe(1);
    const apiCalls = rbm.requests.filter((r) => r.path.startsWith('/v1/'));
    expect(apiCalls.every((r) => r.authorization !== undefined && rbm.validTokens.has(r.authorization.slice('Bearer '.length)))).toBe(true);
    expect(apiCalls.filter((r) => r.path.endsWith('/capabilities')).every((r) => r.query.requestId && r.query.agentId === rbm.agentId)).toBe(true);
  });

  it('is idempotent by messageId: a repeated hand-over stores one message and counts as sent', async () => {
    const m = { messageId: 'msg_01HZZZZZZZZZZZZZZZZZZZZZZZ', accountId: t.account.accountId, senderId: t.account.senders.rcs, senderName: 'x', to: num(1), messageType: 'text', content: { text: 'once' } };
    const first = await carrier.send(m);
    const second = await carrier.send(m);
    expect(first).toEqual({ ok: true, carrierMessageId: `phones/${num(1)}/agentMessages/${m.messageId}` });
    expect(second).toEqual({ ok: true, carrierMessageId: `phones/${num(1)}/agentMessages/${m.messageId}` });
    expect([...rbm.messages.values()].filter((x) => x.messageId === m.messageId)).toHaveLength(1);
    const creates = rbm.requests.filter((r) => r.method === 'POST' && r.query.messageId === m.messageId);
    expect(creates).toHaveLength(2);
  });

  it('retries a lost answer through the engine without a second message (409 ALREADY_EXISTS)', async () => {
    const to = num(2);
    rbm.storeThenFail.set(to, 503);
    const r = await send(to, 'text', { text: 'Lost answer' });
    const id = r.body.messageRecordId as string;
    const rec = await until('SENT after retry', async () => {
      const x = await record(id);
      return x?.status === 'SENT' ? x : null;
    });
    expect(rec.fallbackUsed ?? false).toBe(false);
    expect([...rbm.messages.values()].filter((x) => x.messageId === id)).toHaveLength(1);
    expect(rbm.requests.filter((x) => x.method === 'POST' && x.query.messageId === id).length).toBeGreaterThanOrEqual(2);
  });

  it('retries 429 and 5xx with backoff and keeps the carrier code while waiting', async () => {
    const to = num(3);
    rbm.failNext.set(to, [429]);
    const r = await send(to, 'text', { text: 'Throttled first' });
    const id = r.body.messageRecordId as string;
    const raw = await t.ctx.db.selectFrom('messages').select(['error', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(raw.error).toMatch(/^RBM_429_RESOURCE_EXHAUSTED: .*will retry/);
    await until('SENT after 429', async () => (await record(id))?.status === 'SENT');
  });

  it('a permanent RBM error keeps its code in error (after falling back when there is no fallback)', async () => {
    const to = num(4);
    rbm.failNext.set(to, [400]);
    const r = await send(to, 'text', { text: 'Bad' });
    const rec = await until('FAILED', async () => {
      const x = await record(r.body.messageRecordId as string);
      return x?.status === 'FAILED' ? x : null;
    });
    expect(rec.error).toContain('RBM_400_INVALID_ARGUMENT');
  });

  it('falls back to SMS when the capability check answers 404 (not RCS-capable)', async () => {
    const to = num(5);
    rbm.nonRcs.add(to);
    const r = await send(to, 'text', { text: 'Hi there' }, { smsFallback: { message: 'Hi there (SMS)', sendernameId: t.account.senders.sms } });
    expect(r.status).toBe(200);
    const id = (r.body.messageRecordId ?? r.body.messageId) as string;
    const rec = await until('fallback sent', async () => {
      const x = await record(id);
      return x && x.status !== 'SENDING' && x.status !== 'SCHEDULED' ? x : null;
    });
    expect(rec.type).toBe('RCS');
    expect(['SENT', 'DELIVERED', 'READ']).toContain(rec.status);
    const raw = await t.ctx.db.selectFrom('messages').select(['method', 'fallback_used', 'fallback_reason']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(raw).toEqual({ method: 'SMS', fallback_used: 1, fallback_reason: 'RCS_NOT_SUPPORTED' });
    expect(rbm.messages.has(id)).toBe(false);
    expect(rbm.requests.some((x) => x.path === `/v1/phones/${to}/capabilities`)).toBe(true);
  });

  it('answers the webhook verification handshake only for our client token', async () => {
    const ok = await fetch(`${t.url}/webhooks/rbm`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientToken: CLIENT_TOKEN, secret: '1234567890' }) });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1234567890');
    const bad = await fetch(`${t.url}/webhooks/rbm`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientToken: 'someone-else-token', secret: '1' }) });
    expect(bad.status).toBe(403);
  });

  it('applies signed DELIVERED and READ events and refuses unsigned or wrongly signed ones', async () => {
    const to = num(6);
    const r = await send(to, 'text', { text: 'Track me' });
    const id = r.body.messageRecordId as string;
    await until('SENT', async () => (await record(id))?.status === 'SENT');
    const event = (eventType: string) => ({ senderPhoneNumber: to, eventType, eventId: `ev-${eventType}`, messageId: id, sendTime: new Date().toISOString(), agentId: `${rbm.agentId}@rbm.goog` });

    expect((await webhook(event('DELIVERED'), 'wrong-token-000000')).status).toBe(401);
    expect((await webhook(event('DELIVERED'), CLIENT_TOKEN, 'AAAA')).status).toBe(401);
    expect((await record(id)).status).toBe('SENT');

    expect((await webhook(event('IS_TYPING'))).status).toBe(200);
    expect((await webhook(event('DELIVERED'))).status).toBe(200);
    expect((await record(id)).status).toBe('DELIVERED');
    expect((await webhook(event('READ'))).status).toBe(200);
    const rec = await record(id);
    expect(rec.status).toBe('READ');
    expect(rec.readAt).not.toBeNull();
  });

  it('turns user messages into inbound messages and chip taps into interactions (and the unsubscribe chip into an opt-out)', async () => {
    const to = num(7);
    const chips = CONTENT_CASES.find((c) => c.name === 'text-all-chips')!;
    const r = await send(to, 'text', chips.content);
    const id = r.body.messageRecordId as string;
    await until('SENT', async () => (await record(id))?.status === 'SENT');
    const base = { senderPhoneNumber: to, sendTime: new Date().toISOString(), agentId: `${rbm.agentId}@rbm.goog` };

    expect((await webhook({ ...base, messageId: 'user-msg-1', text: 'Hello, is the sale still on?' })).status).toBe(200);
    const inbound = await t.ctx.db.selectFrom('messages').selectAll().where('direction', '=', 'INBOUND').where('carrier_message_id', '=', 'user-msg-1').executeTakeFirstOrThrow();
    expect(inbound).toMatchObject({ type: 'RCS', status: 'RECEIVED', text: 'Hello, is the sale still on?', sendername_id: t.account.senders.rcs, phone: to.slice(1) });
    // The same user message delivered twice is recorded once.
    expect((await webhook({ ...base, messageId: 'user-msg-1', text: 'Hello, is the sale still on?' })).status).toBe(200);
    expect(await t.ctx.db.selectFrom('messages').select('id').where('carrier_message_id', '=', 'user-msg-1').execute()).toHaveLength(1);

    // A reply chip with postbackData, one without, and an action chip.
    await webhook({ ...base, messageId: 'user-msg-2', suggestionResponse: { postbackData: 'answer=yes', text: 'Yes please', type: 'REPLY' } });
    await webhook({ ...base, messageId: 'user-msg-3', suggestionResponse: { postbackData: 'rcsx:reply', text: 'No thanks', type: 'REPLY' } });
    await webhook({ ...base, messageId: 'user-msg-4', suggestionResponse: { postbackData: 'rcsx:dial', text: 'Call us', type: 'ACTION' } });
    const taps = await t.ctx.db.selectFrom('interactions').select(['message_id', 'action_type', 'button_text', 'postback_data']).where('phone', '=', to.slice(1)).where('type', '=', 'button_click').orderBy('occurred_at').orderBy('id').execute();
    expect(taps).toEqual([
      { message_id: id, action_type: 'reply', button_text: 'Yes please', postback_data: 'answer=yes' },
      { message_id: id, action_type: 'reply', button_text: 'No thanks', postback_data: null },
      { message_id: id, action_type: 'action', button_text: 'Call us', postback_data: null },
    ]);

    // The unsubscribe chip: a tap, and the stop keyword on the inbound path → opted out.
    await webhook({ ...base, messageId: 'user-msg-5', suggestionResponse: { postbackData: 'rcsx:unsubscribe:STOP', text: 'Unsubscribe', type: 'REPLY' } });
    const optOut = await t.ctx.db.selectFrom('opt_outs').selectAll().where('account_id', '=', t.account.accountId).where('phone', '=', to.slice(1)).executeTakeFirst();
    // RBM reports the chip's postback: told apart from a typed STOP, on the suppression list and the consent record.
    expect(optOut).toMatchObject({ source: 'chip', keyword: 'STOP' });
    const recorded = await t.ctx.db.selectFrom('consent_events').selectAll().where('account_id', '=', t.account.accountId).where('phone', '=', to.slice(1)).execute();
    expect(recorded).toEqual([expect.objectContaining({ kind: 'opt_out', source: 'chip', keyword: 'STOP', received_text: 'STOP' })]);
  });

  it('tells a card postback button from a reply chip', async () => {
    const to = num(8);
    const card = CONTENT_CASES.find((c) => c.name === 'richCard-vertical')!;
    const r = await send(to, 'richCard', card.content);
    const id = r.body.messageRecordId as string;
    await until('SENT', async () => (await record(id))?.status === 'SENT');
    const base = { senderPhoneNumber: to, sendTime: new Date().toISOString(), agentId: rbm.agentId };
    await webhook({ ...base, messageId: 'user-msg-10', suggestionResponse: { postbackData: 'buy:sku-42', text: 'Buy now', type: 'REPLY' } });
    await webhook({ ...base, messageId: 'user-msg-11', suggestionResponse: { postbackData: 'rcsx:postback', text: 'Details', type: 'REPLY' } });
    await webhook({ ...base, messageId: 'user-msg-12', suggestionResponse: { postbackData: 'later', text: 'Later', type: 'REPLY' } });
    const taps = await t.ctx.db.selectFrom('interactions').select(['message_id', 'action_type', 'postback_data']).where('phone', '=', to.slice(1)).orderBy('occurred_at').orderBy('id').execute();
    expect(taps).toEqual([
      { message_id: id, action_type: 'postback', postback_data: 'buy:sku-42' },
      { message_id: id, action_type: 'postback', postback_data: null },
      { message_id: id, action_type: 'reply', postback_data: 'later' },
    ]);
  });

  it('revokes a message RBM has not delivered', async () => {
    const m = { messageId: 'msg_01HYYYYYYYYYYYYYYYYYYYYYYY', accountId: t.account.accountId, senderId: t.account.senders.rcs, senderName: 'x', to: num(9), messageType: 'text', content: { text: 'take back' } };
    expect((await carrier.send(m)).ok).toBe(true);
    expect(await carrier.revoke({ messageId: m.messageId, to: m.to, senderId: m.senderId })).toBe(true);
    expect(rbm.messages.has(m.messageId)).toBe(false);
    expect(await carrier.revoke({ messageId: m.messageId, to: m.to, senderId: m.senderId })).toBe(false);
    expect(rbm.requests.some((r) => r.method === 'DELETE' && r.path === `/v1/phones/${m.to}/agentMessages/${m.messageId}` && r.query.agentId === rbm.agentId)).toBe(true);
  });

  it('gets a new token when RBM answers 401', async () => {
    const before = rbm.tokenExchanges;
    rbm.validTokens.clear();
    const m = { messageId: 'msg_01HXXXXXXXXXXXXXXXXXXXXXXX', accountId: t.account.accountId, senderId: t.account.senders.rcs, senderName: 'x', to: num(10), messageType: 'textBasic', content: { text: 'after 401' } };
    expect((await carrier.send(m)).ok).toBe(true);
    expect(rbm.tokenExchanges).toBe(before + 1);
  });

  it('uses a per-sender agent override for sending and for attributing its webhook calls', async () => {
    const { setSenderCarrierConfig } = await import('../../src/senders/carrier-config.js');
    rbm.agentIds.add('other_agent');
    const sender = await t.ctx.services.senders.create(t.account.accountId, { name: 'Other Agent', type: 'RCS', status: 'APPROVED' });
    await setSenderCarrierConfig(t.ctx.db, sender.id, { rbm: { agentId: 'other_agent@rbm.goog' } });
    expect(await carrier.agentFor(sender.id)).toEqual({ agentId: 'other_agent@rbm.goog', serviceAccountFile: rbm.serviceAccountFile, clientToken: CLIENT_TOKEN });
    const to = num(11);
    const r = await send(to, 'text', { text: 'From the other agent' }, { sendernameId: sender.id });
    const id = r.body.messageRecordId as string;
    const stored = await until('RBM to receive it', async () => rbm.messages.get(id));
    expect(stored.agentId).toBe('other_agent');
    await webhook({ senderPhoneNumber: to, messageId: 'user-msg-20', sendTime: new Date().toISOString(), text: 'Reply to other', agentId: 'other_agent@rbm.goog' });
    const inbound = await t.ctx.db.selectFrom('messages').select('sendername_id').where('carrier_message_id', '=', 'user-msg-20').executeTakeFirstOrThrow();
    expect(inbound.sendername_id).toBe(sender.id);
    expect(rbm.problems).toEqual([]);
  });

  it.skipIf(onPostgres)('looks up the message a tap answers, and an inbound message, through an index on the number (SQLite plans)', () => {
    // Runs last: the statements the taps above ran. A tap's look-up once read the whole table
    // (no index starts with the sender).
    const raw = sqliteHandle(t.ctx.database);
    const byPhone = recorder!.statements().filter((q) => q.includes('from "messages"') && q.includes('"phone" = ?') && q.includes('"sendername_id" = ?'));
    expect(byPhone.length).toBeGreaterThan(0);
    expect(phoneLookupsWithoutPhoneIndex(raw, recorder!.statements())).toEqual([]);
  });
});

describe('service-account token', () => {
  it('a missing or broken key file stops the start, naming the variable', async () => {
    const { openTestDatabase } = await import('../helpers/database.js');
    const { SenderDirectory } = await import('../../src/carriers/sender-config.js');
    const { createLogger } = await import('../../src/platform/logger.js');
    const database = await openTestDatabase();
    try {
      const make = (file: string) =>
        new RbmCarrier(database.db, { now: () => Date.now() }, createLogger('silent'), { endpoint: 'http://127.0.0.1:9', agent: { agentId: 'a', serviceAccountFile: file, clientToken: 'token-123456' } }, new SenderDirectory(database.db));
      await expect(make('/nonexistent/sa.json').start(async (e) => e.map(() => true))).rejects.toThrow(/RBM_SERVICE_ACCOUNT_FILE: Cannot read/);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-'));
      const broken = path.join(dir, 'sa.json');
      fs.writeFileSync(broken, JSON.stringify({ client_email: 'x@y', private_key: 'not a key' }));
      try {
        await expect(make(broken).start(async (e) => e.map(() => true))).rejects.toThrow(/RBM_SERVICE_ACCOUNT_FILE: .*not an RSA PKCS#8 key/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      await database.close();
    }
  });

  it('is refreshed before it expires', async () => {
    const rbm = await startFakeRbm();
    try {
      rbm.tokenLifetimeSeconds = 600;
      let now = Date.now();
      const source = new ServiceAccountTokenSource(rbm.serviceAccountFile, () => now);
      const [a, b] = await Promise.all([source.token(), source.token()]);
      expect(a).toBe(b);
      expect(rbm.tokenExchanges).toBe(1);
      now += 4 * 60_000; // 6 minutes left: still fine
      expect(await source.token()).toBe(a);
      now += 2 * 60_000; // 4 minutes left: inside the 5-minute margin → refreshed
      const c = await source.token();
      expect(c).not.toBe(a);
      expect(rbm.tokenExchanges).toBe(2);
      expect(rbm.problems).toEqual([]);
    } finally {
      await rbm.close();
    }
  });
});
