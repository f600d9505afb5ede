import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firstStartKey, startChildServer, type ChildServer } from '../helpers/child-server.js';
import { poller, serverDb, testNumber } from '../helpers/child-probes.js';
import { testDatabaseEnv } from '../helpers/database.js';

/**
 * Issue #17: a batch committed, the client lost the socket before the 202 and sent the same body
 * again — a second job, every recipient got two messages, credits debited twice. With an
 * Idempotency-Key the retry must answer the first 202 and do nothing again. The real entry point
 * runs in a child process; the request goes over a raw socket that is destroyed right after the
 * request is written, so the client never reads the answer.
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-idem-'));
// Its own PostgreSQL schema with TEST_DATABASE=postgres.
const { env: dbEnv, schema } = await testDatabaseEnv('idem');
const env = { DATA_DIR: dataDir, SIM_DELIVERY_DELAY_MS: '0', SIM_READ_DELAY_MS: '0', ...dbEnv };
const db = serverDb(env);
const { query, one } = db;
let server: ChildServer | null = null;
let apiKey = '';
let rcsSender = '';

afterAll(async () => {
  if (server) await server.stop('SIGKILL');
  try {
    await db.expectLedgerBalanced();
  } finally {
    await db.close();
    await schema?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

const num = (i: number) => testNumber(50_000_000, i);
const until = poller(() => server);

/** Writes one HTTP request and destroys the socket as soon as the bytes are handed to the kernel: the answer is never read. */
function sendAndHangUp(url: string, pathname: string, headers: Record<string, string>, body: string): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      const head = [`POST ${pathname} HTTP/1.1`, `Host: ${hostname}:${port}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `Content-Length: ${Buffer.byteLength(body)}`, '', ''].join('\r\n');
      socket.write(head + body, () => {
        socket.destroy();
        resolve();
      });
    });
    socket.on('error', reject);
  });
}

describe('commit, then the socket is lost, then the same request again', () => {
  it('starts the server', async () => {
    server = await startChildServer(env);
    // Not a terminal: the first-start credentials are in the data directory's 0600 file.
    apiKey = firstStartKey(dataDir);
    expect(apiKey).not.toBe('');
    const res = await fetch(`${server.url}/api/rcs/senders?type=RCS`, { headers: { 'X-API-Key': apiKey } });
    rcsSender = ((await res.json())).sendernames.find((s: any) => !s.isTest).id;
    expect(rcsSender).toMatch(/^snd_/);
  }, 60_000);

  it('the retry answers the first 202 with Idempotent-Replayed: one job, one charge, one message per recipient at the carrier', async () => {
    const N = 1000;
    const phones = Array.from({ length: N }, (_, i) => num(i));
    const body = JSON.stringify({ phoneNumbers: phones, messageType: 'text', content: { text: 'Hello {{contact_phone}}' }, sendernameId: rcsSender });
    const key = `batch-${Date.now()}`;
    const headers = { 'X-API-Key': apiKey, 'Content-Type': 'application/json', 'Idempotency-Key': key };
    const credits = (await one<{ c: number }>('SELECT credits_milli AS c FROM accounts')).c;

    await sendAndHangUp(server!.url, '/api/rcs/send-batch', headers, body);
    const job = await until(() => query<{ id: string }>('SELECT id FROM jobs'), (rows) => rows.length === 1, 30_000, 'the job of the lost request');

    const retry = await fetch(`${server!.url}/api/rcs/send-batch`, { method: 'POST', headers, body });
    const answer = (await retry.json());
    expect(retry.status, JSON.stringify(answer)).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(answer).toMatchObject({ success: true, jobId: job[0]!.id, accepted: N, status: 'processing' });
    // The very answer the lost request got, as stored by the server.
    const stored = await one<{ response_status: number; response_body: string }>('SELECT response_status, response_body FROM idempotency_keys');
    expect(stored.response_status).toBe(202);
    expect(answer).toEqual(JSON.parse(stored.response_body));

    // A third try, later, still changes nothing.
    const third = await fetch(`${server!.url}/api/rcs/send-batch`, { method: 'POST', headers, body });
    expect(third.status).toBe(202);
    expect(await third.json()).toEqual(answer);

    expect(await query('SELECT id FROM jobs')).toHaveLength(1);
    await until(async () => (await one<{ n: number }>('SELECT count(*) AS n FROM messages WHERE pending = 1')).n, (n) => n === 0, 60_000, 'the batch to finish');
    expect((await one<{ n: number }>('SELECT count(*) AS n FROM messages')).n).toBe(N);
    const sim = await query<{ to_phone: string }>('SELECT to_phone FROM sim_messages');
    expect(sim).toHaveLength(N);
    expect(new Set(sim.map((s) => s.to_phone))).toEqual(new Set(phones));
    // Charged once: 0.035 credits per DE RCS message.
    expect((await one<{ c: number }>('SELECT credits_milli AS c FROM accounts')).c).toBe(credits - N * 35);
  }, 120_000);
});
