import { afterAll, beforeAll, expect, it } from 'vitest';
import { sha256Hex } from '../../src/platform/secrets.js';
import { FORM_POSTS_PER_WINDOW } from '../../src/forms/public-routes.js';
import { isAppError } from '../../src/platform/errors.js';
import { describePostgres, startInstances, type Instances } from '../helpers/instances.js';
import type { TestServer } from '../helpers/server.js';
import { WebClient, totpCode } from '../helpers/web-client.js';
import { SANDBOX_REQUESTS_PER_MINUTE } from '../../src/sandbox/limits.js';

/*
 * Every limit counts in the database, so bursts spread over two instances on one PostgreSQL
 * database are counted once and the limits hold in total (issue #19). Each burst goes out at once,
 * alternating between the instances; with per-process counters, or a count-then-insert that two
 * transactions can interleave, more than the limit would pass.
 */

const RECIPIENT_LIMIT = 3;
let inst: Instances;
let a: TestServer;
let b: TestServer;
let ipCounter = 0;
const freshIp = () => `10.77.${(++ipCounter >> 8) & 255}.${ipCounter & 255}`;
const either = (i: number) => (i % 2 === 0 ? a : b);
const statuses = (rs: { status: number }[]) => rs.map((r) => r.status).reduce<Record<number, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {});

describePostgres('limits across two instances on one PostgreSQL database', () => {
  beforeAll(async () => {
    inst = await startInstances(2, { TRUST_PROXY: 'true', RECIPIENT_RATE_LIMIT: String(RECIPIENT_LIMIT), LOGIN_MAX_FAILURES: '5' });
    [a, b] = inst.all as [TestServer, TestServer];
  });
  afterAll(async () => {
    await inst?.close();
  });

  it(`form submissions from one address: ${FORM_POSTS_PER_WINDOW} per window in total, not per instance`, async () => {
    const form = await a.api('POST', '/api/v1/forms', { name: 'Burst', fields: { firstName: 'optional', email: 'optional', customFields: [] }, doubleOptIn: false });
    expect(form.status).toBe(201);
    const slug = form.body.data.slug as string;
    const ip = freshIp();
    const n = FORM_POSTS_PER_WINDOW * 2 + 4;
    // Each visitor loads the page (CSRF cookie) from the instance it then posts to.
    const clients = Array.from({ length: n }, (_, i) => new WebClient(either(i).url));
    const pages = await Promise.all(clients.map((c) => c.request('GET', `/f/${slug}`, undefined, { 'X-Forwarded-For': ip })));
    const posts = await Promise.all(
      clients.map((c, i) => c.request('POST', `/f/${slug}`, { csrf: WebClient.hidden(pages[i]!.text, 'csrf'), phone: `+49151312${String(20_000 + i).padStart(5, "0")}` }, { 'X-Forwarded-For': ip })),
    );
    expect(statuses(posts)).toEqual({ 303: FORM_POSTS_PER_WINDOW, 429: n - FORM_POSTS_PER_WINDOW });
    const subs = await a.ctx.db.selectFrom('form_submissions').select('id').where('form_id', '=', form.body.data.id).execute();
    expect(subs).toHaveLength(FORM_POSTS_PER_WINDOW);
    // Another address is not held back by this one.
    const other = new WebClient(b.url);
    const page = await other.request('GET', `/f/${slug}`, undefined, { 'X-Forwarded-For': freshIp() });
    expect(page.status).toBe(200);
  });

  it(`sandbox: ${SANDBOX_REQUESTS_PER_MINUTE} requests a minute per address in total`, async () => {
    const ip = freshIp();
    const n = SANDBOX_REQUESTS_PER_MINUTE * 2;
    const rs = await Promise.all(
      Array.from({ length: n }, (_, i) => either(i).api('POST', '/api/rcs/sandbox/validate', { messageType: 'text', content: { text: `hello ${i}` } }, { key: null, headers: { 'X-Forwarded-For': ip } })),
    );
    expect(statuses(rs)).toEqual({ 200: SANDBOX_REQUESTS_PER_MINUTE, 429: n - SANDBOX_REQUESTS_PER_MINUTE });
    expect(rs.filter((r) => r.status === 429).every((r) => r.body.error.code === 'SANDBOX_RATE_LIMITED')).toBe(true);
  });

  it(`per-recipient throttle: ${RECIPIENT_LIMIT} messages to one number, sent at once through both instances`, async () => {
    const phone = '+4915131300001';
    const rs = await Promise.all(
      Array.from({ length: 12 }, (_, i) => either(i).api('POST', '/api/rcs/send-sms', { phoneNumber: phone, message: `burst ${i}`, sendernameId: a.account.senders.sms }, { key: a.account.apiKey })),
    );
    expect(statuses(rs)).toEqual({ 200: RECIPIENT_LIMIT, 429: 12 - RECIPIENT_LIMIT });
    const sent = await a.ctx.db.selectFrom('messages').select('id').where('account_id', '=', a.account.accountId).where('phone', '=', phone.slice(1)).execute();
    expect(sent).toHaveLength(RECIPIENT_LIMIT);
  });

  it('per-recipient throttle: batches (locking the account) and single sends racing for one number', async () => {
    const target = '+4915131300002';
    const others = (k: number) => Array.from({ length: 60 }, (_, i) => `+49151314${String(k * 100 + i).padStart(5, '0')}`);
    const batch = (t: TestServer, k: number) =>
      t.api('POST', '/api/rcs/send-batch', { phoneNumbers: [target, ...others(k)], messageType: 'text', content: { text: `batch ${k}` }, sendernameId: a.account.senders.rcs }, { key: a.account.apiKey });
    const single = (t: TestServer, i: number) => t.api('POST', '/api/rcs/send', { phoneNumber: target, messageType: 'text', content: { text: `single ${i}` }, sendernameId: a.account.senders.rcs }, { key: a.account.apiKey });
    const rs = await Promise.all([batch(a, 1), single(b, 1), batch(b, 2), single(a, 2), single(b, 3), batch(a, 3), single(a, 4)]);
    for (const r of rs) expect([200, 202, 429]).toContain(r.status);
    const toTarget = await a.ctx.db.selectFrom('messages').select('id').where('account_id', '=', a.account.accountId).where('phone', '=', target.slice(1)).execute();
    expect(toTarget).toHaveLength(RECIPIENT_LIMIT);
    // The batches' other numbers were not held back by the target's limit.
    const batchRows = await a.ctx.db.selectFrom('messages').select('id').where('account_id', '=', a.account.accountId).where('phone', 'like', '49151314%').execute();
    expect(batchRows).toHaveLength(180);
  });

  // Counted when let in, by one conditional statement: every attempt let in is counted once, and
  // once the free failures are used up the rest wait (the first wait is 1 s, so a slow machine may
  // let one more in; the counts are checked against each other, not against the clock).
  const burst = async (n: number, attempt: (i: number) => Promise<unknown>) => {
    const tries = await Promise.allSettled(Array.from({ length: n }, (_, i) => attempt(i)));
    const code = (t: PromiseSettledResult<unknown>) => (t.status === 'rejected' && isAppError(t.reason) ? t.reason.code : 'other');
    const checked = tries.filter((t) => code(t) === 'UNAUTHORIZED').length;
    const refused = tries.map((t, i) => (code(t) === 'LOGIN_THROTTLED' ? i : -1)).filter((i) => i >= 0);
    expect(checked + refused.length).toBe(n);
    return { checked, refused };
  };

  /** The stored wait of a login_failures key, stretched to a minute from now (what every instance reads). */
  const holdWait = async (key: string) => {
    await a.ctx.db.updateTable('login_failures').set({ next_attempt_at: Date.now() + 60_000 }).where('key', '=', key).execute();
  };

  /** Attempt 0 goes to one instance and attempt 1 to the other (`either`): both must answer LOGIN_THROTTLED. */
  const refusedByBoth = async (attempt: (i: number) => Promise<unknown>) => {
    for (const i of [0, 1]) {
      const r = await attempt(i).then(
        () => 'let in',
        (err: unknown) => (isAppError(err) ? err.code : 'other'),
      );
      expect(r, `instance ${i}`).toBe('LOGIN_THROTTLED');
    }
  };

  it('login: attempts at the same moment on both instances are let in up to the free failures, then wait, on both', async () => {
    const { checked, refused } = await burst(16, (i) => either(i).ctx.services.login.checkPassword(a.account.email, `wrong ${i}`, freshIp()));
    expect(checked).toBeGreaterThanOrEqual(5);
    expect(checked).toBeLessThanOrEqual(6);
    expect(refused.length).toBe(16 - checked);
    const row = await a.ctx.db.selectFrom('login_failures').selectAll().where('key', '=', `acct:${sha256Hex(a.account.email.toLowerCase())}`).executeTakeFirstOrThrow();
    expect(row.failures).toBe(checked);
    expect(row.next_attempt_at! - row.last_failure_at).toBe(1000 * 2 ** (checked - 5));
    // Refused by both instances. (Which instance's attempts of the burst were let in depends on scheduling — one
    // instance's could all go first — so each is asked once more while the stored wait holds: both refuse, and
    // count nothing. The wait is stretched first: its 1 s may be over by now on a slow machine.)
    await holdWait(row.key);
    await refusedByBoth((i) => either(i).ctx.services.login.checkPassword(a.account.email, `again ${i}`, freshIp()));
    expect((await a.ctx.db.selectFrom('login_failures').select('failures').where('key', '=', row.key).executeTakeFirstOrThrow()).failures).toBe(checked);
  });

  it('login: 20 failures from one address at the same moment, then the address waits on every instance', async () => {
    const ip = freshIp();
    const { checked, refused } = await burst(30, (i) => either(i).ctx.services.login.checkPassword(`nobody${i}@example.com`, 'wrong', ip));
    expect(checked).toBeGreaterThanOrEqual(20);
    expect(checked).toBeLessThanOrEqual(21);
    expect(refused.length).toBe(30 - checked);
    const row = await a.ctx.db.selectFrom('login_failures').selectAll().where('key', '=', `ip:${ip}`).executeTakeFirstOrThrow();
    expect(row.failures).toBe(checked);
    expect(row.next_attempt_at! - row.last_failure_at).toBe(1000 * 2 ** (checked - 20));
    // The address waits on every instance (asked once more each, as above).
    await holdWait(row.key);
    await refusedByBoth((i) => either(i).ctx.services.login.checkPassword(`later${i}@example.com`, 'wrong', ip));
    expect((await a.ctx.db.selectFrom('login_failures').select('failures').where('key', '=', row.key).executeTakeFirstOrThrow()).failures).toBe(checked);
  });

  it('TOTP: one code presented to both instances at the same moment is accepted once', async () => {
    const other = await a.createAccount();
    const user = await a.ctx.db.selectFrom('users').select('id').where('email', '=', other.email).executeTakeFirstOrThrow();
    const code = totpCode(other.totpSecret);
    const tries = await Promise.allSettled([a, b, a, b].map((t) => t.ctx.services.login.checkTotp(user.id, code, freshIp())));
    expect(tries.filter((t) => t.status === 'fulfilled')).toHaveLength(1);
    for (const t of tries) if (t.status === 'rejected') expect(isAppError(t.reason) && t.reason.code).toBe('UNAUTHORIZED');
  });
});
