import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageLogRecordSchema } from '../../../src/messaging/records.js';
import { SendMessageResponseSchema } from '../../../src/messaging/schemas.js';
import { withOtherConnection } from '../../helpers/database.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { settled } from '../../helpers/settled.js';
import { creditsOf, de, logRecord, messageRow, rcsText, sha256Hex, simRows, waitForStatus } from './util.js';

/**
 * POST /send end to end on the simulated network (spec §4.1, §2.12, §2.13, §3.2; DESIGN §5):
 * log rows, statuses, credits, contacts, merge fields, fallback, test senders.
 */
let t: TestServer;
let acc: TestAccount;
let seq = 0;
/** A fresh RCS-capable number (…0001 style endings are "normal"). */
const fresh = (last4 = '0001') => de(2000 + ++seq, last4);

async function send(body: unknown, key?: string) {
  return t.api('POST', '/api/rcs/send', body, key ? { key } : {});
}

async function contactByPhone(phone: string) {
  const r = await t.api('GET', `/api/v1/contacts?phone=${encodeURIComponent(phone)}&include=customFields`, undefined, { key: acc.apiKey });
  expect(r.status).toBe(200);
  return r.body.data[0] as Record<string, any> | undefined;
}

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('GET /senders', () => {
  it('lists the account senders, filtered by type', async () => {
    const all = await t.api('GET', '/api/rcs/senders', undefined, { key: acc.apiKey });
    expect(all.status).toBe(200);
    expect(all.body.success).toBe(true);
    expect(all.body.count).toBe(3);
    expect(all.body.sendernames.map((s: any) => s.id).sort()).toEqual(Object.values(acc.senders).sort());
    const rcs = await t.api('GET', '/api/rcs/senders?type=RCS', undefined, { key: acc.apiKey });
    expect(rcs.body.count).toBe(2);
    expect(rcs.body.sendernames.every((s: any) => s.type === 'RCS')).toBe(true);
    const test = rcs.body.sendernames.find((s: any) => s.id === acc.senders.rcsTest);
    expect(test).toMatchObject({ isTest: true, status: 'APPROVED', testPhones: ['+4915550000001'] });
    const sms = await t.api('GET', '/api/rcs/senders?type=sms', undefined, { key: acc.apiKey });
    expect(sms.body.sendernames.map((s: any) => s.id)).toEqual([acc.senders.sms]);
    expect((await t.api('GET', '/api/rcs/senders?type=MMS', undefined, { key: acc.apiKey })).status).toBe(400);
    expect((await t.api('GET', '/api/rcs/senders', undefined, { key: null })).status).toBe(401);
  });

  it('shows every change at once, made in this process or by another one (the CLI), though it is kept in memory', async () => {
    const other = await t.createAccount();
    const list = async () => (await t.api('GET', '/api/rcs/senders?type=SMS', undefined, { key: other.apiKey })).body.sendernames as { id: string; status: string; name: string }[];
    const before = await list();
    expect(await list()).toEqual(before); // answered from memory, the same
    // In this process: a new sender, then an operator decision through the service.
    const added = await t.ctx.services.senders.create(other.accountId, { name: 'LATER', type: 'SMS', status: 'PENDING' });
    expect((await list()).map((s) => s.id)).toContain(added.id);
    await t.ctx.services.senders.setStatus(other.accountId, added.id, 'APPROVED');
    expect((await list()).find((s) => s.id === added.id)?.status).toBe('APPROVED');
    // Another connection, as the admin CLI in its own process would write.
    await withOtherConnection(t.ctx.config, (cli) => cli.updateTable('senders').set({ status: 'REJECTED', rejection_reason: 'by the CLI' }).where('id', '=', added.id).execute());
    expect((await list()).find((s) => s.id === added.id)?.status).toBe('REJECTED');
    // Another tenant's list is its own.
    expect((await t.api('GET', '/api/rcs/senders?type=SMS', undefined, { key: acc.apiKey })).body.sendernames.map((s: { id: string }) => s.id)).not.toContain(added.id);
  });

  it('hands out a frozen list: a caller cannot change what the next caller gets', async () => {
    const list = await t.ctx.services.senders.list(acc.accountId);
    expect(Object.isFrozen(list)).toBe(true);
    expect(Object.isFrozen(list[0])).toBe(true);
    expect(() => ((list[0] as unknown) as { name: string }).name = 'changed').toThrow(TypeError);
  });
});

describe('immediate RCS send', () => {
  it('answers with the real outcome, logs SENT → DELIVERED → READ, debits credits and creates the contact', async () => {
    const before = await creditsOf(t, acc.accountId);
    const to = fresh();
    const r = await send(rcsText(acc, to, 'Hello there'), acc.apiKey);
    expect(r.status).toBe(200);
    expect(SendMessageResponseSchema.parse(r.body)).toBeTruthy();
    expect(r.body).toMatchObject({ success: true, scheduled: false, method: 'RCS', countrySupported: true, fallbackUsed: false, queued: false, creditsEstimated: 0.035 });
    expect(r.body.messageRecordId).toMatch(/^msg_[0-9A-Z]{26}$/);
    expect(r.body).not.toHaveProperty('fallbackReason');
    expect(r.body).not.toHaveProperty('jobId');
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before - 0.035, 6);

    const rec = await waitForStatus(t, r.body.messageRecordId, ['READ'], acc.apiKey);
    expect(MessageLogRecordSchema.parse(rec)).toBeTruthy();
    expect(rec).toMatchObject({ type: 'RCS', direction: 'OUTBOUND', source: 'API_MESSAGE', phoneNumber: to, content: 'Hello there', method: 'RCS', creditsCost: 0.035, error: null, failedAt: null, scheduledAt: null, jobId: null });
    expect(Date.parse(rec.deliveredAt)).toBeGreaterThanOrEqual(Date.parse(rec.sentAt));
    expect(Date.parse(rec.readAt)).toBeGreaterThanOrEqual(Date.parse(rec.deliveredAt));
    expect(rec.carrierMessageId).toMatch(/^sim_/);

    // The carrier got it once, as RCS, under our message id.
    const sim = await simRows(t, r.body.messageRecordId);
    expect(sim).toHaveLength(1);
    expect(sim[0]).toMatchObject({ channel: 'RCS', to_phone: to, id: rec.carrierMessageId });
    expect(JSON.parse(sim[0]!.payload)).toEqual({ messageType: 'text', content: { text: 'Hello there' } });

    const contact = await contactByPhone(to);
    expect(contact).toBeDefined();
    expect(rec.contactId).toBe(contact!.id);
  });

  it('skipContactCreation sends without creating a contact', async () => {
    const to = fresh();
    const r = await send(rcsText(acc, to, 'No contact', { skipContactCreation: true }), acc.apiKey);
    expect(r.status).toBe(200);
    expect(await contactByPhone(to)).toBeUndefined();
    const rec = await waitForStatus(t, r.body.messageRecordId, ['SENT', 'DELIVERED', 'READ'], acc.apiKey);
    expect(rec.contactId).toBeNull();
  });

  it('sends to an existing contact by contactId; the number must match it', async () => {
    const to = fresh();
    const c = await t.api('POST', '/api/v1/contacts', { phone: to, firstName: 'Cleo' }, { key: acc.apiKey });
    expect(c.status).toBe(201);
    const ok = await send(rcsText(acc, to, 'Hi {{contact_first_name}}', { contactId: c.body.data.id }), acc.apiKey);
    expect(ok.status).toBe(200);
    expect((await messageRow(t, ok.body.messageRecordId))!.contact_id).toBe(c.body.data.id);
    expect((await messageRow(t, ok.body.messageRecordId))!.text).toBe('Hi Cleo');

    const mismatch = await send(rcsText(acc, fresh(), 'x', { contactId: c.body.data.id }), acc.apiKey);
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.details[0]).toMatchObject({ path: 'phoneNumber', code: 'contact_mismatch' });
    // Another account's contact is not found; a malformed id is a 400.
    const foreign = await t.api('POST', '/api/v1/contacts', { phone: fresh() }, { key: t.account.apiKey });
    expect((await send(rcsText(acc, to, 'x', { contactId: foreign.body.data.id }), acc.apiKey)).status).toBe(404);
    expect((await send(rcsText(acc, to, 'x', { contactId: 'ct_nope' }), acc.apiKey)).body.error.code).toBe('INVALID_ID');
  });
});

describe('merge fields (spec §2.13)', () => {
  let tierFieldCreated = false;
  async function ensureTier() {
    if (tierFieldCreated) return;
    const f = await t.api('POST', '/api/v1/contacts/fields', { name: 'Tier', tag: 'tier' }, { key: acc.apiKey });
    expect(f.status).toBe(201);
    tierFieldCreated = true;
  }

  it('fills contact, custom and company fields in the RCS body, per recipient', async () => {
    await ensureTier();
    const to = fresh();
    const c = await t.api('POST', '/api/v1/contacts', { phone: to, firstName: 'Anna', lastName: 'Berg', customFields: [{ tag: 'tier', value: 'gold' }] }, { key: acc.apiKey });
    expect(c.status).toBe(201);
    const r = await send(
      {
        phoneNumber: to,
        messageType: 'richCard',
        content: {
          title: 'Hi {{contact_first_name}} {{contact_last_name}}',
          description: 'Your {{tier}} offer from {{company_name}} for {{contact_phone}}',
          cardActions: [{ text: 'Open', type: 'openUrl', openUrlAction: { url: 'https://shop.example.com/?who={{contact_first_name}}' } }],
        },
        sendernameId: acc.senders.rcs,
      },
      acc.apiKey,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const content = await t.api('GET', `/api/messages/${r.body.messageRecordId}/content`, undefined, { key: acc.apiKey });
    expect(content.status).toBe(200);
    const company = (await t.ctx.services.accounts.get(acc.accountId)).companyProfile.company_name;
    expect(content.body.message.content).toMatchObject({
      title: 'Hi Anna Berg',
      description: `Your gold offer from ${company} for ${to}`,
      cardActions: [{ openUrlAction: { url: 'https://shop.example.com/?who=Anna' } }],
    });
    // The carrier got the merged content.
    const sim = await simRows(t, r.body.messageRecordId);
    expect(JSON.parse(sim[0]!.payload).content.title).toBe('Hi Anna Berg');
  });

  it('{{unsubscribe_link}} is a fresh per-recipient link on every send; only its hash is stored', async () => {
    const to = fresh();
    const urls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await send(rcsText(acc, to, 'Bye: {{unsubscribe_link}}', { smsFallback: { message: 'Stop: {{unsubscribe_link}}', sendernameId: acc.senders.sms } }), acc.apiKey);
      expect(r.status).toBe(200);
      const row = (await messageRow(t, r.body.messageRecordId))!;
      // Stored masked (link-tokens.ts); the carrier got the real link, derived from the message id.
      const stored_url = /Bye: (\S+)/.exec(row.text)![1]!;
      expect(stored_url).toBe(`${t.url}/u/${'*'.repeat(32)}`);
      // The fallback of the same send carries the same link.
      expect(row.fallback_text).toBe(`Stop: ${stored_url}`);
      const sim = await simRows(t, r.body.messageRecordId);
      const url = /Bye: (\S+)/.exec(t.ctx.links.reveal(JSON.parse(sim[0]!.payload).content.text, r.body.messageRecordId))![1]!;
      expect(url).toMatch(new RegExp(`^${t.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/u/[A-Za-z0-9_-]{32}$`));
      const token = url.split('/u/')[1]!;
      const stored = await t.ctx.db.selectFrom('unsubscribe_tokens').selectAll().where('message_id', '=', r.body.messageRecordId).execute();
      expect(stored).toHaveLength(1);
      expect(stored[0]!.token_hash).toBe(sha256Hex(token));
      expect(stored[0]!.token_hash).not.toContain(token);
      expect(stored[0]!.contact_id).toBe(row.contact_id);
      urls.push(url);
    }
    expect(urls[0]).not.toBe(urls[1]);
  });

  it('leaves {{unsubscribe_link}} as written and empties contact fields when skipContactCreation meets an unknown number', async () => {
    const to = fresh();
    const r = await send(rcsText(acc, to, 'Hi {{contact_first_name}}! {{unsubscribe_link}}', { skipContactCreation: true }), acc.apiKey);
    expect(r.status).toBe(200);
    const row = (await messageRow(t, r.body.messageRecordId))!;
    expect(row.text).toBe('Hi ! {{unsubscribe_link}}');
    expect(await t.ctx.db.selectFrom('unsubscribe_tokens').select('token_hash').where('message_id', '=', row.id).execute()).toEqual([]);
  });

  it('uses the account custom unsubscribe URL instead of a token when one is set', async () => {
    const other = await t.createAccount();
    await t.ctx.services.accounts.updateSettings(other.accountId, { unsubscribeUrl: 'https://example.com/optout' });
    const r = await send(rcsText(other, fresh(), 'Leave: {{unsubscribe_link}}'), other.apiKey);
    expect(r.status).toBe(200);
    expect((await messageRow(t, r.body.messageRecordId))!.text).toBe('Leave: https://example.com/optout');
  });
});

describe('SMS fallback on the simulated test numbers', () => {
  it('…9990 (not RCS-capable) goes out as the merged SMS fallback, billed as SMS segments', async () => {
    const to = fresh('9990');
    const before = await creditsOf(t, acc.accountId);
    const r = await send(rcsText(acc, to, 'Rich hello', { smsFallback: { message: 'Plain hello from {{company_name}}', sendernameId: acc.senders.sms } }), acc.apiKey);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, method: 'SMS', fallbackUsed: true, fallbackReason: 'RCS_NOT_SUPPORTED', countrySupported: true, creditsEstimated: 0.085 });
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before - 0.085, 6);
    const sim = await simRows(t, r.body.messageRecordId);
    expect(sim).toHaveLength(1);
    const company = (await t.ctx.services.accounts.get(acc.accountId)).companyProfile.company_name;
    expect(sim[0]).toMatchObject({ channel: 'SMS', sender_id: acc.senders.sms });
    expect(JSON.parse(sim[0]!.payload)).toMatchObject({ text: `Plain hello from ${company}`, encoding: 'GSM-7', parts: [`Plain hello from ${company}`] });
    const rec = await waitForStatus(t, r.body.messageRecordId, ['READ'], acc.apiKey);
    expect(rec).toMatchObject({ method: 'SMS', fallbackUsed: true, fallbackReason: 'RCS_NOT_SUPPORTED', creditsCost: 0.085, smsSegments: 1 });
  });

  it('…9991 (RCS fails at the carrier) falls back to SMS', async () => {
    const r = await send(rcsText(acc, fresh('9991'), 'Rich', { smsFallback: { message: 'Plain', sendernameId: acc.senders.sms } }), acc.apiKey);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, method: 'SMS', fallbackUsed: true, fallbackReason: 'RCS_FAILED: SIM_RCS_DELIVERY_FAILED' });
  });

  it('…9990 without a fallback FAILS and is refunded', async () => {
    const before = await creditsOf(t, acc.accountId);
    const r = await send(rcsText(acc, fresh('9990'), 'Rich only'), acc.apiKey);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: false, status: 'FAILED', method: null, creditsEstimated: 0 });
    expect(r.body.error).toMatch(/cannot receive RCS/);
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before, 6);
    const rec = await logRecord(t, r.body.messageRecordId, acc.apiKey);
    expect(rec).toMatchObject({ status: 'FAILED', creditsCost: 0, sentAt: null });
    expect(rec!.failedAt).not.toBeNull();
    expect(await simRows(t, r.body.messageRecordId)).toEqual([]);
  });

  it('…9992 (unreachable on both channels) FAILS even with a fallback, refunded, nothing at the carrier', async () => {
    const before = await creditsOf(t, acc.accountId);
    const r = await send(rcsText(acc, fresh('9992'), 'Rich', { smsFallback: { message: 'Plain', sendernameId: acc.senders.sms } }), acc.apiKey);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: false, status: 'FAILED', fallbackUsed: true, fallbackReason: 'UNREACHABLE' });
    expect(r.body.error).toMatch(/SIM_UNREACHABLE/);
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before, 6);
    expect(await simRows(t, r.body.messageRecordId)).toEqual([]);
  });

  it('…9994 is accepted, then delivery fails asynchronously (FAILED with the reason)', async () => {
    const r = await send(rcsText(acc, fresh('9994'), 'Hello'), acc.apiKey);
    expect(r.body.success).toBe(true);
    const rec = await waitForStatus(t, r.body.messageRecordId, ['FAILED'], acc.apiKey);
    expect(rec.error).toMatch(/SIM_DELIVERY_FAILED/);
    expect(rec.sentAt).not.toBeNull();
  });

  it('…9993 is delivered and never read', async () => {
    const r = await send(rcsText(acc, fresh('9993'), 'Hello'), acc.apiKey);
    await waitForStatus(t, r.body.messageRecordId, ['DELIVERED'], acc.apiKey);
    // Nothing left due at the simulated network (no read receipt waiting) and nothing left to apply: then still DELIVERED.
    await settled(t);
    expect((await logRecord(t, r.body.messageRecordId, acc.apiKey))!.status).toBe('DELIVERED');
  });
});

describe('senders (spec §3.2)', () => {
  it('a test sender sends free, and only to its test phones', async () => {
    const before = await creditsOf(t, acc.accountId);
    const ok = await send({ ...rcsText(acc, '+4915550000001', 'Test'), sendernameId: acc.senders.rcsTest }, acc.apiKey);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ success: true, creditsEstimated: 0 });
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before, 6);
    const refused = await send({ ...rcsText(acc, fresh(), 'Test'), sendernameId: acc.senders.rcsTest }, acc.apiKey);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('SENDER_NOT_ALLOWED');
  });

  it('refuses senders that are not APPROVED, of the wrong type, or another account\'s', async () => {
    const pending = await t.ctx.services.senders.create(acc.accountId, { name: 'Pending agent', type: 'RCS', status: 'PENDING' });
    const rejected = await t.ctx.services.senders.create(acc.accountId, { name: 'Rejected agent', type: 'RCS', status: 'PENDING' });
    await t.ctx.services.senders.setStatus(acc.accountId, rejected.id, 'REJECTED', 'Brand mismatch');
    const p = await send({ ...rcsText(acc, fresh(), 'x'), sendernameId: pending.id }, acc.apiKey);
    expect(p.status).toBe(400);
    expect(p.body.error.code).toBe('SENDER_NOT_APPROVED');
    const rj = await send({ ...rcsText(acc, fresh(), 'x'), sendernameId: rejected.id }, acc.apiKey);
    expect(rj.body.error.code).toBe('SENDER_NOT_APPROVED');
    expect(rj.body.error.message).toContain('Brand mismatch');
    const wrongType = await send({ ...rcsText(acc, fresh(), 'x'), sendernameId: acc.senders.sms }, acc.apiKey);
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details[0]).toMatchObject({ path: 'sendernameId', code: 'unknown_sender' });
    const foreign = await send({ ...rcsText(acc, fresh(), 'x'), sendernameId: t.account.senders.rcs }, acc.apiKey);
    expect(foreign.status).toBe(400);
    const badFallback = await send(rcsText(acc, fresh(), 'x', { smsFallback: { message: 'y', sendernameId: acc.senders.rcs } }), acc.apiKey);
    expect(badFallback.body.error.details[0]).toMatchObject({ path: 'smsFallback.sendernameId' });
  });

  it('skipContactCreation is refused for conversation-billing senders', async () => {
    const conv = await t.ctx.services.senders.create(acc.accountId, { name: 'Conv agent', type: 'RCS', status: 'APPROVED', supportsConversationBilling: true });
    const r = await send({ ...rcsText(acc, fresh(), 'x', { skipContactCreation: true }), sendernameId: conv.id }, acc.apiKey);
    expect(r.status).toBe(400);
    expect(r.body.error.details[0]).toMatchObject({ path: 'skipContactCreation', code: 'not_allowed' });
  });
});

describe('disabled contacts', () => {
  it('are skipped by default (400 CONTACT_DISABLED, nothing charged) and reachable with skipDisabled:false', async () => {
    const to = fresh();
    const c = await t.api('POST', '/api/v1/contacts', { phone: to }, { key: acc.apiKey });
    const d = await t.api('PATCH', '/api/v1/contacts/bulk/disable', { contactIds: [c.body.data.id] }, { key: acc.apiKey });
    expect(d.status).toBe(200);
    const before = await creditsOf(t, acc.accountId);
    const refused = await send(rcsText(acc, to, 'x'), acc.apiKey);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('CONTACT_DISABLED');
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before, 6);
    const sent = await send(rcsText(acc, to, 'x', { skipDisabled: false }), acc.apiKey);
    expect(sent.status).toBe(200);
    expect(sent.body.success).toBe(true);
  });
});

describe('authentication and permissions', () => {
  it('needs a key (401) with messages:write (403 names the permission); nothing is created', async () => {
    const to = fresh();
    const noKey = await t.api('POST', '/api/rcs/send', rcsText(acc, to, 'x'), { key: null });
    expect(noKey.status).toBe(401);
    const readOnly = await t.createKey(acc.accountId, ['messages:read', 'contacts:write']);
    for (const path of ['/api/rcs/send', '/api/rcs/send-sms', '/api/rcs/send-batch']) {
      const r = await t.api('POST', path, rcsText(acc, to, 'x'), { key: readOnly });
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: 'FORBIDDEN', requiredPermission: 'messages:write' });
    }
    expect(await contactByPhone(to)).toBeUndefined();
  });
});
