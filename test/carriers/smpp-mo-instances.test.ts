import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SenderDirectory } from '../../src/carriers/sender-config.js';
import { SmppCarrier, type SmppCarrierOptions } from '../../src/carriers/smpp/carrier.js';
import { systemClock } from '../../src/platform/clock.js';
import { createLogger } from '../../src/platform/logger.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeSmsc, type FakeSmsc } from './fake-smsc.js';
import { until } from './until.js';

/**
 * Concatenated incoming SMS when several instances bind to one SMSC (issue #19): the SMSC hands
 * each part to whichever bind it likes, so the parts of one message meet in the database, not in
 * one bind's memory. The server is one instance; more SmppCarrier objects on the same database
 * stand in for the others (each has its own bind and hands messages to the same inbound path).
 */
const num = (i: number) => `+49151${String(41_000_000 + i).padStart(8, '0')}`;

describe('SMPP concatenated incoming messages across instances', () => {
  let smsc: FakeSmsc;
  let t: TestServer;
  const others: SmppCarrier[] = [];

  beforeAll(async () => {
    smsc = await startFakeSmsc();
    t = await startTestServer({ env: { CARRIER_SMS: 'smpp', SMPP_URL: smsc.url(), SMPP_ENQUIRE_LINK_SECONDS: '1' } });
    await until('bind', () => (t.ctx.carriers.sms as SmppCarrier).isBound());
  });
  afterEach(async () => {
    for (const c of others.splice(0)) await c.stop();
    await until('one bind left', () => smsc.boundModes().length === 1);
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
  });

  /** Another instance's SMPP adapter on the server's database; its bind is the next in bind order. */
  async function anotherInstance(overrides: Partial<SmppCarrierOptions> = {}): Promise<SmppCarrier> {
    const binds = smsc.boundModes().length;
    const carrier = new SmppCarrier(
      t.ctx.db,
      systemClock,
      createLogger(process.env.TEST_SERVER_LOG ?? 'silent'),
      { url: smsc.url(), window: 10, enquireLinkMs: 1000, systemType: '', reconnectMinMs: 30, reconnectMaxMs: 200, responseTimeoutMs: 1500, ...overrides },
      new SenderDirectory(t.ctx.db),
    );
    await carrier.start(async (events) => Promise.all(events.map((e) => t.ctx.services.status.handle(e))));
    others.push(carrier);
    await until('second bind', () => carrier.isBound() && smsc.boundModes().length === binds + 1);
    return carrier;
  }

  const inboundTexts = async (phone: string) =>
    (await t.ctx.db.selectFrom('messages').select('text').where('direction', '=', 'INBOUND').where('phone', '=', phone.slice(1)).execute()).map((r) => r.text);
  const storedParts = async () => (await t.ctx.db.selectFrom('smpp_mo_parts').select('mo_key').execute()).length;

  /**
   * Instead of sleeping before asserting "nothing more was handed on": deliver_sm is answered only once its part is
   * stored and, when it completes a message, handed on, so what is left to happen is a sweep. sweepAll runs one on every
   * instance to the end; quiesce stops the other instances (stop() awaits a sweep or report in flight) and then sweeps
   * with the server's adapter, so whatever any of them could still hand on has been.
   */
  const serverAdapter = () => t.ctx.carriers.sms as SmppCarrier;
  async function sweepAll(): Promise<void> {
    for (const c of [serverAdapter(), ...others]) await c.sweepMo();
  }
  async function quiesce(): Promise<void> {
    for (const c of others.splice(0)) await c.stop();
    await serverAdapter().sweepMo();
  }

  it('joins a message whose parts came over the binds of two instances, once, and keeps no part', async () => {
    await anotherInstance();
    const from = num(1);
    const long = ['Здравствуйте, у меня вопрос ', 'по поводу доставки.'];
    expect(await smsc.mo(from, 'SMSCO1', long[1]!, { ucs2: true, concat: { ref: 9, total: 2, seq: 2 }, via: 1 })).toBe(0);
    expect(await smsc.mo(from, 'SMSCO1', long[0]!, { ucs2: true, concat: { ref: 9, total: 2, seq: 1 }, via: 0 })).toBe(0);
    await until('joined', async () => (await inboundTexts(from)).length > 0);
    await quiesce();
    expect(await inboundTexts(from)).toEqual([long.join('')]);
    expect(await storedParts()).toBe(0);
  });

  it('keeps a part received by an instance that then stopped: the other completes the message', async () => {
    const b = await anotherInstance();
    const from = num(2);
    expect(await smsc.mo(from, 'SMSCO1', 'Part one, ', { concat: { ref: 11, total: 2, seq: 1 }, via: 1 })).toBe(0);
    await b.stop();
    others.splice(others.indexOf(b), 1);
    await until('b unbound', () => smsc.boundModes().length === 1);
    expect(await smsc.mo(from, 'SMSCO1', 'part two.', { concat: { ref: 11, total: 2, seq: 2 } })).toBe(0);
    await until('joined', async () => (await inboundTexts(from)).length > 0);
    expect(await inboundTexts(from)).toEqual(['Part one, part two.']);
  });

  it('joins every message once when its last two parts reach two instances at the same moment', async () => {
    await anotherInstance();
    const from = num(3);
    const n = 25;
    for (let ref = 0; ref < n; ref += 1) {
      const answers = await Promise.all([
        smsc.mo(from, 'SMSCO1', `m${ref} first half, `, { concat: { ref, total: 2, seq: 1 }, via: 0 }),
        smsc.mo(from, 'SMSCO1', `m${ref} second half`, { concat: { ref, total: 2, seq: 2 }, via: 1 }),
      ]);
      expect(answers).toEqual([0, 0]);
    }
    // Without the lock, each instance would count only its own part and neither would complete it.
    await until(`${n} joined`, async () => (await inboundTexts(from)).length >= n, 5000);
    await quiesce();
    const texts = await inboundTexts(from);
    expect(texts.sort()).toEqual(Array.from({ length: n }, (_, ref) => `m${ref} first half, m${ref} second half`).sort());
    expect(await storedParts()).toBe(0);
  });

  it('takes a part offered again once, and a part numbered outside its count as a whole message', async () => {
    await anotherInstance();
    const from = num(4);
    await smsc.mo(from, 'SMSCO1', 'Again ', { concat: { ref: 12, total: 2, seq: 1 }, via: 0 });
    await smsc.mo(from, 'SMSCO1', 'Again ', { concat: { ref: 12, total: 2, seq: 1 }, via: 1 });
    await sweepAll();
    expect(await inboundTexts(from)).toEqual([]);
    await smsc.mo(from, 'SMSCO1', 'and again', { concat: { ref: 12, total: 2, seq: 2 }, via: 1 });
    await until('joined', async () => (await inboundTexts(from)).length > 0);

    await smsc.mo(from, 'SMSCO1', 'stray part', { concat: { ref: 13, total: 2, seq: 3 }, via: 0 });
    await until('stray', async () => (await inboundTexts(from)).length > 1);
    await quiesce();
    expect((await inboundTexts(from)).sort()).toEqual(['Again and again', 'stray part']);
  });

  it('hands on the parts that came once the wait is over, once although every instance looks', async () => {
    // The server's own adapter waits a minute; these two look every 50 ms and wait 200 ms.
    await anotherInstance({ moReassemblyMs: 200 });
    await anotherInstance({ moReassemblyMs: 200 });
    const from = num(5);
    const started = Date.now();
    await smsc.mo(from, 'SMSCO1', 'Only the first ', { concat: { ref: 14, total: 3, seq: 1 }, via: 1 });
    await smsc.mo(from, 'SMSCO1', 'and the third', { concat: { ref: 14, total: 3, seq: 3 }, via: 2 });
    await until('partial', async () => (await inboundTexts(from)).length > 0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    await until('parts forgotten', async () => (await storedParts()) === 0);
    await quiesce(); // both instances look every 50 ms: a look in flight when the parts went is over after this
    expect(await inboundTexts(from)).toEqual(['Only the first and the third']);
  });

  it('hands on again, under the same id, a message a crash left stored after handing it on: recorded once', async () => {
    await anotherInstance({ moReassemblyMs: 200 });
    const from = num(6);
    await smsc.mo(from, 'SMSCO1', 'Crash ', { concat: { ref: 15, total: 2, seq: 1 }, via: 1 });
    const [first] = await t.ctx.db.selectFrom('smpp_mo_parts').selectAll().where('source', '=', from.slice(1)).execute();
    expect(first).toMatchObject({ seq: 1, total: 2, text: 'Crash ' });
    await smsc.mo(from, 'SMSCO1', 'test', { concat: { ref: 15, total: 2, seq: 2 }, via: 1 });
    await until('joined', async () => (await inboundTexts(from)).length > 0);
    // As if the instance died between handing the message on and deleting its parts.
    await t.ctx.db
      .insertInto('smpp_mo_parts')
      .values([first!, { ...first!, seq: 2, text: 'test' }])
      .execute();
    await until('swept', async () => (await storedParts()) === 0);
    await quiesce();
    expect(await inboundTexts(from)).toEqual(['Crash test']);
  });

  it('hands on, in one look, a backlog of more incomplete messages than one query takes, each once', async () => {
    const c = await anotherInstance({ moReassemblyMs: 600_000 });
    const from = num(7);
    const n = 150; // more than DUE_PAGE
    const smscKey = c.connectionKeys()[0]!;
    const old = Date.now() - 700_000;
    await t.ctx.db
      .insertInto('smpp_mo_parts')
      .values(Array.from({ length: n }, (_, i) => ({ mo_key: `${smscKey}|${from.slice(1)}|SMSCO1|${i}|2`, seq: 1, total: 2, smsc: smscKey, source: from.slice(1), dest: 'SMSCO1', text: `backlog ${i}`, received_at: old })))
      .execute();
    await c.sweepMo();
    expect(await storedParts()).toBe(0);
    await quiesce();
    expect((await inboundTexts(from)).sort()).toEqual(Array.from({ length: n }, (_, i) => `backlog ${i}`).sort());
  });
});
