import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageContentSchema, MessageLogRecordSchema } from '../../../src/messaging/records.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { creditsOf, de, waitForStatus } from './util.js';

/** The message log under {messages_url} (spec §4.3, §2.7, §3.1): filters, paging, 400s, content, cancel, tenancy. */
let t: TestServer;
let acc: TestAccount;
let other: TestAccount;
let seq = 0;
const fresh = (last4 = '0001') => de(6000 + ++seq, last4);
const log = (query: string, key = acc.apiKey) => t.api('GET', `/api/messages/log${query ? `?${query}` : ''}`, undefined, { key });

const ids = { rcs: '', sms: '', failed: '', scheduled: '', otherRcs: '' };
let rcsPhone = '';

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount();
  other = await t.createAccount();
  rcsPhone = fresh();
  const rcs = await t.api('POST', '/api/rcs/send', { phoneNumber: rcsPhone, messageType: 'richCard', content: { title: 'Card', description: 'Details' }, sendernameId: acc.senders.rcs, campaignName: 'autumn', smsFallback: { message: 'Card by SMS', sendernameId: acc.senders.sms } }, { key: acc.apiKey });
  ids.rcs = rcs.body.messageRecordId;
  ids.sms = (await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: 'Plain SMS', sendernameId: acc.senders.sms, campaignName: 'autumn' }, { key: acc.apiKey })).body.messageId;
  ids.failed = (await t.api('POST', '/api/rcs/send', { phoneNumber: fresh('9992'), messageType: 'text', content: { text: 'Lost' }, sendernameId: acc.senders.rcs }, { key: acc.apiKey })).body.messageRecordId;
  ids.scheduled = (await t.api('POST', '/api/rcs/send', { phoneNumber: fresh(), messageType: 'text', content: { text: 'Later' }, sendernameId: acc.senders.rcs, scheduleAt: '2031-05-01T09:00:00' }, { key: acc.apiKey })).body.messageId;
  ids.otherRcs = (await t.api('POST', '/api/rcs/send', { phoneNumber: fresh(), messageType: 'text', content: { text: 'Not yours' }, sendernameId: other.senders.rcs }, { key: other.apiKey })).body.messageRecordId;
  for (const id of Object.values(ids)) expect(id).toMatch(/^msg_/);
  await waitForStatus(t, ids.rcs, ['READ'], acc.apiKey);
  await waitForStatus(t, ids.sms, ['READ'], acc.apiKey);
});
afterAll(async () => {
  await t.close();
});

describe('GET /log', () => {
  it('lists the account\'s messages newest first as §2.7 records, with the pagination object', async () => {
    const r = await log('');
    expect(r.status).toBe(200);
    expect(r.body.messages.map((m: any) => m.id)).toEqual([ids.scheduled, ids.failed, ids.sms, ids.rcs]);
    for (const m of r.body.messages) expect(MessageLogRecordSchema.parse(m)).toBeTruthy();
    expect(r.body.pagination).toEqual({ nextCursor: null, hasNext: false, limit: 50, count: 4 });
    const rcs = r.body.messages.find((m: any) => m.id === ids.rcs);
    expect(rcs).toMatchObject({ type: 'RCS', status: 'READ', direction: 'OUTBOUND', source: 'API_MESSAGE', phoneNumber: rcsPhone, campaignName: 'autumn', sendernameId: acc.senders.rcs, smsFallback: { message: 'Card by SMS', sendernameId: acc.senders.sms }, creditsCost: 0.035, error: null });
    expect(rcs.content).toContain('Card');
  });

  it('filters by messageId (no date range needed), phone (with or without +), campaign, status, type and direction', async () => {
    expect((await log(`messageId=${ids.sms}`)).body.messages.map((m: any) => m.id)).toEqual([ids.sms]);
    expect((await log(`messageId=${ids.sms}&startDate=2020-01-01T00:00:00Z&endDate=2020-01-02T00:00:00Z`)).body.messages).toHaveLength(1);
    expect((await log(`phoneNumber=${encodeURIComponent(rcsPhone)}`)).body.messages.map((m: any) => m.id)).toEqual([ids.rcs]);
    expect((await log(`phoneNumber=${rcsPhone.slice(1)}`)).body.messages.map((m: any) => m.id)).toEqual([ids.rcs]);
    expect((await log('campaignName=autumn')).body.messages.map((m: any) => m.id)).toEqual([ids.sms, ids.rcs]);
    expect((await log('campaignName=autum')).body.messages).toEqual([]);
    expect((await log('status=FAILED,SCHEDULED')).body.messages.map((m: any) => m.id)).toEqual([ids.scheduled, ids.failed]);
    expect((await log('status=read')).body.messages.map((m: any) => m.id)).toEqual([ids.sms, ids.rcs]);
    expect((await log('type=sms')).body.messages.map((m: any) => m.id)).toEqual([ids.sms]);
    expect((await log('type=RCS,mms')).body.messages).toHaveLength(3);
    expect((await log('type=mms')).body.messages).toEqual([]);
    expect((await log('direction=OUTBOUND')).body.messages).toHaveLength(4);
    expect((await log('direction=INBOUND')).body.messages).toEqual([]);
  });

  it('walks pages with the cursor, each message once', async () => {
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 5; page++) {
      const r = await log(`limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.pagination.limit).toBe(1);
      seen.push(...r.body.messages.map((m: any) => m.id));
      if (!r.body.pagination.hasNext) {
        expect(r.body.pagination.nextCursor).toBeNull();
        break;
      }
      cursor = r.body.pagination.nextCursor;
    }
    expect(seen).toEqual([ids.scheduled, ids.failed, ids.sms, ids.rcs]);
    // limit 500 is the maximum
    expect((await log('limit=500')).status).toBe(200);
  });

  it('answers 400 for bad dates, ranges, cursors, limits and filter values', async () => {
    const now = Date.now();
    const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    const cases: Array<[string, string]> = [
      [`startDate=${iso(now - 32 * 86_400_000)}&endDate=${iso(now)}`, 'range_too_long'],
      [`startDate=${iso(now - 40 * 86_400_000)}`, 'range_too_long'],
      [`startDate=${iso(now)}&endDate=${iso(now - 1000)}`, 'invalid_range'],
      ['startDate=yesterday', 'custom'],
      ['endDate=2026-13-45', 'custom'],
      ['cursor=%%%', 'invalid_cursor'],
      ['cursor=bm90LWEtY3Vyc29y', 'invalid_cursor'],
      ['limit=0', 'too_small'],
      ['limit=501', 'too_big'],
      ['limit=ten', 'invalid_type'],
      ['status=SENT,LOST', 'invalid_enum'],
      ['type=fax', 'invalid_enum'],
      ['messageId=123', 'invalid_id'],
      ['color=blue', 'unknown_field'],
    ];
    for (const [query, code] of cases) {
      const r = await log(query);
      expect(r.status, query).toBe(400);
      expect(r.body.error.details[0].code, query).toBe(code);
    }
    // Exactly 31 days is allowed.
    expect((await log(`startDate=${iso(now - 31 * 86_400_000)}&endDate=${iso(now)}`)).status).toBe(200);
    // A cursor of another list is refused too.
    const contacts = await t.api('GET', '/api/v1/contacts?limit=1', undefined, { key: acc.apiKey });
    if (contacts.body.pagination.nextCursor) expect((await log(`cursor=${contacts.body.pagination.nextCursor}`)).status).toBe(400);
  });

  it('defaults to the last 7 days: a range in the past is empty', async () => {
    expect((await log('startDate=2026-01-01T00:00:00Z&endDate=2026-01-31T00:00:00Z')).body.messages).toEqual([]);
  });
});

describe('GET /{id}/content (spec §2.7)', () => {
  it('returns the structured RCS content and the flat text', async () => {
    const r = await t.api('GET', `/api/messages/${ids.rcs}/content`, undefined, { key: acc.apiKey });
    expect(r.status).toBe(200);
    expect(MessageContentSchema.parse(r.body)).toBeTruthy();
    expect(r.body.message).toMatchObject({
      id: ids.rcs,
      type: 'RCS',
      status: 'READ',
      direction: 'OUTBOUND',
      source: 'API_MESSAGE',
      phoneNumber: rcsPhone,
      messageType: 'richCard',
      content: { title: 'Card', description: 'Details' },
      text: 'Card by SMS',
      error: null,
      smsFallback: { message: 'Card by SMS', sendernameId: acc.senders.sms },
      campaignName: 'autumn',
      sendernameId: acc.senders.rcs,
    });
    expect(r.body.message.sentAt).not.toBeNull();
  });

  it('carries the failure reason of a failed message', async () => {
    const r = await t.api('GET', `/api/messages/${ids.failed}/content`, undefined, { key: acc.apiKey });
    expect(r.body.message).toMatchObject({ status: 'FAILED', sentAt: null });
    expect(r.body.message.error).toMatch(/unreachable/i);
  });

  it('400 for a malformed id, 404 for an unknown or foreign one', async () => {
    expect((await t.api('GET', '/api/messages/nope/content', undefined, { key: acc.apiKey })).status).toBe(400);
    expect((await t.api('GET', '/api/messages/msg_01J0000000000000000000000Z/content', undefined, { key: acc.apiKey })).status).toBe(404);
    expect((await t.api('GET', `/api/messages/${ids.otherRcs}/content`, undefined, { key: acc.apiKey })).status).toBe(404);
    expect((await t.api('GET', `/api/messages/${ids.otherRcs}/content`, undefined, { key: other.apiKey })).status).toBe(200);
  });
});

describe('DELETE /{id} (spec §3.1)', () => {
  it('403 without messages:write; 400 malformed; 404 for sent, failed, unknown or foreign messages', async () => {
    const readOnly = await t.createKey(acc.accountId, ['messages:read']);
    const denied = await t.api('DELETE', `/api/messages/${ids.scheduled}`, undefined, { key: readOnly });
    expect(denied.status).toBe(403);
    expect(denied.body.error.requiredPermission).toBe('messages:write');
    expect((await t.api('DELETE', '/api/messages/12345', undefined, { key: acc.apiKey })).status).toBe(400);
    for (const id of [ids.rcs, ids.sms, ids.failed, 'msg_01J0000000000000000000000Z']) {
      expect((await t.api('DELETE', `/api/messages/${id}`, undefined, { key: acc.apiKey })).status, id).toBe(404);
    }
    // Another account cannot cancel (or even see) this account's scheduled message.
    expect((await t.api('DELETE', `/api/messages/${ids.scheduled}`, undefined, { key: other.apiKey })).status).toBe(404);
    expect((await log(`messageId=${ids.scheduled}`, other.apiKey)).body.messages).toEqual([]);
  });

  it('cancels a SCHEDULED message: removed from the log, refunded, then 404', async () => {
    const before = await creditsOf(t, acc.accountId);
    const r = await t.api('DELETE', `/api/messages/${ids.scheduled}`, undefined, { key: acc.apiKey });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, messageId: ids.scheduled, cancelled: true, creditsRefunded: 0.035 });
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before + 0.035, 6);
    expect((await log(`messageId=${ids.scheduled}`)).body.messages).toEqual([]);
    expect((await log('status=SCHEDULED')).body.messages).toEqual([]);
    expect((await t.api('GET', `/api/messages/${ids.scheduled}/content`, undefined, { key: acc.apiKey })).status).toBe(404);
    expect((await t.api('DELETE', `/api/messages/${ids.scheduled}`, undefined, { key: acc.apiKey })).status).toBe(404);
    // Its single-message job shows the cancellation.
    const jobs = await t.api('GET', '/api/rcs/jobs?type=scheduled', undefined, { key: acc.apiKey });
    expect(jobs.body.data[0]).toMatchObject({ status: 'cancelled', progress: { total: 1, pending: 0, cancelled: 1 } });
  });
});

describe('tenant isolation of the log', () => {
  it('another account sees only its own messages', async () => {
    const r = await log('', other.apiKey);
    expect(r.body.messages.map((m: any) => m.id)).toEqual([ids.otherRcs]);
    expect((await log(`messageId=${ids.rcs}`, other.apiKey)).body.messages).toEqual([]);
    expect((await log(`phoneNumber=${encodeURIComponent(rcsPhone)}`, other.apiKey)).body.messages).toEqual([]);
  });

  it('needs a key with messages:read', async () => {
    expect((await t.api('GET', '/api/messages/log', undefined, { key: null })).status).toBe(401);
    const contactsOnly = await t.createKey(acc.accountId, ['contacts:read']);
    const r = await log('', contactsOnly);
    expect(r.status).toBe(403);
    expect(r.body.error.requiredPermission).toBe('messages:read');
    expect((await t.api('GET', `/api/messages/${ids.rcs}/content`, undefined, { key: contactsOnly })).status).toBe(403);
  });
});
