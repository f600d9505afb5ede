import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { creditsOf, de } from './util.js';

/**
 * Every 400 of spec §4.1 on /send, /send-batch and /send-sms (types, required fields, limits + 1),
 * country checks (§2.8, §4.7 rule 6) and credits — and that a refused request charges and stores
 * nothing.
 */
let t: TestServer;
let acc: TestAccount;
let seq = 0;
const fresh = () => de(4000 + ++seq);

const count = async (table: 'messages' | 'contacts' | 'jobs', accountId = acc.accountId) =>
  Number((await t.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()).n);

const rcs = (over: Record<string, unknown> = {}) => ({ phoneNumber: fresh(), messageType: 'text', content: { text: 'Hi' }, sendernameId: acc.senders.rcs, ...over });
const batch = (over: Record<string, unknown> = {}) => ({ phoneNumbers: [fresh(), fresh()], messageType: 'text', content: { text: 'Hi' }, sendernameId: acc.senders.rcs, ...over });
const sms = (over: Record<string, unknown> = {}) => ({ phoneNumber: fresh(), message: 'Hi', sendernameId: acc.senders.sms, ...over });

function without<T extends Record<string, unknown>>(o: T, key: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...o };
  delete copy[key];
  return copy;
}

/** Posts and expects a 400 whose details name `path` (and `code` when given). */
async function expect400(path: string, body: unknown, detailPath: string, code?: string, errorCode = 'VALIDATION_ERROR') {
  const r = await t.api('POST', path, body, { key: acc.apiKey });
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.success).toBe(false);
  expect(r.body.error.code).toBe(errorCode);
  const detail = (r.body.error.details ?? []).find((d: any) => d.path === detailPath);
  expect(detail, `no detail for ${detailPath} in ${JSON.stringify(r.body.error.details)}`).toBeDefined();
  if (code) expect(detail.code).toBe(code);
  return r;
}

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('POST /send body (spec §4.1)', () => {
  it('names every missing required field', async () => {
    for (const field of ['phoneNumber', 'sendernameId']) await expect400('/api/rcs/send', without(rcs(), field), field, 'required');
    await expect400('/api/rcs/send', without(rcs(), 'messageType'), 'messageType');
    await expect400('/api/rcs/send', without(rcs(), 'content'), 'content');
    const all = await t.api('POST', '/api/rcs/send', {}, { key: acc.apiKey });
    expect(all.status).toBe(400);
    expect(all.body.error.details.map((d: any) => d.path)).toEqual(expect.arrayContaining(['messageType', 'phoneNumber', 'sendernameId']));
  });

  it('refuses wrong types', async () => {
    await expect400('/api/rcs/send', rcs({ phoneNumber: 4915112345678 }), 'phoneNumber', 'invalid_type');
    await expect400('/api/rcs/send', rcs({ skipContactCreation: 'yes' }), 'skipContactCreation', 'invalid_type');
    await expect400('/api/rcs/send', rcs({ skipDisabled: 1 }), 'skipDisabled', 'invalid_type');
    await expect400('/api/rcs/send', rcs({ campaignName: 5 }), 'campaignName', 'invalid_type');
    await expect400('/api/rcs/send', rcs({ scheduleAt: 1767225600000 }), 'scheduleAt', 'invalid_type');
    await expect400('/api/rcs/send', rcs({ content: 'Hi' }), 'content');
    await expect400('/api/rcs/send', rcs({ messageType: 'fax' }), 'messageType');
    await expect400('/api/rcs/send', rcs({ smsFallback: 'Hi' }), 'smsFallback');
  });

  it('enforces limits at limit + 1', async () => {
    await expect400('/api/rcs/send', rcs({ campaignName: 'c'.repeat(101) }), 'campaignName', 'too_long');
    expect((await t.api('POST', '/api/rcs/send', rcs({ campaignName: 'c'.repeat(100) }), { key: acc.apiKey })).status).toBe(200);
    await expect400('/api/rcs/send', rcs({ content: { text: 't'.repeat(3073) } }), 'content.text');
    await expect400('/api/rcs/send', rcs({ messageType: 'textBasic', content: { text: 't'.repeat(161) } }), 'content.text');
    await expect400('/api/rcs/send', rcs({ smsFallback: { message: 'm'.repeat(1531), sendernameId: acc.senders.sms } }), 'smsFallback.message');
    await expect400('/api/rcs/send', rcs({ smsFallback: { message: 'm' } }), 'smsFallback.sendernameId');
    const chips = Array.from({ length: 12 }, (_, i) => ({ reply: { text: `c${i}`, postbackData: `p${i}` } }));
    await expect400('/api/rcs/send', rcs({ content: { text: 'Hi', suggestions: chips } }), 'content.suggestions');
  });

  it('refuses unknown fields, bad numbers, bad JSON and non-object bodies', async () => {
    await expect400('/api/rcs/send', rcs({ phoneNumbers: ['+4915112345678'] }), '', 'unknown_field');
    const badPhone = await t.api('POST', '/api/rcs/send', rcs({ phoneNumber: 'call me' }), { key: acc.apiKey });
    expect(badPhone.status).toBe(400);
    expect(badPhone.body.error.details[0]).toMatchObject({ path: 'phoneNumber', code: 'invalid_phone' });
    const national = await t.api('POST', '/api/rcs/send', rcs({ phoneNumber: '015112345678' }), { key: acc.apiKey });
    expect(national.status).toBe(400);
    const json = await t.api('POST', '/api/rcs/send', undefined, { key: acc.apiKey, rawBody: '{"phoneNumber": ' });
    expect(json.status).toBe(400);
    expect(json.body.error.code).toBe('INVALID_JSON');
    const arr = await t.api('POST', '/api/rcs/send', [rcs()], { key: acc.apiKey });
    expect(arr.status).toBe(400);
  });

  it('stored nothing for any of the refused requests', async () => {
    // Everything above that was refused left no message, job or contact behind (one 200 above).
    expect(await count('messages')).toBe(1);
    expect(await count('jobs')).toBe(0);
    expect(await count('contacts')).toBe(1);
  });
});

describe('POST /send-batch body (spec §4.1)', () => {
  it('phoneNumbers: required, non-empty array of strings, at most 10,000', async () => {
    await expect400('/api/rcs/send-batch', without(batch(), 'phoneNumbers'), 'phoneNumbers', 'required');
    await expect400('/api/rcs/send-batch', batch({ phoneNumbers: [] }), 'phoneNumbers', 'too_short');
    await expect400('/api/rcs/send-batch', batch({ phoneNumbers: '+4915112345678' }), 'phoneNumbers', 'invalid_type');
    await expect400('/api/rcs/send-batch', batch({ phoneNumbers: [4915112345678] }), 'phoneNumbers[0]', 'invalid_type');
    const many = Array.from({ length: 10_001 }, (_, i) => `+49151${String(50_000_000 + i)}`);
    await expect400('/api/rcs/send-batch', batch({ phoneNumbers: many }), 'phoneNumbers', 'too_long');
    expect(await count('jobs')).toBe(0);
  });

  it('batchSize 1–1000 and delayMs 0–10000, integers', async () => {
    await expect400('/api/rcs/send-batch', batch({ batchSize: 0 }), 'batchSize', 'too_small');
    await expect400('/api/rcs/send-batch', batch({ batchSize: 1001 }), 'batchSize', 'too_big');
    await expect400('/api/rcs/send-batch', batch({ batchSize: 2.5 }), 'batchSize');
    await expect400('/api/rcs/send-batch', batch({ batchSize: '10' }), 'batchSize', 'invalid_type');
    await expect400('/api/rcs/send-batch', batch({ delayMs: -1 }), 'delayMs', 'too_small');
    await expect400('/api/rcs/send-batch', batch({ delayMs: 10_001 }), 'delayMs', 'too_big');
    for (const ok of [{ batchSize: 1, delayMs: 0 }, { batchSize: 1000, delayMs: 10_000 }]) {
      const r = await t.api('POST', '/api/rcs/send-batch', batch(ok), { key: acc.apiKey });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      expect(r.body).toMatchObject(ok);
    }
  });

  it('has no phoneNumber or contactId, and answers 400 listing the reasons when no number is usable', async () => {
    await expect400('/api/rcs/send-batch', batch({ contactId: 'ct_01J00000000000000000000000' }), '', 'unknown_field');
    await expect400('/api/rcs/send-batch', batch({ phoneNumber: fresh() }), '', 'unknown_field');
    const r = await t.api('POST', '/api/rcs/send-batch', batch({ phoneNumbers: ['nope', '+49', '0151 1234567'] }), { key: acc.apiKey });
    expect(r.status).toBe(400);
    expect(r.body.error.rejected).toHaveLength(3);
    expect(r.body.error.rejected.map((x: any) => x.code)).toEqual(['INVALID_PHONE', 'INVALID_PHONE', 'INVALID_PHONE']);
  });

  it('campaignName at most 100 and the content validated once for the batch', async () => {
    await expect400('/api/rcs/send-batch', batch({ campaignName: 'c'.repeat(101) }), 'campaignName', 'too_long');
    await expect400('/api/rcs/send-batch', batch({ content: { text: '' } }), 'content.text');
  });
});

describe('POST /send-sms body (spec §4.1)', () => {
  it('requires phoneNumber, message and sendernameId with the right types and limits', async () => {
    for (const field of ['phoneNumber', 'message', 'sendernameId']) await expect400('/api/rcs/send-sms', without(sms(), field), field, 'required');
    await expect400('/api/rcs/send-sms', sms({ message: '' }), 'message', 'too_short');
    await expect400('/api/rcs/send-sms', sms({ message: 'm'.repeat(1531) }), 'message', 'too_long');
    await expect400('/api/rcs/send-sms', sms({ message: 42 }), 'message', 'invalid_type');
    await expect400('/api/rcs/send-sms', sms({ campaignName: 'c'.repeat(101) }), 'campaignName', 'too_long');
    await expect400('/api/rcs/send-sms', sms({ skipContactCreation: 'no' }), 'skipContactCreation', 'invalid_type');
    await expect400('/api/rcs/send-sms', sms({ messageType: 'text' }), '', 'unknown_field');
  });
});

describe('countries outside the price list (spec §2.8, §4.7 rule 6): nothing sent, stored or charged', () => {
  let noDe: TestAccount;
  beforeAll(async () => {
    noDe = await t.createAccount();
    await t.ctx.services.accounts.setPrice(noDe.accountId, 'DE', null);
  });

  it('RCS without a fallback: COUNTRY_NOT_SUPPORTED; with a fallback and no SMS either: SMS_COUNTRY_NOT_SUPPORTED', async () => {
    const before = await creditsOf(t, noDe.accountId);
    const base = { phoneNumber: fresh(), messageType: 'text', content: { text: 'Hi' }, sendernameId: noDe.senders.rcs };
    const a = await t.api('POST', '/api/rcs/send', base, { key: noDe.apiKey });
    expect(a.status).toBe(400);
    expect(a.body.error.code).toBe('COUNTRY_NOT_SUPPORTED');
    expect(a.body.error.message).toMatch(/Nothing was sent or charged/);
    const b = await t.api('POST', '/api/rcs/send', { ...base, smsFallback: { message: 'Hi', sendernameId: noDe.senders.sms } }, { key: noDe.apiKey });
    expect(b.status).toBe(400);
    expect(b.body.error.code).toBe('SMS_COUNTRY_NOT_SUPPORTED');
    const c = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: 'Hi', sendernameId: noDe.senders.sms }, { key: noDe.apiKey });
    expect(c.status).toBe(400);
    expect(c.body.error.code).toBe('SMS_COUNTRY_NOT_SUPPORTED');
    expect(await creditsOf(t, noDe.accountId)).toBe(before);
    expect(await count('messages', noDe.accountId)).toBe(0);
    expect(await count('contacts', noDe.accountId)).toBe(0);
  });

  it('a batch reports the refused countries per number and sends the rest', async () => {
    const fr = '+33612345678';
    const r = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: [fresh(), fr], messageType: 'text', content: { text: 'Hi' }, sendernameId: noDe.senders.rcs }, { key: noDe.apiKey });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ accepted: 1, rejectedCount: 1 });
    expect(r.body.rejected[0]).toMatchObject({ code: 'COUNTRY_NOT_SUPPORTED' });
    expect(r.body.creditsEstimated).toBeCloseTo(0.035, 6); // FR RCS price
    const onlyDe = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: [fresh()], messageType: 'text', content: { text: 'Hi' }, sendernameId: noDe.senders.rcs }, { key: noDe.apiKey });
    expect(onlyDe.status).toBe(400);
    expect(onlyDe.body.error.rejected[0].code).toBe('COUNTRY_NOT_SUPPORTED');
  });
});

describe('credits', () => {
  it('refuses a send the balance cannot pay with INSUFFICIENT_CREDITS; nothing is stored', async () => {
    const poor = await t.createAccount();
    await t.ctx.services.accounts.setCredits(poor.accountId, 0.1); // two DE RCS messages (0.035 each), not three
    const three = [fresh(), fresh(), fresh()];
    const r = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: three, messageType: 'text', content: { text: 'Hi' }, sendernameId: poor.senders.rcs }, { key: poor.apiKey });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'INSUFFICIENT_CREDITS', creditsRequired: 0.105, creditsAvailable: 0.1 });
    expect(await count('messages', poor.accountId)).toBe(0);
    expect(await count('jobs', poor.accountId)).toBe(0);
    expect(await count('contacts', poor.accountId)).toBe(0);
    const sms = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: 'x'.repeat(200), sendernameId: poor.senders.sms }, { key: poor.apiKey });
    expect(sms.body.error.code).toBe('INSUFFICIENT_CREDITS'); // 2 segments × 0.085
    const two = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: three.slice(0, 2), messageType: 'text', content: { text: 'Hi' }, sendernameId: poor.senders.rcs }, { key: poor.apiKey });
    expect(two.status).toBe(202);
    expect(await creditsOf(t, poor.accountId)).toBeCloseTo(0.03, 6);
  });
});
