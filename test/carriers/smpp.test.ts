import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CarrierEvent, OutboundSms } from '../../src/carriers/carrier.js';
import { SenderDirectory } from '../../src/carriers/sender-config.js';
import { SmppCarrier, type SmppCarrierOptions } from '../../src/carriers/smpp/carrier.js';
import { systemClock } from '../../src/platform/clock.js';
import type { OpenDb } from '../../src/platform/db/database.js';
import { openTestDatabase } from '../helpers/database.js';
import { newId } from '../../src/platform/ids.js';
import { createLogger } from '../../src/platform/logger.js';
import { analyzeSms, splitSms } from '../../src/sms/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeSmsc, type FakeSmsc, type ReceivedSubmit } from './fake-smsc.js';
import { until } from './until.js';

const num = (i: number) => `+49151${String(40_000_000 + i).padStart(8, '0')}`;

function sms(i: number, text: string): OutboundSms {
  return { messageId: newId('msg'), accountId: 'acc_test', senderId: 'snd_none', senderName: 'ACME', to: num(i), text, parts: splitSms(text).map((p) => p.text), encoding: analyzeSms(text).encoding };
}

/** An SMPP adapter on its own database, with a sink that records events. */
async function adapter(smsc: FakeSmsc, database: OpenDb, overrides: Partial<SmppCarrierOptions> = {}) {
  const events: CarrierEvent[] = [];
  const state = { accept: true };
  const carrier = new SmppCarrier(
    database.db,
    systemClock,
    createLogger('silent'),
    { url: smsc.url(), window: 10, enquireLinkMs: 100, systemType: '', reconnectMinMs: 30, reconnectMaxMs: 200, responseTimeoutMs: 1500, submitDeadlineMs: 10_000, reportIntervalMs: 40, ...overrides },
    new SenderDirectory(database.db),
  );
  await carrier.start(async (evs) => {
    events.push(...evs);
    return evs.map(() => state.accept);
  });
  await until('bind', () => carrier.isBound());
  return { carrier, events, state };
}

describe('SMPP adapter against a local SMSC', () => {
  let smsc: FakeSmsc;
  let database: OpenDb;
  const stops: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await smsc?.close();
  });
  afterAll(async () => {
    await database.close();
  });

  it('survives throttling and a connection dropped mid-window without losing or doubling a message', async () => {
    smsc = await startFakeSmsc();
    // The link drops while the window is full (submit 8: seven more unanswered), then throttling.
    smsc.dropAt = new Set([8]);
    smsc.throttle = new Set([20, 24, 25]);
    const { carrier } = await adapter(smsc, database);
    stops.push(() => carrier.stop());
    // 25 messages; every fifth is long (two GSM-7 parts).
    const messages = Array.from({ length: 25 }, (_, i) => sms(i, i % 5 === 0 ? `Long ${i} `.padEnd(200, 'x') : `Hello number ${i}`));
    const outcomes = await carrier.sendMany(messages);
    expect(outcomes.every((o) => o.ok)).toBe(true);

    expect(smsc.binds).toBeGreaterThanOrEqual(2);
    expect(smsc.submits.some((s) => s.outcome === 'throttled')).toBe(true);
    expect(smsc.submits.filter((s) => s.outcome === 'dropped').length).toBeGreaterThan(3);
    // Every part of every message accepted exactly once.
    const accepted = smsc.accepted();
    const key = (s: ReceivedSubmit) => `${s.destinationAddr}|${s.udh.toString('hex')}|${s.text}`;
    expect(new Set(accepted.map(key)).size).toBe(accepted.length);
    const expectedParts = messages.reduce((n, m) => n + m.parts.length, 0);
    expect(accepted).toHaveLength(expectedParts);
    for (const [i, m] of messages.entries()) {
      const mine = accepted.filter((s) => s.destinationAddr === m.to.slice(1));
      expect(mine.map((s) => s.text).sort()).toEqual([...m.parts].sort());
      const o = outcomes[i]!;
      if (o.ok) expect(o.carrierMessageId.split(',').sort()).toEqual(mine.map((s) => s.messageId!).sort());
      // Parts resubmitted after the drop keep the concatenation reference of their siblings.
      if (m.parts.length > 1) expect(new Set(mine.map((s) => s.udh[3])).size).toBe(1);
    }
    for (const s of accepted) {
      expect(s).toMatchObject({ dataCoding: 0, registeredDelivery: 1, sourceAddr: 'ACME', sourceTon: 5 });
    }
    // A second hand-over of an already submitted message submits nothing.
    const count = smsc.submits.length;
    const again = await carrier.send(messages[0]!);
    expect(again).toEqual(outcomes[0]);
    expect(smsc.submits.length).toBe(count);
  });

  it('keeps the carrier code of a refused submit and retries nothing that cannot succeed', async () => {
    smsc = await startFakeSmsc();
    smsc.refuse.set(1, 0x0b);
    const { carrier } = await adapter(smsc, database);
    stops.push(() => carrier.stop());
    const o = await carrier.send(sms(900, 'to a bad number'));
    expect(o).toEqual({ ok: false, retryable: false, code: 'ESME_RINVDSTADR', reason: 'submit_sm refused (part 1/1)' });
  });

  it('gives up with a retryable throttling outcome when the SMSC keeps throttling', async () => {
    smsc = await startFakeSmsc();
    smsc.throttle = new Set(Array.from({ length: 50 }, (_, i) => i + 1));
    const { carrier } = await adapter(smsc, database, { maxThrottleRetries: 3 });
    stops.push(() => carrier.stop());
    const o = await carrier.send(sms(901, 'busy'));
    expect(o).toMatchObject({ ok: false, retryable: true, code: 'ESME_RTHROTTLED' });
  });

  it('maps receipts to the message after a restart, combines the parts, and offers a status again until applied', async () => {
    smsc = await startFakeSmsc();
    smsc.respondAfterMs = 1;
    const first = await adapter(smsc, database);
    const two = sms(950, 'Two parts: '.padEnd(170, 'y'));
    const one = sms(951, 'Just one');
    const failing = sms(952, 'Also two: '.padEnd(170, 'z'));
    const o2 = await first.carrier.send(two);
    const o1 = await first.carrier.send(one);
    const o3 = await first.carrier.send(failing);
    expect([o1.ok, o2.ok, o3.ok]).toEqual([true, true, true]);
    await first.carrier.stop();

    // A new process: the mapping comes from the database.
    const second = await adapter(smsc, database);
    stops.push(() => second.carrier.stop());
    second.state.accept = false;
    smsc.receiptIdAsDecimal = true; // this SMSC prints ids in decimal in its receipts
    const [a, b] = (o2.ok ? o2.carrierMessageId : '').split(',');
    expect(await smsc.receipt(a!, 'DELIVRD')).toBe(0);
    // The receipt is recorded before it is answered; a report pass run now is the one path that could tell the
    // engine anything about this message — with one part of two delivered, it must tell nothing.
    await second.carrier.reportDue();
    expect(second.events.filter((e) => e.kind === 'status' && e.messageId === two.messageId)).toEqual([]);
    expect(await smsc.receipt(b!, 'DELIVRD')).toBe(0);
    // Not applied yet (the engine said "later"): offered again and again.
    await until('re-offers', () => second.events.filter((e) => e.kind === 'status' && e.messageId === two.messageId).length >= 2);
    second.state.accept = true;
    const n = second.events.length;
    // Applied once: the message is marked reported, and a further report pass offers it no more.
    await until('reported', async () => (await database.db.selectFrom('smpp_messages').select('reported').where('message_id', '=', two.messageId).executeTakeFirst())?.reported === 1);
    await second.carrier.reportDue();
    const later = second.events.slice(n).filter((e) => e.kind === 'status' && e.messageId === two.messageId);
    expect(later.length).toBeLessThanOrEqual(1);
    expect(second.events.find((e) => e.kind === 'status' && e.messageId === two.messageId)).toMatchObject({ status: 'DELIVERED' });

    // TLV receipt (receipted_message_id + message_state) for the single part.
    smsc.receiptIdAsDecimal = false;
    await smsc.receipt(o1.ok ? o1.carrierMessageId : '', 'DELIVRD', { tlv: true });
    await until('single DELIVERED', () => second.events.find((e) => e.kind === 'status' && e.messageId === one.messageId));

    // One part delivered, the other undeliverable → FAILED with the stat.
    const [c, d] = (o3.ok ? o3.carrierMessageId : '').split(',');
    await smsc.receipt(c!, 'DELIVRD');
    await smsc.receipt(d!, 'UNDELIV', { err: '001' });
    const failed = await until('FAILED', () => second.events.find((e) => e.kind === 'status' && e.messageId === failing.messageId));
    expect(failed).toMatchObject({ status: 'FAILED', error: 'UNDELIV: part 2/2 not delivered (err 001)' });
  });
});

describe('SMPP end to end through the server (CARRIER_SMS=smpp)', () => {
  let smsc: FakeSmsc;
  let t: TestServer;

  beforeAll(async () => {
    smsc = await startFakeSmsc();
    t = await startTestServer({ env: { CARRIER_SMS: 'smpp', SMPP_URL: smsc.url(), SMPP_ENQUIRE_LINK_SECONDS: '1' } });
    const carrier = t.ctx.carriers.sms as SmppCarrier;
    expect(carrier).toBeInstanceOf(SmppCarrier);
    await until('bind', () => carrier.isBound());
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
  });

  const record = async (id: string) => (await t.api('GET', `/api/messages/log?messageId=${id}`)).body.messages[0];

  it('sends a concatenated UCS-2 SMS with UDH headers and combines the receipts of every part', async () => {
    const to = num(1);
    const text = 'Привет! Ваш заказ готов к выдаче. Спасибо, что выбрали нас — ждём вас снова в нашем магазине каждый день 🙂';
    const expected = splitSms(text).map((p) => p.text);
    expect(analyzeSms(text).encoding).toBe('Unicode');
    expect(expected.length).toBe(2);
    const r = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: to, message: text, sendernameId: t.account.senders.sms });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.messageId as string;
    const rec = await until('SENT', async () => {
      const x = await record(id);
      return x?.status === 'SENT' ? x : null;
    });
    const parts = smsc.accepted().filter((s) => s.destinationAddr === to.slice(1));
    expect(parts).toHaveLength(expected.length);
    const ref = parts[0]!.udh[3]!;
    // The source address is the sender's name (test servers number their accounts across a worker's files).
    const senderName = (await t.ctx.services.senders.get(t.account.accountId, t.account.senders.sms)).name;
    expect(senderName).toMatch(/^SMSCO\d+$/);
    parts.forEach((p, i) => {
      expect(p.dataCoding).toBe(8);
      expect(p.esmClass & 0x40).toBe(0x40);
      expect(p.registeredDelivery).toBe(1);
      expect([...p.udh]).toEqual([0x05, 0x00, 0x03, ref, expected.length, i + 1]);
      expect(p.text).toBe(expected[i]);
      expect(p.sourceAddr).toBe(senderName);
    });
    expect(rec.carrierMessageId).toBe(parts.map((p) => p.messageId).join(','));

    await smsc.receipt(parts[0]!.messageId!, 'DELIVRD');
    await new Promise((r2) => setTimeout(r2, 150));
    expect((await record(id)).status).toBe('SENT');
    await smsc.receipt(parts[1]!.messageId!, 'DELIVRD');
    await until('DELIVERED', async () => (await record(id))?.status === 'DELIVERED');
  });

  it('marks a message FAILED with the receipt stat in error', async () => {
    const to = num(2);
    const r = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: to, message: 'Your parcel is on its way', sendernameId: t.account.senders.sms });
    const id = r.body.messageId as string;
    await until('SENT', async () => (await record(id))?.status === 'SENT');
    const sub = smsc.accepted().find((s) => s.destinationAddr === to.slice(1))!;
    expect(sub.dataCoding).toBe(0);
    expect(sub.esmClass).toBe(0);
    expect(sub.udh.length).toBe(0);
    await smsc.receipt(sub.messageId!, 'EXPIRED');
    const rec = await until('FAILED', async () => {
      const x = await record(id);
      return x?.status === 'FAILED' ? x : null;
    });
    expect(rec.error).toContain('EXPIRED');
  });

  it('routes mobile-originated messages to the inbound path, STOP included, and joins concatenated ones', async () => {
    const from = num(3);
    expect(await smsc.mo(from, 'SMSCO1', 'Hi, when do you open?')).toBe(0);
    const inbound = await until('inbound', () =>
      t.ctx.db.selectFrom('messages').selectAll().where('direction', '=', 'INBOUND').where('phone', '=', from.slice(1)).executeTakeFirst(),
    );
    expect(inbound).toMatchObject({ type: 'SMS', status: 'RECEIVED', text: 'Hi, when do you open?', sendername_id: t.account.senders.sms });

    await smsc.mo(from, 'SMSCO1', 'STOP');
    const optOut = await until('opt-out', () => t.ctx.db.selectFrom('opt_outs').selectAll().where('phone', '=', from.slice(1)).executeTakeFirst());
    expect(optOut).toMatchObject({ account_id: t.account.accountId, source: 'keyword', keyword: 'STOP' });

    const long = ['Здравствуйте, у меня вопрос ', 'по поводу доставки.'];
    await smsc.mo(from, 'SMSCO1', long[1]!, { ucs2: true, concat: { ref: 7, total: 2, seq: 2 } });
    await smsc.mo(from, 'SMSCO1', long[0]!, { ucs2: true, concat: { ref: 7, total: 2, seq: 1 } });
    const joined = await until('joined inbound', () =>
      t.ctx.db.selectFrom('messages').selectAll().where('direction', '=', 'INBOUND').where('phone', '=', from.slice(1)).where('text', '=', long.join('')).executeTakeFirst(),
    );
    expect(joined.type).toBe('SMS');
  });

  it('reconnects when the link drops mid-window and sends every message exactly once', async () => {
    const carrier = t.ctx.carriers.sms as SmppCarrier;
    smsc.dropAt = new Set([smsc.submits.length + 4]);
    const numbers = Array.from({ length: 12 }, (_, i) => num(100 + i));
    const sent = await Promise.all(numbers.map((to, i) => t.api('POST', '/api/rcs/send-sms', { phoneNumber: to, message: `Reminder ${i}: see you tomorrow`, sendernameId: t.account.senders.sms })));
    const ids = sent.map((r) => r.body.messageId as string);
    for (const id of ids) await until(`SENT ${id}`, async () => (await record(id))?.status === 'SENT', 15_000);
    expect(smsc.binds).toBeGreaterThanOrEqual(2);
    expect(carrier.isBound()).toBe(true);
    for (const [i, to] of numbers.entries()) {
      const got = smsc.accepted().filter((s) => s.destinationAddr === to.slice(1));
      expect(got.map((s) => s.text)).toEqual([`Reminder ${i}: see you tomorrow`]);
    }
  });

  it('keeps the link alive with enquire_link', async () => {
    const before = smsc.enquireLinks;
    await until('enquire_link', () => smsc.enquireLinks > before, 3000);
  });
});
