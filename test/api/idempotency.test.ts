import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import { inTransaction } from '../../src/platform/db/database.js';
import { openCommitHook, withFirstCommitHook } from '../../src/platform/db/commit-hook.js';
import { PollingLoop } from '../../src/platform/polling-loop.js';
import { keyHashOf, requestFingerprint } from '../../src/platform/idempotency/key.js';
import { IdempotencyStore } from '../../src/platform/idempotency/store.js';
import { startWorkers, stopWorkers } from '../../src/workers.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { creditsOf, de, simRows, waitFor } from './messaging/util.js';

/**
 * Client idempotency (Idempotency-Key on every POST that sends or creates): a repeat answers the
 * first response and does nothing again; see src/platform/idempotency/run.ts.
 */
let t: TestServer;
let acc: TestAccount;
let seq = 0;
const fresh = () => de(7000 + ++seq);
const uniqueKey = () => `key-${Date.now()}-${++seq}-${Math.random().toString(36).slice(2)}`;
const withKey = (key: string, a: TestAccount = acc) => ({ key: a.apiKey, headers: { 'Idempotency-Key': key } });

const messagesOf = async (accountId: string) => t.ctx.db.selectFrom('messages').selectAll().where('account_id', '=', accountId).execute();
const jobsOf = async (accountId: string) => t.ctx.db.selectFrom('jobs').selectAll().where('account_id', '=', accountId).execute();
const keyRow = (accountId: string, key: string) => t.ctx.services.idempotency.find(accountId, keyHashOf(key));

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('the Idempotency-Key header', () => {
  it('is refused with 400 when empty, longer than 255 or not printable ASCII; 255 printable characters are fine', async () => {
    const body = { phoneNumber: fresh(), messageType: 'text', content: { text: 'Hi' }, sendernameId: acc.senders.rcs };
    for (const bad of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const r = await t.api('POST', '/api/rcs/send', body, withKey(bad));
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'headers.Idempotency-Key', code: 'invalid_idempotency_key' }] });
    }
    expect(await messagesOf(acc.accountId)).toHaveLength(0);
    const ok = await t.api('POST', '/api/rcs/send', body, withKey(`${'~ !'.repeat(85)}`));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('is refused with 400 when sent twice in one request', async () => {
    const { hostname, port } = new URL(t.url);
    const payload = JSON.stringify({ phoneNumber: fresh(), message: 'Twice', sendernameId: acc.senders.sms });
    const raw = await new Promise<string>((resolve, reject) => {
      let out = '';
      // Written, not ended: a client that half-closes first has the server drop the request
      // (Node's default) as soon as answering it needs a round trip to the database.
      const socket = net.connect(Number(port), hostname, () => {
        socket.write(
          [`POST /api/rcs/send-sms HTTP/1.1`, `Host: ${hostname}`, `X-API-Key: ${acc.apiKey}`, 'Idempotency-Key: one', 'Idempotency-Key: two', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(payload)}`, 'Connection: close', '', payload].join('\r\n'),
        );
      });
      socket.on('data', (d) => (out += d.toString()));
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('invalid_idempotency_key');
  });
});

describe('a repeat with the same key and body', () => {
  it('POST /send: the first response again (status and body), Idempotent-Replayed, one message, one charge, one hand-over', async () => {
    const a = await t.createAccount();
    const key = uniqueKey();
    const body = { phoneNumber: fresh(), messageType: 'text', content: { text: 'Once only' }, sendernameId: a.senders.rcs };
    const before = await creditsOf(t, a.accountId);
    const first = await t.api('POST', '/api/rcs/send', body, withKey(key, a));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Key order and whitespace do not make another request.
    const again = await t.api('POST', '/api/rcs/send', undefined, { ...withKey(key, a), rawBody: JSON.stringify({ sendernameId: body.sendernameId, content: body.content, messageType: 'text', phoneNumber: body.phoneNumber }, null, 2) });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await messagesOf(a.accountId)).toHaveLength(1);
    expect(await creditsOf(t, a.accountId)).toBeCloseTo(before - 0.035, 6);
    await waitFor(async () => (await simRows(t, first.body.messageRecordId)).length === 1, { what: 'the hand-over' });
    expect(await simRows(t, first.body.messageRecordId)).toHaveLength(1);
    // The key is stored hashed, never in the clear.
    const row = await keyRow(a.accountId, key);
    expect(row).toMatchObject({ key_hash: keyHashOf(key), method: 'POST', path: '/api/rcs/send', response_status: 200 });
    expect(row!.committed_at).not.toBeNull();
    expect(JSON.stringify(row)).not.toContain(key);
  });

  it('POST /send-sms: replayed, one message, one charge', async () => {
    const a = await t.createAccount();
    const key = uniqueKey();
    const body = { phoneNumber: fresh(), message: 'Your code is 1234', sendernameId: a.senders.sms };
    const before = await creditsOf(t, a.accountId);
    const first = await t.api('POST', '/api/rcs/send-sms', body, withKey(key, a));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await t.api('POST', '/api/rcs/send-sms', body, withKey(key, a));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await messagesOf(a.accountId)).toHaveLength(1);
    expect(await creditsOf(t, a.accountId)).toBeCloseTo(before - 0.085, 6);
    expect(await simRows(t, first.body.messageId)).toHaveLength(1);
  });

  it('POST /send-batch: the same 202 body, one job', async () => {
    const a = await t.createAccount();
    const key = uniqueKey();
    const body = { phoneNumbers: [fresh(), fresh(), fresh()], messageType: 'text', content: { text: 'Batch' }, sendernameId: a.senders.rcs };
    const first = await t.api('POST', '/api/rcs/send-batch', body, withKey(key, a));
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const again = await t.api('POST', '/api/rcs/send-batch', body, withKey(key, a));
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await jobsOf(a.accountId)).toHaveLength(1);
    expect(await messagesOf(a.accountId)).toHaveLength(3);
  });

  it('creates once on every create route: contacts, bulk contacts, groups, templates, template groups, fields, forms', async () => {
    const a = await t.createAccount();
    const creates: Array<[string, unknown, string]> = [
      ['/api/v1/contacts', { phone: fresh(), firstName: 'Ada' }, 'contacts'],
      ['/api/v1/contacts/bulk', { contacts: [{ phone: fresh() }, { phone: fresh() }] }, 'contacts'],
      ['/api/v1/groups', { name: 'Once' }, 'contact_groups'],
      ['/api/v1/templates', { name: 'Welcome once', type: 'SMS', content: 'Hi {{contact_first_name}}' }, 'templates'],
      ['/api/v1/templates/groups', { name: 'Seasonal once' }, 'template_groups'],
      ['/api/v1/contacts/fields', { name: 'Tier once', tag: 'tier_once' }, 'custom_fields'],
      ['/api/v1/forms', { name: 'Newsletter once', doubleOptIn: false }, 'forms'],
    ];
    for (const [path, body, table] of creates) {
      const count = async () =>
        Number((await t.ctx.db.selectFrom(table as 'contacts').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', a.accountId).executeTakeFirstOrThrow()).n);
      const before = await count();
      const key = uniqueKey();
      const first = await t.api('POST', path, body, withKey(key, a));
      expect(first.status, `${path} ${JSON.stringify(first.body)}`).toBeLessThan(300);
      const again = await t.api('POST', path, body, withKey(key, a));
      expect(again.status, path).toBe(first.status);
      expect(again.headers.get('idempotent-replayed'), path).toBe('true');
      expect(again.body, path).toEqual(first.body);
      expect(await count(), path).toBe(before + (path.endsWith('/bulk') ? 2 : 1));
      // The work's own transaction carried the "committed" mark (the crash-safe path).
      expect((await keyRow(a.accountId, key))!.committed_at, path).not.toBeNull();
    }
  });
});

describe('the same key for something else', () => {
  it('another body with the same key is 422 IDEMPOTENCY_MISMATCH and sends nothing', async () => {
    const a = await t.createAccount();
    const key = uniqueKey();
    const body = { phoneNumber: fresh(), messageType: 'text', content: { text: 'One' }, sendernameId: a.senders.rcs };
    expect((await t.api('POST', '/api/rcs/send', body, withKey(key, a))).status).toBe(200);
    const other = await t.api('POST', '/api/rcs/send', { ...body, content: { text: 'Two' } }, withKey(key, a));
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_MISMATCH');
    const otherPath = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: body.phoneNumber, message: 'One', sendernameId: a.senders.sms }, withKey(key, a));
    expect(otherPath.status).toBe(422);
    expect(await messagesOf(a.accountId)).toHaveLength(1);
  });

  it('keys are per account: the same key in two accounts runs in each', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const key = uniqueKey();
    const ra = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: 'A', sendernameId: a.senders.sms }, withKey(key, a));
    const rb = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: 'B', sendernameId: b.senders.sms }, withKey(key, b));
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(ra.body.messageId).not.toBe(rb.body.messageId);
    expect(await messagesOf(a.accountId)).toHaveLength(1);
    expect(await messagesOf(b.accountId)).toHaveLength(1);
    // The same body from another account is not a replay of the first either.
    const rb2 = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: 'A', sendernameId: b.senders.sms }, withKey(uniqueKey(), b));
    expect(rb2.headers.get('idempotent-replayed')).toBeNull();
  });

  it('an error before anything was done is not stored: the fixed request runs with the same key', async () => {
    const a = await t.createAccount();
    const key = uniqueKey();
    const bad = { phoneNumber: fresh(), messageType: 'text', content: {}, sendernameId: a.senders.rcs };
    const r1 = await t.api('POST', '/api/rcs/send', bad, withKey(key, a));
    expect(r1.status).toBe(400);
    const r2 = await t.api('POST', '/api/rcs/send', bad, withKey(key, a));
    expect(r2.status).toBe(400);
    expect(r2.headers.get('idempotent-replayed')).toBeNull();
    expect(await keyRow(a.accountId, key)).toBeUndefined();
    const fixed = await t.api('POST', '/api/rcs/send', { ...bad, content: { text: 'Fixed' } }, withKey(key, a));
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    expect(await messagesOf(a.accountId)).toHaveLength(1);
  });
});

describe('concurrency', () => {
  it('identical requests at the same moment: one executes, the others answer its response', async () => {
    const a = await t.createAccount();
    const key = uniqueKey();
    const body = { phoneNumbers: Array.from({ length: 200 }, () => fresh()), messageType: 'text', content: { text: 'Race {{contact_phone}}' }, sendernameId: a.senders.rcs };
    const before = await creditsOf(t, a.accountId);
    const answers = await Promise.all(Array.from({ length: 6 }, () => t.api('POST', '/api/rcs/send-batch', body, withKey(key, a))));
    for (const r of answers) expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(new Set(answers.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
    expect(await jobsOf(a.accountId)).toHaveLength(1);
    expect(await messagesOf(a.accountId)).toHaveLength(200);
    expect(await creditsOf(t, a.accountId)).toBeCloseTo(before - 200 * 0.035, 6);
  });

  it('a first request still running past the wait: 409 IDEMPOTENCY_IN_PROGRESS with Retry-After, nothing done', async () => {
    const a = await t.createAccount();
    const key = uniqueKey();
    const body = { phoneNumber: fresh(), message: 'Still running', sendernameId: a.senders.sms };
    // Another instance holds the key and is working (fresh lock, nothing committed yet).
    const claimed = await t.ctx.services.idempotency.claim({ accountId: a.accountId, keyHash: keyHashOf(key), requestHash: requestFingerprint('POST', '/api/rcs/send-sms', body), method: 'POST', path: '/api/rcs/send-sms' });
    expect('attempt' in claimed).toBe(true);
    const started = Date.now();
    const r = await t.api('POST', '/api/rcs/send-sms', body, withKey(key, a));
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(r.headers.get('retry-after')).toBe('1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
    expect(await messagesOf(a.accountId)).toHaveLength(0);
  }, 20_000);
});

describe('after a crash (a key row left running)', () => {
  const claimFor = async (a: TestAccount, key: string, path: string, body: unknown) => {
    const c = await t.ctx.services.idempotency.claim({ accountId: a.accountId, keyHash: keyHashOf(key), requestHash: requestFingerprint('POST', path, body), method: 'POST', path });
    if (!('attempt' in c)) throw new Error('not claimed');
    return c.attempt;
  };
  const ageLock = (a: TestAccount, key: string) =>
    t.ctx.db.updateTable('idempotency_keys').set({ locked_at: Date.now() - 61_000 }).where('account_id', '=', a.accountId).where('key_hash', '=', keyHashOf(key)).execute();

  it('work committed, response never stored: 409 IDEMPOTENCY_RESPONSE_LOST pointing at the log — never run twice', async () => {
    const a = await t.createAccount();
    const key = uniqueKey();
    const body = { phoneNumber: fresh(), message: 'Committed', sendernameId: a.senders.sms };
    const attempt = await claimFor(a, key, '/api/rcs/send-sms', body);
    // The dead process's work transaction: its write and the key's mark commit together.
    await inTransaction(t.ctx.db, (tx) => t.ctx.services.idempotency.markCommitted(tx, attempt));
    await ageLock(a, key);
    const r = await t.api('POST', '/api/rcs/send-sms', body, withKey(key, a));
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('IDEMPOTENCY_RESPONSE_LOST');
    expect(r.body.error.message).toMatch(/message log/);
    expect(await messagesOf(a.accountId)).toHaveLength(0);
  });

  it('nothing committed: the key is taken over and the work runs once; the dead attempt can no longer commit', async () => {
    const a = await t.createAccount();
    const key = uniqueKey();
    const body = { phoneNumber: fresh(), message: 'Taken over', sendernameId: a.senders.sms };
    const dead = await claimFor(a, key, '/api/rcs/send-sms', body);
    await ageLock(a, key);
    const r = await t.api('POST', '/api/rcs/send-sms', body, withKey(key, a));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await messagesOf(a.accountId)).toHaveLength(1);
    // The old attempt wakes up and tries to commit its work: rolled back, key untouched.
    await expect(
      inTransaction(t.ctx.db, async (tx) => {
        await tx.updateTable('accounts').set({ name: 'should roll back' }).where('id', '=', a.accountId).execute();
        await t.ctx.services.idempotency.markCommitted(tx, dead);
      }),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
    expect((await t.ctx.services.accounts.get(a.accountId)).name).not.toBe('should roll back');
    const again = await t.api('POST', '/api/rcs/send-sms', body, withKey(key, a));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(r.body);
  });

  it('the mark joins the first transaction only: a rolled-back transaction leaves the key free', async () => {
    const a = await t.createAccount();
    const key = uniqueKey();
    const attempt = await claimFor(a, key, '/x', {});
    const hook = { closed: false, committed: false, beforeCommit: (tx: Parameters<typeof t.ctx.services.idempotency.markCommitted>[0]) => t.ctx.services.idempotency.markCommitted(tx, attempt) };
    await withFirstCommitHook(hook, async () => {
      await expect(inTransaction(t.ctx.db, async () => Promise.reject(new Error('rollback')))).rejects.toThrow('rollback');
      expect((await keyRow(a.accountId, key))!.committed_at).toBeNull();
      await inTransaction(t.ctx.db, async () => undefined);
    });
    expect(hook.committed).toBe(true);
    expect((await keyRow(a.accountId, key))!.committed_at).not.toBeNull();
  });

  it('a background loop woken inside the request does not carry its hook into its own transactions', async () => {
    let seen: unknown = 'not yet';
    const loop = new PollingLoop(async () => {
      seen = openCommitHook();
      return 60_000;
    }, () => undefined, 1_000);
    loop.start();
    await waitFor(() => seen !== 'not yet', { what: 'the first round' });
    seen = 'not yet';
    const hook = { closed: false, committed: false, beforeCommit: async () => undefined };
    await withFirstCommitHook(hook, async () => {
      expect(openCommitHook()).toBe(hook);
      loop.wake();
      await waitFor(() => seen !== 'not yet', { what: 'the woken round' });
    });
    expect(seen).toBeUndefined();
    await loop.stop();
  });
});

describe('expiry', () => {
  it('sweep() deletes keys older than 24 h and keeps younger ones; an expired key runs anew even before the sweep', async () => {
    const a = await t.createAccount();
    const clock = new FakeClock(Date.now() - 25 * 60 * 60 * 1000);
    const past = new IdempotencyStore({ db: t.ctx.db, clock });
    const oldKey = uniqueKey();
    const body = { phoneNumber: fresh(), message: 'Yesterday', sendernameId: a.senders.sms };
    const old = await past.claim({ accountId: a.accountId, keyHash: keyHashOf(oldKey), requestHash: requestFingerprint('POST', '/api/rcs/send-sms', body), method: 'POST', path: '/api/rcs/send-sms' });
    if (!('attempt' in old)) throw new Error('not claimed');
    await past.complete(old.attempt, { status: 200, headers: {}, json: '{"stale":true}' });
    // Expired, not yet swept: the key is free again (no replay, no mismatch).
    const reused = await t.api('POST', '/api/rcs/send-sms', { ...body, message: 'Today' }, withKey(oldKey, a));
    expect(reused.status, JSON.stringify(reused.body)).toBe(200);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();

    const expiring = uniqueKey();
    clock.set(Date.now() - 25 * 60 * 60 * 1000);
    await past.claim({ accountId: a.accountId, keyHash: keyHashOf(expiring), requestHash: 'x', method: 'POST', path: '/x' });
    const young = uniqueKey();
    clock.set(Date.now() - 23 * 60 * 60 * 1000);
    await past.claim({ accountId: a.accountId, keyHash: keyHashOf(young), requestHash: 'x', method: 'POST', path: '/x' });
    expect(await t.ctx.services.idempotency.sweep()).toBeGreaterThanOrEqual(1);
    expect(await keyRow(a.accountId, expiring)).toBeUndefined();
    expect(await keyRow(a.accountId, young)).toBeDefined();
    expect(await keyRow(a.accountId, oldKey)).toBeDefined(); // re-claimed today
  });

  it('the workers sweep expired keys (at start, then periodically)', async () => {
    const a = await t.createAccount();
    await stopWorkers(t.ctx);
    const past = new IdempotencyStore({ db: t.ctx.db, clock: new FakeClock(Date.now() - 25 * 60 * 60 * 1000) });
    const key = uniqueKey();
    await past.claim({ accountId: a.accountId, keyHash: keyHashOf(key), requestHash: 'x', method: 'POST', path: '/x' });
    expect(await keyRow(a.accountId, key)).toBeDefined();
    await startWorkers(t.ctx);
    await waitFor(async () => (await keyRow(a.accountId, key)) === undefined, { what: 'the sweeper' });
  });
});

describe('OpenAPI', () => {
  it('documents the header, the replay header and the 409/422 answers on every idempotent operation, and not elsewhere', async () => {
    const doc = (await t.api('GET', '/openapi.json', undefined, { key: null })).body;
    const hasKey = (op: any) => (op.parameters ?? []).some((p: any) => p.name === 'Idempotency-Key' && p.in === 'header' && p.required === false);
    for (const [path, method] of [
      ['/api/rcs/send', 'post'],
      ['/api/rcs/send-sms', 'post'],
      ['/api/rcs/send-batch', 'post'],
      ['/api/v1/contacts', 'post'],
      ['/api/v1/contacts/bulk', 'post'],
      ['/api/v1/groups', 'post'],
      ['/api/v1/templates', 'post'],
      ['/api/v1/templates/groups', 'post'],
      ['/api/v1/contacts/fields', 'post'],
      ['/api/v1/forms', 'post'],
    ] as const) {
      const op = doc.paths[path][method];
      expect(hasKey(op), `${method} ${path}`).toBe(true);
      expect(op.responses['422'].description).toMatch(/IDEMPOTENCY_MISMATCH/);
      expect(op.responses['409'].description).toMatch(/IDEMPOTENCY_IN_PROGRESS/);
      const ok = Object.entries(op.responses).find(([s]) => Number(s) < 300)![1] as any;
      expect(ok.headers['Idempotent-Replayed']).toBeDefined();
    }
    expect(hasKey(doc.paths['/api/v1/contacts'].get)).toBe(false);
    expect(hasKey(doc.paths['/api/rcs/validate'].post)).toBe(false);
  });
});
