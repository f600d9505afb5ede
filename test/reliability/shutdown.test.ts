import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firstStartKey, startChildServer, type ChildServer } from '../helpers/child-server.js';
import { childApi, poller, serverDb, sleep, testNumber } from '../helpers/child-probes.js';
import { testDatabaseEnv } from '../helpers/database.js';

/**
 * Graceful shutdown of the real entry point (DESIGN §3 main.ts): SIGTERM while a client dribbles
 * its request body one byte a second, while webhook posts hang at a receiver that never answers,
 * and while a batch is being sent. The process must stop accepting, give requests a bounded grace,
 * cut the stalled connection, abort the webhook posts, stop the workers, close the database and
 * exit 0 — within 10 s. After a restart the batch completes with exactly one message per
 * recipient at the simulated carrier (sim_messages, UNIQUE by our message id).
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-shutdown-'));
// Its own PostgreSQL schema with TEST_DATABASE=postgres, kept across the restart like the data directory.
const { env: dbEnv, schema } = await testDatabaseEnv('shutdown');
const env = { DATA_DIR: dataDir, SIM_DELIVERY_DELAY_MS: '0', SIM_READ_DELAY_MS: '0', DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true', ...dbEnv };
const db = serverDb(env);
const { query, one } = db;
let server: ChildServer | null = null;
let apiKey = '';
let rcsSender = '';

/** Accepts webhook posts and never answers them. */
const hanging: http.ServerResponse[] = [];
let received = 0;
const receiver = http.createServer((_req, res) => {
  received++;
  hanging.push(res);
});
const slowSockets: net.Socket[] = [];

afterAll(async () => {
  if (server) await server.stop('SIGKILL');
  for (const s of slowSockets) s.destroy();
  for (const r of hanging) r.destroy();
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
  try {
    await db.expectLedgerBalanced();
  } finally {
    await db.close();
    await schema?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

const num = testNumber;
const api = childApi(() => server, () => apiKey);
const until = poller(() => server, 3000);

/** Sends a request's headers, then its body one byte a second (never finishing within the grace). */
function slowBodyClient(url: string): { socket: net.Socket; closed: Promise<number> } {
  const u = new URL(url);
  const socket = net.connect(Number(u.port), u.hostname);
  slowSockets.push(socket);
  const started = Date.now();
  const body = JSON.stringify({ phoneNumber: num(90_000_000, 0), messageType: 'text', content: { text: 'x'.repeat(200) }, sendernameId: rcsSender });
  socket.write(`POST /api/rcs/send HTTP/1.1\r\nHost: ${u.host}\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
  let i = 0;
  const timer = setInterval(() => {
    if (i < body.length && !socket.destroyed) socket.write(body[i++]!);
  }, 1000);
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer);
      resolve(Date.now() - started);
    }),
  );
  return { socket, closed };
}

describe('SIGTERM with a slow client, hanging webhooks and a batch in progress', () => {
  it('first start: the demo account, its key and a webhook to a receiver that never answers', async () => {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    server = await startChildServer(env);
    apiKey = firstStartKey(dataDir);
    expect(apiKey).not.toBe('');
    const senders = await api('GET', '/api/rcs/senders?type=RCS');
    rcsSender = senders.body.sendernames.find((s: any) => !s.isTest).id;
    const port = (receiver.address() as net.AddressInfo).port;
    const hook = await api('POST', '/api/rcs/webhooks', { url: `http://127.0.0.1:${port}/hook`, events: ['delivery_status'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  }, 60_000);

  it('exits 0 within 10 s, cutting the slow client and aborting the posts; the batch then completes exactly once', async () => {
    // 600 recipients in slices of 20 with 400 ms between them: ~12 s of sending, so the batch
    // is still running when the grace period (5 s) is over and the dispatcher stops.
    const N = 600;
    const phones = Array.from({ length: N }, (_, i) => num(10_000_000, i));
    const credits = (await one<{ c: number }>('SELECT credits_milli AS c FROM accounts')).c;
    const r = await api('POST', '/api/rcs/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Hello {{contact_phone}}' }, sendernameId: rcsSender, batchSize: 20, delayMs: 400 });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const jobId: string = r.body.jobId;

    await until(async () => (await one<{ n: number }>('SELECT count(*) AS n FROM sim_messages')).n, (n) => n >= 40, 30_000, 'the first messages at the carrier');
    // Webhook posts for the first statuses are hanging at the receiver.
    await until(async () => received, (n) => n > 0, 30_000, 'a webhook post in flight');
    const slow = slowBodyClient(server!.url);
    await sleep(1500); // the request is in flight: headers read, body arriving byte by byte

    const t0 = Date.now();
    server!.proc.kill('SIGTERM');
    const code = await server!.exited;
    const took = Date.now() - t0;
    const out = server!.output();
    console.log(`shutdown test: SIGTERM → exit ${code} in ${took} ms; slow client cut after ${await slow.closed} ms; ${received} webhook posts were hanging`);
    expect(code, out.slice(-3000)).toBe(0);
    expect(took).toBeLessThan(10_000);
    // One line per phase, in order.
    const phases = [
      'shutdown: stopped accepting connections',
      'shutdown: grace period over; closed the connections still open',
      'shutdown: dispatcher stopped',
      'shutdown: webhook worker stopped',
      'shutdown: carriers, sandbox sweeper and WAL checkpointer stopped',
      'shutdown: database closed',
      'shutdown: done',
    ];
    const at = phases.map((p) => out.indexOf(p));
    expect(at.every((i) => i >= 0), `phases missing in:\n${out.slice(-3000)}`).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(out).not.toContain('not done after 10 s');
    expect(slow.socket.destroyed || slow.socket.readableEnded).toBe(true);
    server = null;

    // Nothing left leased: the aborted webhook posts were recorded as retries, unsent messages released.
    const carrierAtStop = (await one<{ n: number }>('SELECT count(*) AS n FROM sim_messages')).n;
    const pendingAtStop = (await one<{ n: number }>('SELECT count(*) AS n FROM messages WHERE job_id = ? AND pending = 1', jobId)).n;
    console.log(`shutdown test: at exit ${carrierAtStop}/${N} at the carrier, ${pendingAtStop} pending`);
    expect(pendingAtStop).toBeGreaterThan(0);
    expect((await one<{ n: number }>('SELECT count(*) AS n FROM messages WHERE pending = 1 AND lease_until IS NOT NULL')).n).toBe(0);
    expect((await one<{ n: number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND lease_until IS NOT NULL")).n).toBe(0);
    const aborted = (await one<{ n: number }>("SELECT count(*) AS n FROM webhook_attempts WHERE error LIKE 'Aborted: the server shut down%'")).n;
    expect(aborted).toBeGreaterThan(0);
    // The slow client's send never reached a handler: no message for its number.
    expect((await one<{ n: number }>('SELECT count(*) AS n FROM messages WHERE phone = ?', num(90_000_000, 0).slice(1))).n).toBe(0);

    // Restart: the batch completes, one message per recipient at the carrier.
    server = await startChildServer(env);
    await until(async () => (await one<{ n: number }>('SELECT count(*) AS n FROM messages WHERE job_id = ? AND pending = 1', jobId)).n, (n) => n === 0, 60_000, 'the batch to finish', 200);
    const messages = await query<{ id: string; phone: string; status: string; carrier_message_id: string | null }>('SELECT id, phone, status, carrier_message_id FROM messages WHERE job_id = ?', jobId);
    expect(messages).toHaveLength(N);
    expect(new Set(messages.map((m) => `+${m.phone}`))).toEqual(new Set(phones));
    expect(messages.filter((m) => !['SENT', 'DELIVERED', 'READ'].includes(m.status))).toEqual([]);
    const sim = await query<{ id: string; message_id: string; to_phone: string }>('SELECT s.id, s.message_id, s.to_phone FROM sim_messages s JOIN messages m ON m.id = s.message_id WHERE m.job_id = ?', jobId);
    expect(sim).toHaveLength(N);
    expect(new Set(sim.map((s) => s.message_id)).size).toBe(N);
    expect(new Set(sim.map((s) => s.to_phone)).size).toBe(N);
    const carrierId = new Map(sim.map((s) => [s.message_id, s.id]));
    expect(messages.filter((m) => m.carrier_message_id !== carrierId.get(m.id))).toEqual([]);
    expect((await one<{ c: number }>('SELECT credits_milli AS c FROM accounts')).c).toBe(credits - N * 35);

    // And the second stop, with the receiver still hanging, is as quick.
    const t1 = Date.now();
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(Date.now() - t1).toBeLessThan(10_000);
    server = null;
  }, 180_000);
});
