import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduledSendResponseSchema, SendSmsResponseSchema } from '../../../src/messaging/schemas.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { creditsOf, de, messageRow, simRows, waitForStatus } from './util.js';

/** POST /send-sms (spec §4.1, §2.12, §2.13 rule 5): segments after merging, billing, scheduling. */
let t: TestServer;
let acc: TestAccount;
let smsName = '';
let seq = 0;
const fresh = (last4 = '0001') => de(3000 + ++seq, last4);

const sendSms = (body: Record<string, unknown>, key = acc.apiKey) => t.api('POST', '/api/rcs/send-sms', { sendernameId: acc.senders.sms, ...body }, { key });
const messageCount = async () => Number((await t.ctx.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', acc.accountId).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount();
  smsName = (await t.ctx.services.senders.get(acc.accountId, acc.senders.sms)).name;
  expect((await t.api('POST', '/api/v1/contacts/fields', { name: 'Tier', tag: 'tier' }, { key: acc.apiKey })).status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

describe('immediate SMS', () => {
  it('answers with segments, encoding and cost, and goes SENT → READ on the SMS network', async () => {
    const before = await creditsOf(t, acc.accountId);
    const to = fresh();
    const r = await sendSms({ phoneNumber: to, message: 'Your parcel is on its way.' });
    expect(r.status).toBe(200);
    expect(SendSmsResponseSchema.parse(r.body)).toBeTruthy();
    expect(r.body).toMatchObject({ success: true, scheduled: false, queued: false, smsSegments: 1, smsEncoding: 'GSM-7', creditsEstimated: 0.085 });
    expect(r.body.messageId).toMatch(/^msg_/);
    expect(r.body).not.toHaveProperty('messageRecordId');
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before - 0.085, 6);
    const rec = await waitForStatus(t, r.body.messageId, ['READ'], acc.apiKey);
    expect(rec).toMatchObject({ type: 'SMS', method: 'SMS', content: 'Your parcel is on its way.', smsSegments: 1, creditsCost: 0.085, smsFallback: null });
    const sim = await simRows(t, r.body.messageId);
    expect(sim).toHaveLength(1);
    expect(sim[0]).toMatchObject({ channel: 'SMS', to_phone: to, sender_id: acc.senders.sms });
    const content = await t.api('GET', `/api/messages/${r.body.messageId}/content`, undefined, { key: acc.apiKey });
    expect(content.body.message).toMatchObject({ type: 'SMS', content: 'Your parcel is on its way.', text: 'Your parcel is on its way.' });
    expect(content.body.message).not.toHaveProperty('messageType');
  });

  it('detects Unicode and counts its segments', async () => {
    const text = 'Grüße aus Köln 🎉 '.repeat(5); // > 70 UCS-2 units → multi-part at 67
    const r = await sendSms({ phoneNumber: fresh(), message: text });
    expect(r.status).toBe(200);
    expect(r.body.smsEncoding).toBe('Unicode');
    expect(r.body.smsSegments).toBe(2);
    expect(r.body.creditsEstimated).toBeCloseTo(0.17, 6);
    const sim = await simRows(t, r.body.messageId);
    expect(JSON.parse(sim[0]!.payload).parts).toHaveLength(2);
  });

  it('accepts the sender by name as well as by id', async () => {
    const r = await sendSms({ phoneNumber: fresh(), message: 'By name', sendernameId: smsName });
    expect(r.status).toBe(200);
    expect((await messageRow(t, r.body.messageId))!.sendername_id).toBe(acc.senders.sms);
    const unknown = await sendSms({ phoneNumber: fresh(), message: 'x', sendernameId: 'NOSUCHSENDER' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0]).toMatchObject({ path: 'sendernameId', code: 'unknown_sender' });
    const rcsSender = await sendSms({ phoneNumber: fresh(), message: 'x', sendernameId: acc.senders.rcs });
    expect(rcsSender.status).toBe(400);
  });

  it('…9992 (unreachable) FAILS and is refunded', async () => {
    const before = await creditsOf(t, acc.accountId);
    const r = await sendSms({ phoneNumber: fresh('9992'), message: 'Hello' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: false, status: 'FAILED', creditsEstimated: 0 });
    expect(r.body.error).toMatch(/SIM_UNREACHABLE/);
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before, 6);
  });

  it('…9990 (no RCS) is irrelevant for SMS: it is sent', async () => {
    const r = await sendSms({ phoneNumber: fresh('9990'), message: 'Hello' });
    expect(r.body).toMatchObject({ success: true, status: expect.stringMatching(/SENT|DELIVERED|READ/) });
  });
});

describe('merge before counting (spec §2.13 rules 2 and 5)', () => {
  it('bills the merged text: a long first name makes two segments', async () => {
    const to = fresh();
    const first = 'Alexandra-Maximiliane-Konstantina von Hohenberg'; // 46 characters
    expect((await t.api('POST', '/api/v1/contacts', { phone: to, firstName: first, customFields: [{ tag: 'tier', value: 'gold' }] }, { key: acc.apiKey })).status).toBe(201);
    const message = `${'A'.repeat(120)}{{contact_first_name}}`; // 142 raw, 166 merged
    const r = await sendSms({ phoneNumber: to, message });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ smsSegments: 2, smsEncoding: 'GSM-7', creditsEstimated: 0.17 });
    expect((await messageRow(t, r.body.messageId))!.text).toBe(`${'A'.repeat(120)}${first}`);
    const tier = await sendSms({ phoneNumber: to, message: 'Tier: {{tier}}' });
    expect((await messageRow(t, tier.body.messageId))!.text).toBe('Tier: gold');
  });

  it('empties unknown placeholders: a raw 2-segment text can bill as one', async () => {
    const message = `${'B'.repeat(150)}{{no_such_field}}{{another_unknown}}`; // 184 raw, 150 merged
    const r = await sendSms({ phoneNumber: fresh(), message });
    expect(r.status).toBe(200);
    expect(r.body.smsSegments).toBe(1);
    expect((await messageRow(t, r.body.messageId))!.text).toBe('B'.repeat(150));
  });

  it('1530 characters are 10 segments; over 1530 after merging is a 400 and nothing is charged or stored', async () => {
    const ten = await sendSms({ phoneNumber: fresh(), message: 'C'.repeat(1530) });
    expect(ten.status).toBe(200);
    expect(ten.body).toMatchObject({ smsSegments: 10, creditsEstimated: 0.85 });

    const to = fresh();
    expect((await t.api('POST', '/api/v1/contacts', { phone: to, firstName: 'F'.repeat(40) }, { key: acc.apiKey })).status).toBe(201);
    const before = await creditsOf(t, acc.accountId);
    const count = await messageCount();
    const over = await sendSms({ phoneNumber: to, message: `${'D'.repeat(1500)}{{contact_first_name}}` }); // 1522 raw, 1540 merged
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(over.body.error.details[0]).toMatchObject({ path: 'message', code: 'too_long' });
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before, 6);
    expect(await messageCount()).toBe(count);
  });

  it('the RCS smsFallback is limited to 1530 characters after merging too', async () => {
    const to = fresh();
    expect((await t.api('POST', '/api/v1/contacts', { phone: to, firstName: 'G'.repeat(40) }, { key: acc.apiKey })).status).toBe(201);
    const r = await t.api(
      'POST',
      '/api/rcs/send',
      { phoneNumber: to, messageType: 'text', content: { text: 'Hi' }, sendernameId: acc.senders.rcs, smsFallback: { message: `${'E'.repeat(1500)}{{contact_first_name}}`, sendernameId: acc.senders.sms } },
      { key: acc.apiKey },
    );
    expect(r.status).toBe(400);
    expect(r.body.error.details[0]).toMatchObject({ path: 'smsFallback.message', code: 'too_long' });
  });
});

describe('scheduled SMS (spec §2.12)', () => {
  it('answers with the scheduling fields, segments and encoding, and no messageRecordId', async () => {
    const before = await creditsOf(t, acc.accountId);
    const r = await sendSms({ phoneNumber: fresh(), message: 'Later', scheduleAt: '2030-01-15T09:30:00', timeZone: 'America/New_York' });
    expect(r.status).toBe(200);
    expect(ScheduledSendResponseSchema.parse(r.body)).toBeTruthy();
    expect(r.body).toMatchObject({
      success: true,
      scheduled: true,
      scheduleTime: '2030-01-15T14:30:00.000Z',
      localScheduleTime: '2030-01-15T09:30:00.000-05:00',
      effectiveTimezone: 'America/New_York',
      timezoneSource: 'request',
      smsSegments: 1,
      smsEncoding: 'GSM-7',
      creditsEstimated: 0.085,
    });
    expect(r.body.jobId).toMatch(/^job_/);
    expect(r.body.messageId).toMatch(/^msg_/);
    expect(r.body).not.toHaveProperty('messageRecordId');
    // Charged when accepted; refunded if cancelled.
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before - 0.085, 6);
    const row = (await messageRow(t, r.body.messageId))!;
    expect(row).toMatchObject({ status: 'SCHEDULED', pending: 1, due_at: Date.parse('2030-01-15T14:30:00.000Z'), job_id: r.body.jobId });
  });

  it('uses the account time zone when none is given; an offset in scheduleAt fixes the instant', async () => {
    const r = await sendSms({ phoneNumber: fresh(), message: 'Later', scheduleAt: '2030-07-01T08:00:00' });
    expect(r.body).toMatchObject({ effectiveTimezone: 'Europe/Berlin', timezoneSource: 'account', scheduleTime: '2030-07-01T06:00:00.000Z', localScheduleTime: '2030-07-01T08:00:00.000+02:00' });
    const z = await sendSms({ phoneNumber: fresh(), message: 'Later', scheduleAt: '2030-07-01T08:00:00Z', timeZone: 'Asia/Tokyo' });
    expect(z.body).toMatchObject({ scheduleTime: '2030-07-01T08:00:00.000Z', localScheduleTime: '2030-07-01T17:00:00.000+09:00', effectiveTimezone: 'Asia/Tokyo' });
  });

  it('refuses bad times and zones with 400 INVALID_SCHEDULE_TIME', async () => {
    const past = await sendSms({ phoneNumber: fresh(), message: 'x', scheduleAt: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.error).toMatchObject({ code: 'INVALID_SCHEDULE_TIME' });
    expect(past.body.error.details[0]).toMatchObject({ path: 'scheduleAt', code: 'in_past' });
    const bad = await sendSms({ phoneNumber: fresh(), message: 'x', scheduleAt: 'tomorrow at 9' });
    expect(bad.body.error.details[0]).toMatchObject({ path: 'scheduleAt', code: 'invalid_datetime' });
    const zone = await sendSms({ phoneNumber: fresh(), message: 'x', scheduleAt: '2030-01-01T09:00:00', timeZone: 'Mars/Olympus' });
    expect(zone.body.error.details[0]).toMatchObject({ path: 'timeZone', code: 'invalid_timezone' });
    const zoneOnly = await sendSms({ phoneNumber: fresh(), message: 'x', timeZone: 'Not/AZone' });
    expect(zoneOnly.status).toBe(400);
  });
});
