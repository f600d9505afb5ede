/**
 * SMPP carrier robustness (issue #17): transmitter + receiver binds, an SMSC outage while the API
 * keeps accepting (queued, nothing lost or doubled), enquire_link supervision, bounded jittered
 * reconnect backoff.
 */
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CarrierEvent, OutboundSms } from '../../src/carriers/carrier.js';
import { SenderDirectory } from '../../src/carriers/sender-config.js';
import { Backoff, backoffDelay } from '../../src/carriers/smpp/backoff.js';
import { SmppCarrier, type SmppCarrierOptions } from '../../src/carriers/smpp/carrier.js';
import { parseSmppUrl, SmppConnection } from '../../src/carriers/smpp/connection.js';
import { systemClock } from '../../src/platform/clock.js';
import type { OpenDb } from '../../src/platform/db/database.js';
import { openTestDatabase } from '../helpers/database.js';
import { newId } from '../../src/platform/ids.js';
import { createLogger } from '../../src/platform/logger.js';
import { analyzeSms, splitSms } from '../../src/sms/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeSmsc, type FakeSmsc } from './fake-smsc.js';
import { until } from './until.js';

const num = (i: number) => `+49151${String(50_000_000 + i).padStart(8, '0')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sms(i: number, text: string): OutboundSms {
  return { messageId: newId('msg'), accountId: 'acc_test', senderId: 'snd_none', senderName: 'ACME', to: num(i), text, parts: splitSms(text).map((p) => p.text), encoding: analyzeSms(text).encoding };
}

describe('reconnect backoff', () => {
  it('doubles from the minimum, stays within ±jitter, and never exceeds the maximum', () => {
    const o = { minMs: 100, maxMs: 5_000, jitter: 0.2 };
    // The extremes of the random source give the bounds of each step.
    const low = Array.from({ length: 10 }, (_, n) => backoffDelay(n, { ...o, random: () => 0 }));
    const high = Array.from({ length: 10 }, (_, n) => backoffDelay(n, { ...o, random: () => 0.999_999 }));
    expect(low).toEqual([80, 160, 320, 640, 1280, 2560, 4000, 4000, 4000, 4000]);
    expect(high).toEqual([120, 240, 480, 960, 1920, 3840, 5000, 5000, 5000, 5000]);
    // A seeded sequence: every delay lies within its step's bounds, and the jitter really spreads them.
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const seen = new Set<number>();
    for (let n = 0; n < 200; n++) {
      const d = backoffDelay(n % 12, { ...o, random });
      const base = Math.min(o.maxMs, o.minMs * 2 ** (n % 12));
      expect(d).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
      expect(d).toBeLessThanOrEqual(Math.min(o.maxMs, Math.ceil(base * 1.2)));
      seen.add(d);
    }
    expect(seen.size).toBeGreaterThan(50);
    // Huge attempt counts do not overflow into NaN or Infinity.
    expect(backoffDelay(10_000, { ...o, random: () => 0.5 })).toBe(5_000);
  });

  it('counts attempts until reset', () => {
    const values = [0.5, 0.5, 0.5, 0.5];
    const b = new Backoff({ minMs: 10, maxMs: 1_000, jitter: 0.5, random: () => values.shift() ?? 0.5 });
    expect([b.next(), b.next(), b.next()]).toEqual([10, 20, 40]);
    b.reset();
    expect(b.next()).toBe(10);
  });

  it('a connection to an SMSC that is down retries with growing, jittered, bounded delays', async () => {
    // A port that refuses connections.
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const randoms = [0, 0.999, 0.5, 0, 0.999, 0.5, 0, 0.999];
    const conn = new SmppConnection(
      parseSmppUrl(`smpp://a:b@127.0.0.1:${port}`),
      { window: 10, enquireLinkMs: 1000, systemType: '', reconnectMinMs: 10, reconnectMaxMs: 100, random: () => randoms.shift() ?? 0.5 },
      createLogger('silent'),
      async () => 0,
    );
    const delays: number[] = [];
    const at: number[] = [];
    conn.onReconnectScheduled = (d) => {
      delays.push(d);
      at.push(performance.now());
    };
    conn.start();
    try {
      await until('8 reconnect attempts', () => delays.length >= 8, 5_000);
    } finally {
      await conn.stop();
    }
    expect(delays.slice(0, 8)).toEqual([8, 24, 40, 64, 100, 100, 80, 100]);
    // The attempts really are spaced by those delays (timers, not a busy loop).
    for (let i = 1; i < 8; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(delays[i - 1]! - 2);
    // A submit while there is no bind fails at once instead of waiting for the SMSC.
    const t0 = performance.now();
    await expect(conn.submit({ destination_addr: '49151', short_message: 'x' }, Date.now() + 20_000)).rejects.toMatchObject({ code: 'SMPP_STOPPED' });
    expect(performance.now() - t0).toBeLessThan(100);
  });
});

describe('SMPP adapter supervision', () => {
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

  async function adapter(overrides: Partial<SmppCarrierOptions> = {}) {
    const events: CarrierEvent[] = [];
    const carrier = new SmppCarrier(
      database.db,
      systemClock,
      createLogger('silent'),
      { url: smsc.url(), window: 10, enquireLinkMs: 100, systemType: '', reconnectMinMs: 30, reconnectMaxMs: 200, responseTimeoutMs: 10_000, reportIntervalMs: 40, ...overrides },
      new SenderDirectory(database.db),
    );
    await carrier.start(async (evs) => {
      events.push(...evs);
      return evs.map(() => true);
    });
    stops.push(() => carrier.stop());
    await until('bind', () => carrier.isBound());
    return { carrier, events };
  }

  it('an unanswered enquire_link marks the bind dead: closed and bound again, well before the response timeout', async () => {
    smsc = await startFakeSmsc();
    const { carrier } = await adapter({ enquireLinkTimeoutMs: 300 });
    expect(smsc.binds).toBe(1);
    smsc.answerEnquireLink = false; // the SMSC hangs; TCP stays up
    const t0 = Date.now();
    await until('a second bind', () => smsc.binds >= 2, 3_000);
    expect(Date.now() - t0).toBeLessThan(3_000);
    smsc.answerEnquireLink = true;
    await until('bound again', () => carrier.isBound());
    const binds = smsc.binds;
    // Answered enquire_links keep the new bind: four of them (every 100 ms) span more than the 300 ms timeout, however
    // slowly this machine runs them — a fixed sleep would pass without any having been sent.
    const links = smsc.enquireLinks;
    await until('four answered enquire_links', () => smsc.enquireLinks >= links + 4, 5_000);
    expect(smsc.binds).toBe(binds);
    const o = await carrier.send(sms(1, 'after the hang'));
    expect(o.ok).toBe(true);
  });

  it('a submit_sm without response in time resets the link; the send gives up without waiting on the SMSC', async () => {
    smsc = await startFakeSmsc();
    const { carrier } = await adapter({ responseTimeoutMs: 300, rebindGraceMs: 200, submitDeadlineMs: 1_500 });
    smsc.respondAfterMs = 60_000; // accepted by TCP, never answered
    const t0 = Date.now();
    const o = await carrier.send(sms(3, 'never answered'));
    expect(Date.now() - t0).toBeLessThan(4_000);
    expect(o).toMatchObject({ ok: false, retryable: true });
    expect(smsc.binds).toBeGreaterThanOrEqual(2);
  });

  it('with SMPP_BIND_MODE transmitter_receiver: submits over the transmitter, receipts over the receiver, both supervised', async () => {
    smsc = await startFakeSmsc();
    const { carrier, events } = await adapter({ bindMode: 'transmitter_receiver' });
    expect([...smsc.boundModes()].sort()).toEqual(['receiver', 'transmitter']);
    const m = sms(2, 'Two parts over TX: '.padEnd(170, 'q'));
    const o = await carrier.send(m);
    expect(o.ok).toBe(true);
    const accepted = smsc.accepted().filter((s) => s.destinationAddr === m.to.slice(1));
    expect(accepted).toHaveLength(2);
    expect(accepted.every((s) => s.bindMode === 'transmitter')).toBe(true);
    for (const s of accepted) expect(await smsc.receipt(s.messageId!, 'DELIVRD')).toBe(0);
    await until('DELIVERED', () => events.find((e) => e.kind === 'status' && e.messageId === m.messageId && e.status === 'DELIVERED'));

    // Either bind dropping is noticed and bound again on its own.
    const rx = smsc.boundSession()!;
    rx.destroy();
    await until('receiver rebound', () => smsc.bindModes.filter((b) => b === 'receiver').length === 2 && carrier.isBound());
    expect(smsc.bindModes.filter((b) => b === 'transmitter')).toHaveLength(1);
  });
});

describe('SMPP outage through the server: accepted at once, queued, sent once when the SMSC is back', () => {
  let smsc: FakeSmsc;
  let t: TestServer;

  beforeAll(async () => {
    smsc = await startFakeSmsc();
    t = await startTestServer({ env: { CARRIER_SMS: 'smpp', SMPP_URL: smsc.url(), SMPP_ENQUIRE_LINK_SECONDS: '1', SMPP_BIND_MODE: 'transmitter_receiver' } });
    await until('bind', () => (t.ctx.carriers.sms as SmppCarrier).isBound());
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
  });

  const record = async (id: string) => (await t.api('GET', `/api/messages/log?messageId=${id}`)).body.messages[0];

  it('moves a message to DELIVERED with the receipt arriving over the receiver bind', async () => {
    const to = num(10);
    const r = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: to, message: 'Over two binds', sendernameId: t.account.senders.sms });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.messageId as string;
    await until('SENT', async () => (await record(id))?.status === 'SENT');
    const sub = smsc.accepted().find((s) => s.destinationAddr === to.slice(1))!;
    expect(sub.bindMode).toBe('transmitter');
    expect(await smsc.receipt(sub.messageId!, 'DELIVRD')).toBe(0);
    await until('DELIVERED', async () => (await record(id))?.status === 'DELIVERED');
  });

  it('answers sends at once with queued: true while the SMSC is down, and submits each exactly once when it is back', async () => {
    const carrier = t.ctx.carriers.sms as SmppCarrier;
    await smsc.down();
    await until('unbound', () => !carrier.isBound());
    const numbers = Array.from({ length: 8 }, (_, i) => num(100 + i));
    const ids: string[] = [];
    for (const [i, to] of numbers.entries()) {
      const t0 = performance.now();
      const r = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: to, message: `Outage ${i}: your code is ${1000 + i}`, sendernameId: t.account.senders.sms });
      const ms = performance.now() - t0;
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(ms).toBeLessThan(2_000);
      expect(r.body).toMatchObject({ success: true, queued: true });
      ids.push(r.body.messageId as string);
    }
    // A long one too: its parts must leave together once the bind is back.
    const long = num(199);
    const rl = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: long, message: 'Long outage message '.padEnd(300, 'w'), sendernameId: t.account.senders.sms });
    expect(rl.body).toMatchObject({ success: true, queued: true });
    ids.push(rl.body.messageId as string);

    // The outage lasts several dispatcher rounds and attempt budgets' worth of time: nothing fails.
    await sleep(2_500);
    for (const id of ids) expect((await record(id)).status).not.toBe('FAILED');
    const attempts = await t.ctx.db.selectFrom('messages').select(['attempts', 'pending']).where('id', 'in', ids).execute();
    expect(attempts.every((a) => a.pending === 1 && a.attempts <= 1)).toBe(true);

    await smsc.up();
    for (const id of ids) await until(`SENT ${id}`, async () => (await record(id))?.status === 'SENT', 20_000);
    for (const [i, to] of numbers.entries()) {
      const got = smsc.accepted().filter((s) => s.destinationAddr === to.slice(1));
      expect(got.map((s) => s.text)).toEqual([`Outage ${i}: your code is ${1000 + i}`]);
      expect(got[0]!.bindMode).toBe('transmitter');
    }
    const parts = smsc.accepted().filter((s) => s.destinationAddr === long.slice(1));
    expect(parts).toHaveLength(2);
    expect(new Set(parts.map((p) => p.udh[3])).size).toBe(1);
    // Nothing was submitted beyond those (no doubles from a resubmit).
    expect(smsc.submits.filter((s) => s.outcome !== 'accepted')).toEqual([]);
  });
});
