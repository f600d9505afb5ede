import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeysService } from '../../src/accounts/api-keys.js';
import { AccountsService } from '../../src/accounts/service.js';
import { BillingService } from '../../src/billing/service.js';
import { loadConfig } from '../../src/config.js';
import { systemClock } from '../../src/platform/clock.js';
import { openDatabase } from '../../src/bootstrap/database.js';
import { type PostgresDb } from '../../src/platform/db/database.js';
import { ALL_PERMISSIONS } from '../../src/platform/permissions.js';
import { SendersService } from '../../src/senders/service.js';
import { ATTEMPT_HEADER, DELIVERY_ID_HEADER, EVENT_ID_HEADER } from '../../src/webhooks/signing.js';
import { ENDPOINT_CONCURRENCY } from '../../src/webhooks/worker.js';
import { expectLedgerBalanced } from '../billing/invariant.js';
import { firstStartKey, startChildServer, type ChildServer } from '../helpers/child-server.js';
import { sleep, testNumber } from '../helpers/child-probes.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';
import { postgresUnreachable, POSTGRES_ADMIN_URL } from '../helpers/postgres.js';
import { WebClient } from '../helpers/web-client.js';

/**
 * Issue #19, "Any number of instances": three real server processes (src/main.ts) on one fresh
 * PostgreSQL database. A 10,000-recipient batch accepted (and so leased, adopted) by one of them,
 * scheduled sends and webhook traffic of a second account spread over all three, and the
 * accepting instance killed with SIGKILL while it dispatches. Afterwards every recipient has
 * exactly one message at the simulated carrier (`sim_messages`, unique by our message id), the
 * dead instance's leases were taken over only once they ran out, every message is final, each
 * scheduled send fired once, and each webhook event was answered by the local receiver exactly
 * once (posts in flight at the killed instance were posted again under the next attempt number).
 * A key revoked on one instance is refused by the others at once. Skipped without a server,
 * unless REQUIRE_POSTGRES=1 (CI).
 */
const unreachable = await postgresUnreachable();
const required = process.env.REQUIRE_POSTGRES === '1';

describe.runIf(required && unreachable !== null)('PostgreSQL required (REQUIRE_POSTGRES=1)', () => {
  it('is reachable', () => {
    throw new Error(`PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL.replace(/\/\/[^@]*@/, '//…@')}: ${unreachable}`);
  });
});

const N = 10_000;
const SCHEDULED = 30;
const HOOKED = 150;

interface Received {
  eventId: string;
  deliveryId: string;
  attempt: number;
  messageId: string;
  status: string;
  /** When the receiver got it (Date.now()). */
  at: number;
}

interface HeldPost {
  post: Received;
  closed: boolean;
  answer(): void;
}

describe.skipIf(unreachable !== null)('three instances on one PostgreSQL database', () => {
  let database: TestDatabase;
  let probe: pg.Pool;
  let direct: PostgresDb;
  const dataDirs = [0, 1, 2].map((i) => fs.mkdtempSync(path.join(os.tmpdir(), `rcs-multi-${i}-`)));
  const servers: (ChildServer | null)[] = [null, null, null];
  const sealingKey = randomBytes(32).toString('hex');
  let demoKey = '';
  let demoSender = '';
  /** Posts the receiver answered 2xx. */
  const received: Received[] = [];
  /** Posts whose connection closed before the receiver answered (their sender died). */
  const orphaned: Received[] = [];
  /** Until the kill, posts are held unanswered: the posts in flight then include the dying instance's. */
  let held: HeldPost[] | null = [];
  let receiver: http.Server;
  let receiverUrl = '';

  const envOf = (i: number) => ({
    DATA_DIR: dataDirs[i]!,
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: '6',
    // One key for all: each instance must open what another sealed (TOTP secrets, signing keys).
    SEALING_KEY: sealingKey,
    SIM_DELIVERY_DELAY_MS: '0',
    SIM_READ_DELAY_MS: '0',
    DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    WEBHOOK_RETRY_BASE_MS: '200',
  });
  const api = async (i: number, key: string, method: string, pathname: string, body?: unknown) => {
    const res = await fetch(`${servers[i]!.url}${pathname}`, {
      method,
      headers: { 'X-API-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) };
  };
  const count = async (text: string, ...params: unknown[]) => Number((await probe.query<{ n: string }>(text, params)).rows[0]!.n);
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number, what: string, pollMs = 100): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await read();
      if (ok(v)) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}\n${servers.map((s, i) => `--- instance ${i}\n${s?.output().slice(-1500) ?? '(stopped)'}`).join('\n')}`);
      await sleep(pollMs);
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase('rcs_multi');
    probe = new pg.Pool({ connectionString: database.url, max: 2 });
    // pool.end() resolves before its clients' sockets have closed, and the database is then dropped
    // with (force): a session still closing is cut off (57P01), which an idle client reports to the
    // pool — with no listener, an uncaught exception in the run. The server's own pools listen too.
    probe.on('error', () => undefined);
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const m = (JSON.parse(body) as { message?: { messageRecordId: string; status: string } }).message;
        const post: Received = {
          eventId: String(req.headers[EVENT_ID_HEADER.toLowerCase()]),
          deliveryId: String(req.headers[DELIVERY_ID_HEADER.toLowerCase()]),
          attempt: Number(req.headers[ATTEMPT_HEADER.toLowerCase()]),
          messageId: m?.messageRecordId ?? '',
          status: m?.status ?? '',
          at: Date.now(),
        };
        const answer = () => {
          received.push(post);
          res.writeHead(204).end();
        };
        if (!held) return answer();
        const h: HeldPost = { post, closed: false, answer };
        res.on('close', () => (h.closed = !res.writableEnded));
        held.push(h);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  }, 60_000);

  afterAll(async () => {
    for (const s of servers) if (s) await s.stop('SIGKILL');
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
    try {
      if (direct) await expectLedgerBalanced(direct.db, 'three instances on PostgreSQL');
    } finally {
      await direct?.close();
      await probe?.end();
      await database?.drop();
      for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
    }
  }, 60_000);

  it('three instances start on one fresh database: one migrates and seeds the demo account, the others join', async () => {
    servers[0] = await startChildServer(envOf(0), 60_000);
    demoKey = firstStartKey(dataDirs[0]!);
    expect(demoKey).toMatch(/^rcsk_/);
    [servers[1], servers[2]] = await Promise.all([startChildServer(envOf(1), 60_000), startChildServer(envOf(2), 60_000)]);
    // Neither joining instance seeded a second demo account.
    expect(fs.existsSync(path.join(dataDirs[1]!, 'first-start-credentials.txt'))).toBe(false);
    expect(await count('select count(*) as n from accounts')).toBe(1);
    for (let i = 0; i < 3; i++) {
      const health = await fetch(`${servers[i]!.url}/api/rcs/health`);
      expect(health.status).toBe(200);
      const senders = await api(i, demoKey, 'GET', '/api/rcs/senders?type=RCS');
      expect(senders.status).toBe(200);
      demoSender ||= senders.body.sendernames.find((s: any) => !s.isTest).id;
    }
    expect(demoSender).toMatch(/^snd_/);
    direct = await openDatabase(loadConfig({ DATABASE_URL: database.url, DATABASE_POOL_MAX: '2' }).postgres!);
  }, 120_000);

  it('a key revoked on one instance is refused by the others at once', async () => {
    const first = fs.readFileSync(path.join(dataDirs[0]!, 'first-start-credentials.txt'), 'utf8');
    const field = (label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(first)![1]!;
    const web = new WebClient(servers[0]!.url);
    const login = await web.login(field('Email'), field('Password'), field('TOTP secret'));
    expect(login.status).toBe(303);
    const page = await web.get('/console/api-keys');
    const created = await web.post('/console/api-keys', { csrf: WebClient.hidden(page.text, 'csrf'), name: 'Short-lived', permissions: 'messages:read' });
    expect(created.status).toBe(201);
    const key = /rcsk_[\w-]+/.exec(created.text)![0];
    const keyId = (await probe.query<{ id: string }>("select id from api_keys where name = 'Short-lived'")).rows[0]!.id;
    // Every instance has seen (and may have cached) the key as valid.
    for (let i = 0; i < 3; i++) for (let k = 0; k < 3; k++) expect((await api(i, key, 'GET', '/api/rcs/senders')).status).toBe(200);
    const revoked = await web.post(`/console/api-keys/${keyId}/revoke`, { csrf: WebClient.hidden(created.text, 'csrf') });
    expect(revoked.status).toBe(303);
    for (const i of [1, 2, 0]) {
      const r = await api(i, key, 'GET', '/api/rcs/senders');
      expect(r.status, `instance ${i}`).toBe(401);
    }
  }, 60_000);

  it('a batch, scheduled sends and webhooks across the instances, one killed with SIGKILL mid-dispatch: everything sent once, every event delivered', async () => {
    // A second tenant, made the way the admin CLI makes one, with a webhook to a local receiver.
    const clock = systemClock;
    const other = await new AccountsService({ db: direct.db, clock, billing: new BillingService({ db: direct.db, clock }) }).create({ name: 'Hooked Co', timezone: 'Europe/Berlin', credits: 1000 });
    const otherSender = (await new SendersService({ db: direct.db, clock }).create(other.id, { name: 'Hooked Agent', type: 'RCS', status: 'APPROVED', isDefault: true })).id;
    const otherKey = (await new ApiKeysService({ db: direct.db, clock }).create(other.id, 'hooks', ALL_PERMISSIONS)).key;
    const hook = await api(1, otherKey, 'POST', '/api/rcs/webhooks', { url: receiverUrl, events: ['delivery_status'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);

    // Scheduled sends through every instance, all due at the same moment, while the batch below is being sent.
    const due = Date.now() + 8_000;
    const scheduledIds: string[] = [];
    for (let k = 0; k < SCHEDULED; k++) {
      const r = await api(k % 3, otherKey, 'POST', '/api/rcs/send', { phoneNumber: testNumber(30_000_000, k), messageType: 'text', content: { text: `Later ${k}` }, sendernameId: otherSender, scheduleAt: new Date(due).toISOString() });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      scheduledIds.push(r.body.messageId);
    }
    // Webhook traffic from a batch accepted by another instance.
    const hooked = await api(2, otherKey, 'POST', '/api/rcs/send-batch', { phoneNumbers: Array.from({ length: HOOKED }, (_, k) => testNumber(40_000_000, k)), messageType: 'text', content: { text: 'Hooked' }, sendernameId: otherSender, batchSize: 25, delayMs: 200 });
    expect(hooked.status, JSON.stringify(hooked.body)).toBe(202);

    // The endpoint's slots (ENDPOINT_CONCURRENCY over all instances) fill with posts held unanswered.
    await until(async () => held!.length, (n) => n > 0, 60_000, 'the first webhook posts');

    const creditsBefore = Number((await probe.query<{ c: string }>('select credits_milli as c from accounts where id <> $1', [other.id])).rows[0]!.c);
    const phones = Array.from({ length: N }, (_, i) => testNumber(10_000_000, i));
    // All due now: the accepting instance leases every message as it commits them (adopt) and sends them in rounds.
    const batch = await api(0, demoKey, 'POST', '/api/rcs/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Hello {{contact_phone}}' }, sendernameId: demoSender, batchSize: 1000, delayMs: 0 });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    expect(batch.body.accepted).toBe(N);
    const jobId: string = batch.body.jobId;

    // SIGKILL the accepting instance once part, not all, of the batch is at the carrier.
    const jobAtCarrier = () => count('select count(*) as n from sim_messages s join messages m on m.id = s.message_id where m.job_id = $1', jobId);
    const atKill = await until(jobAtCarrier, (n) => n >= 1500, 60_000, 'the first messages at the carrier', 5);
    // Each instance is a row of `instances` (src/platform/instances/): the accepting one's id is on its claims.
    const instanceRows = (await probe.query<{ id: string; pid: string }>('select id, pid from instances')).rows;
    expect(instanceRows).toHaveLength(3);
    const deadId = instanceRows.find((r) => Number(r.pid) === servers[0]!.proc.pid)!.id;
    expect(await servers[0]!.stop('SIGKILL')).toBe('SIGKILL');
    const killedAt = Date.now();
    servers[0] = null;
    const carrierAtKill = await jobAtCarrier();
    // Still pending, claimed by the dead instance (the survivors find it dead within about a second: its process is
    // gone from this host; elsewhere its heartbeat would go stale within 2.5 s).
    const leasedAtKill = (await probe.query<{ id: string; lease_until: string }>('select id, lease_until from messages where job_id = $1 and pending = 1 and claimed_by = $2', [jobId, deadId])).rows;
    console.log(`multi-instance: at SIGKILL ${carrierAtKill}/${N} at the carrier (${atKill} when seen), ${leasedAtKill.length} pending and claimed by the dead instance`);
    expect(carrierAtKill).toBeLessThan(N);
    expect(leasedAtKill.length).toBeGreaterThan(0);
    expect(leasedAtKill.every((m) => m.lease_until !== null)).toBe(true);
    // Webhook posts held until now: the killed instance's connections closed; answer the others.
    await sleep(1000);
    const heldAtKill = held!;
    held = null;
    for (const h of heldAtKill) if (h.closed) orphaned.push(h.post);
    for (const h of heldAtKill) if (!h.closed) h.answer();
    console.log(`multi-instance: ${heldAtKill.length} webhook posts in flight at SIGKILL, ${orphaned.length} of them the killed instance's`);
    expect(heldAtKill.length).toBeGreaterThan(0);

    // The survivors finish: the dead instance's claims are given back and claimed again, long before their leases run out.
    await until(() => count('select count(*) as n from messages where pending = 1'), (n) => n === 0, 120_000, 'every message to leave the queue', 500);

    // Every recipient: one message, one hand-over at the carrier, the record pointing at it, final.
    const messages = (await probe.query<{ id: string; phone: string; status: string; carrier_message_id: string | null }>('select id, phone, status, carrier_message_id from messages where job_id = $1', [jobId])).rows;
    expect(messages).toHaveLength(N);
    expect(new Set(messages.map((m) => `+${m.phone}`))).toEqual(new Set(phones));
    expect(messages.filter((m) => !['SENT', 'DELIVERED', 'READ'].includes(m.status))).toEqual([]);
    const sim = (await probe.query<{ id: string; message_id: string }>('select s.id, s.message_id from sim_messages s join messages m on m.id = s.message_id where m.job_id = $1', [jobId])).rows;
    expect(sim).toHaveLength(N);
    expect(new Set(sim.map((s) => s.message_id)).size).toBe(N);
    const carrierId = new Map(sim.map((s) => [s.message_id, s.id]));
    expect(messages.filter((m) => m.carrier_message_id !== carrierId.get(m.id))).toEqual([]);
    // The dead instance's claims were taken over, each by one survivor (second attempt), within 5 s of the kill and
    // each before its lease would have run out.
    const takenOver = (await probe.query<{ id: string; attempts: string; sent_at: string }>('select id, attempts, sent_at from messages where id = any($1)', [leasedAtKill.map((m) => m.id)])).rows;
    const leaseOf = new Map(leasedAtKill.map((m) => [m.id, Number(m.lease_until)]));
    // What the survivors logged as errors or warnings explains a failure here when one happens.
    const complaints = () => servers.flatMap((s, i) => (s?.output().split('\n') ?? []).filter((l) => /"level":(40|50|60)/.test(l)).map((l) => `instance ${i}: ${l.slice(0, 600)}`)).join('\n');
    // Second attempt, once: a give-back that waited for a survivor's record deadlocked with it, and the aborted record
    // left 1,000 messages to a third attempt after their lease (seen in CI); the give-back now skips held rows and a
    // record aborted in a conflict runs again (dispatcher.ts record).
    expect(takenOver.filter((m) => Number(m.attempts) !== 2), complaints()).toEqual([]);
    expect(takenOver.filter((m) => Number(m.sent_at) >= leaseOf.get(m.id)!), complaints()).toEqual([]);
    const takeOverMs = Math.min(...takenOver.map((m) => Number(m.sent_at))) - killedAt;
    console.log(`multi-instance: the dead instance's ${takenOver.length} messages were taken over ${takeOverMs} ms after the kill`);
    expect(takeOverMs).toBeLessThanOrEqual(5_000);
    expect(await count('select count(*) as n from instances where id = $1', deadId)).toBe(0);
    // Charged once per recipient (0.035 per DE RCS message).
    expect(Number((await probe.query<{ c: string }>('select credits_milli as c from accounts where id <> $1', [other.id])).rows[0]!.c)).toBe(creditsBefore - N * 35);

    // Each scheduled send fired once, not before its time.
    const fired = (await probe.query<{ id: string; status: string; sent_at: string; n: string }>('select m.id, m.status, m.sent_at, (select count(*) from sim_messages s where s.message_id = m.id) as n from messages m where m.id = any($1)', [scheduledIds])).rows;
    expect(fired).toHaveLength(SCHEDULED);
    for (const m of fired) {
      expect(Number(m.n), m.id).toBe(1);
      expect(['SENT', 'DELIVERED', 'READ']).toContain(m.status);
      expect(Number(m.sent_at)).toBeGreaterThanOrEqual(due - 10);
    }

    // Webhooks: every event answered by the receiver exactly once. The last receipts (DELIVERED, READ of the messages
    // sent last) fire on the simulated network's next tick after the queue empties: wait for them, not a fixed time.
    const expectedEvents = (HOOKED + SCHEDULED) * 3; // SENT, DELIVERED, READ of each message
    await until(() => count('select count(*) as n from webhook_events where account_id = $1', other.id), (n) => n >= expectedEvents, 30_000, 'every receipt as a webhook event', 100);
    const events = (await probe.query<{ id: string }>('select id from webhook_events where account_id = $1', [other.id])).rows.map((e) => e.id);
    expect(events.length).toBe(expectedEvents);
    await until(() => count("select count(*) as n from webhook_deliveries where status = 'pending'"), (n) => n === 0, 90_000, 'no webhook delivery pending', 200);
    expect(received.map((r) => r.eventId).sort()).toEqual([...events].sort());
    // One event per message and status: each receipt was applied by one instance.
    expect(new Set(received.map((r) => `${r.messageId}:${r.status}`)).size).toBe(events.length);
    // No attempt was posted twice: two instances never held one delivery at once.
    const attempts = [...received, ...orphaned].map((r) => `${r.deliveryId}#${r.attempt}`);
    expect(attempts.length - new Set(attempts).size).toBe(0);
    // The dead instance's posts went out again, under a later attempt, within seconds of the kill (not after the lease).
    expect(orphaned.length).toBeLessThanOrEqual(ENDPOINT_CONCURRENCY);
    for (const o of orphaned) {
      const again = received.find((r) => r.deliveryId === o.deliveryId)!;
      expect(again.attempt).toBeGreaterThan(o.attempt);
      expect(again.at - killedAt).toBeLessThanOrEqual(5_000);
    }
    console.log(`multi-instance: ${events.length} webhook events, ${received.length + orphaned.length} posts, ${orphaned.length} again after the kill`);
  }, 240_000);
});
