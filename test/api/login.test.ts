import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { totpCode, WebClient } from '../helpers/web-client.js';

let t: TestServer;
const clock = new FakeClock(Date.UTC(2026, 5, 1, 9, 0, 0));
beforeAll(async () => {
  // Behind a trusted proxy, so tests can play other client addresses with X-Forwarded-For.
  t = await startTestServer({ clock, env: { TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await t.close();
});

async function passwordStep(c: WebClient, email: string, password: string, headers: Record<string, string> = {}) {
  const page = await c.get('/login');
  return c.request('POST', '/login', { csrf: WebClient.hidden(page.text, 'csrf'), next: '/console', email, password }, headers);
}

async function totpStep(c: WebClient, location: string, code: string) {
  const page = await c.get(location);
  return c.post('/login/totp', { csrf: WebClient.hidden(page.text, 'csrf'), next: '/console', code });
}

/** Moves the test clock past every counter of earlier tests (they are forgotten after an hour of quiet). */
const quiet = () => clock.advance(2 * 60 * 60_000);
let nextAddress = 0;
/** A client address nobody used yet (behind the trusted proxy). */
const freshAddress = () => `198.51.${Math.floor(++nextAddress / 250)}.${nextAddress % 250 + 1}`;
/** Ends the session; the browser keeps its rcs_device cookie. */
async function logout(c: WebClient) {
  expect((await c.post('/logout', { csrf: WebClient.hidden((await c.get('/console')).text, 'csrf') })).status).toBe(303);
}
const retryAfter = (r: { headers: Headers }) => Number(r.headers.get('retry-after'));

describe('login with password and TOTP', () => {
  it('logs in, reaches the console, and logout ends the session', async () => {
    const a = await t.createAccount();
    const c = new WebClient(t.url);
    expect((await c.get('/console')).location).toBe('/login?next=%2Fconsole');
    const done = await c.login(a.email, a.password, a.totpSecret, '/console', clock.now());
    expect(done.status).toBe(303);
    expect(done.location).toBe('/console');
    const consolePage = await c.get('/console');
    expect(consolePage.status).toBe(200);
    expect(consolePage.text).toContain(a.email);
    const cookie = c.cookies.get('rcs_session')!;
    const csrf = WebClient.hidden(consolePage.text, 'csrf');
    const out = await c.post('/logout', { csrf });
    expect(out.status).toBe(303);
    // The old cookie no longer opens the console, even if replayed.
    const replay = new WebClient(t.url);
    replay.cookies.set('rcs_session', cookie);
    expect((await replay.get('/console')).location).toMatch(/^\/login/);
  });

  it('session cookies are HttpOnly and SameSite=Lax, and stored hashed', async () => {
    const a = await t.createAccount();
    const c = new WebClient(t.url);
    const page = await c.get('/login');
    const res = await c.request('POST', '/login', { csrf: WebClient.hidden(page.text, 'csrf'), next: '/console', email: a.email, password: a.password });
    const setCookie = res.headers.getSetCookie().find((h) => h.startsWith('rcs_session='))!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    const value = c.cookies.get('rcs_session')!;
    const rows = await t.ctx.db.selectFrom('sessions').select('id_hash').execute();
    expect(rows.some((r) => r.id_hash === value)).toBe(false);
  });

  it('refuses a wrong password without revealing whether the email exists', async () => {
    const a = await t.createAccount();
    const wrong = await passwordStep(new WebClient(t.url), a.email, 'not the password at all');
    const unknown = await passwordStep(new WebClient(t.url), 'nobody@example.com', 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.text).toContain('Email, password or code is not correct');
    expect(unknown.text).toContain('Email, password or code is not correct');
  });

  it('a slowed email answers exactly like a slowed unknown email; unslowed ones after the same password hashing work', async () => {
    quiet();
    const a = await t.createAccount();
    const b = await t.createAccount();
    const unknownEmail = `nobody-${Date.now()}@example.com`;
    // Five failures each, for a known and an unknown email: both are slowed alike.
    for (const email of [a.email, unknownEmail]) {
      for (let i = 0; i < 5; i++) expect((await passwordStep(new WebClient(t.url), email, 'wrong password here', { 'X-Forwarded-For': freshAddress() })).status).toBe(401);
    }
    // One client, so the form's CSRF value is the same; the typed email is echoed back, so it is replaced.
    const c = new WebClient(t.url);
    const slowed = await passwordStep(c, a.email, a.password);
    const unknown = await passwordStep(c, unknownEmail, a.password);
    expect(slowed.status).toBe(429);
    expect(unknown.status).toBe(429);
    expect(slowed.headers.get('retry-after')).toBe(unknown.headers.get('retry-after'));
    expect(slowed.text.replaceAll(a.email, 'EMAIL')).toBe(unknown.text.replaceAll(unknownEmail, 'EMAIL'));
    const names = (h: Headers) => {
      const out: string[] = [];
      h.forEach((_v, k) => out.push(k));
      return out.sort();
    };
    expect(names(slowed.headers)).toEqual(names(unknown.headers));
    // Timing: the password is hashed in every case (scrypt, ~50 ms), so none answers much faster.
    const other = `nobody-else-${Date.now()}@example.com`;
    const timed = async (email: string, password: string) => {
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const page = await c.get('/login');
        const started = performance.now();
        await c.post('/login', { csrf: WebClient.hidden(page.text, 'csrf'), next: '/console', email, password });
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    const wrongPassword = await timed(b.email, 'wrong password here');
    expect(await timed(other, a.password)).toBeGreaterThan(wrongPassword * 0.3);
    quiet();
  }, 180_000);

  it('refuses a wrong TOTP code and a replayed one', async () => {
    const a = await t.createAccount();
    const c = new WebClient(t.url);
    const step1 = await passwordStep(c, a.email, a.password);
    expect(step1.status).toBe(303);
    const totpPage = await c.get(step1.location!);
    const csrf = WebClient.hidden(totpPage.text, 'csrf');
    const bad = await c.post('/login/totp', { csrf, next: '/console', code: '000000' === totpCode(a.totpSecret, clock.now()) ? '111111' : '000000' });
    expect(bad.status).toBe(401);
    expect((await c.get('/console')).status).toBe(303);
    const good = await c.post('/login/totp', { csrf, next: '/console', code: totpCode(a.totpSecret, clock.now()) });
    expect(good.status).toBe(303);
    expect((await c.get('/console')).status).toBe(200);
    // Same code again in another login: refused (one use per code).
    const other = new WebClient(t.url);
    const s1 = await passwordStep(other, a.email, a.password);
    const p2 = await other.get(s1.location!);
    const replay = await other.post('/login/totp', { csrf: WebClient.hidden(p2.text, 'csrf'), next: '/console', code: totpCode(a.totpSecret, clock.now()) });
    expect(replay.status).toBe(401);
  });

  it('does not accept the pending session (password only) for pages', async () => {
    const a = await t.createAccount();
    const c = new WebClient(t.url);
    await passwordStep(c, a.email, a.password);
    expect((await c.get('/console')).status).toBe(303);
  });

  it('slows an email after repeated failures with doubling delays; the right password succeeds after the wait', async () => {
    quiet();
    const a = await t.createAccount();
    const c = new WebClient(t.url);
    for (let i = 0; i < 5; i++) expect((await passwordStep(c, a.email, 'wrong password here')).status).toBe(401);
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const slowed = await passwordStep(c, a.email, a.password);
      expect(slowed.status).toBe(429);
      expect(slowed.text).toContain('Too many failed attempts');
      delays.push(retryAfter(slowed));
      // Refused attempts neither count nor extend the wait.
      clock.advance(retryAfter(slowed) * 1000 - 500);
      expect(retryAfter(await passwordStep(c, a.email, 'wrong password here'))).toBe(1);
      clock.advance(500);
      expect((await passwordStep(c, a.email, 'wrong password here')).status).toBe(401);
    }
    expect(delays).toEqual([1, 2, 4, 8]);
    clock.advance(16_000);
    const step1 = await passwordStep(c, a.email, a.password);
    expect(step1.status).toBe(303);
    expect((await totpStep(c, step1.location!, totpCode(a.totpSecret, clock.now()))).status).toBe(303);
    // Success starts the email's counter again.
    expect((await passwordStep(new WebClient(t.url), a.email, 'wrong password here')).status).toBe(401);
    expect((await passwordStep(new WebClient(t.url), a.email, a.password)).status).toBe(303);
  }, 180_000);

  it('a known device: the cookie is HttpOnly, SameSite=Lax, sent only to /login, stored hashed, bound to the user', async () => {
    quiet();
    const a = await t.createAccount();
    const c = new WebClient(t.url);
    const page = await c.get('/login');
    const s1 = await c.post('/login', { csrf: WebClient.hidden(page.text, 'csrf'), next: '/console', email: a.email, password: a.password });
    const totpPage = await c.get(s1.location!);
    const done = await c.request('POST', '/login/totp', { csrf: WebClient.hidden(totpPage.text, 'csrf'), next: '/console', code: totpCode(a.totpSecret, clock.now()) });
    expect(done.status).toBe(303);
    const header = done.headers.getSetCookie().find((h) => h.startsWith('rcs_device='))!;
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/SameSite=Lax/);
    expect(header).toMatch(/Path=\/login(;|$)/);
    expect(header).toMatch(/Max-Age=15552000/);
    expect(header).not.toMatch(/Secure/); // http test server; Secure when PUBLIC_URL is https
    const token = c.cookies.get('rcs_device')!;
    const rows = await t.ctx.db.selectFrom('login_devices').innerJoin('users', 'users.id', 'login_devices.user_id').select(['token_hash', 'users.email']).execute();
    expect(rows.some((r) => r.token_hash === token)).toBe(false);
    expect(rows.filter((r) => r.email === a.email)).toHaveLength(1);
    await logout(c);
    // Another user's email from this device is an unknown device for that user: slowed as usual.
    const b = await t.createAccount();
    for (let i = 0; i < 5; i++) expect((await passwordStep(new WebClient(t.url), b.email, 'wrong password here', { 'X-Forwarded-For': freshAddress() })).status).toBe(401);
    expect((await passwordStep(c, b.email, b.password)).status).toBe(429);
  });

  it('the known-device cookie is Secure when the public URL is https', async () => {
    const https = await startTestServer({ clock, env: { PUBLIC_URL: 'https://rcs.example' } });
    try {
      const a = await https.createAccount();
      const c = new WebClient(https.url);
      const page = await c.get('/login');
      const s1 = await c.post('/login', { csrf: WebClient.hidden(page.text, 'csrf'), next: '/console', email: a.email, password: a.password });
      const totpPage = await c.get(s1.location!);
      const done = await c.request('POST', '/login/totp', { csrf: WebClient.hidden(totpPage.text, 'csrf'), next: '/console', code: totpCode(a.totpSecret, clock.now()) });
      expect(done.status).toBe(303);
      expect(done.headers.getSetCookie().find((h) => h.startsWith('rcs_device='))).toMatch(/; Secure/);
    } finally {
      await https.close();
    }
  });

  it('a thousand wrong tries from other addresses leave the person able to log in from their known device', async () => {
    quiet();
    const a = await t.createAccount();
    const person = new WebClient(t.url);
    person.headers['X-Forwarded-For'] = '203.0.113.50';
    expect((await person.login(a.email, a.password, a.totpSecret, '/console', clock.now())).status).toBe(303);
    expect(person.cookies.get('rcs_device')).toBeTruthy();
    await logout(person);
    clock.advance(60_000);

    // The attacker: one form (the double-submit CSRF pair is reusable), a thousand addresses, and
    // the clock moving on so the email's delays keep growing.
    const attacker = new WebClient(t.url);
    const form = await attacker.get('/login');
    const csrf = WebClient.hidden(form.text, 'csrf');
    const statuses = new Map<number, number>();
    const waits: number[] = [];
    let wait = 0;
    for (let batch = 0; batch < 20; batch++) {
      clock.advance(wait * 1000); // tries again as soon as allowed
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          attacker.request('POST', '/login', { csrf, next: '/console', email: a.email, password: `guess ${batch}-${i}` }, { 'X-Forwarded-For': `10.${batch}.${i}.${(batch * 7 + i) % 250 + 1}` }),
        ),
      );
      for (const r of answers) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      const slowed = answers.filter((r) => r.status === 429).map(retryAfter);
      wait = Math.max(0, ...slowed);
      if (slowed.length) waits.push(wait);
    }
    expect((statuses.get(401) ?? 0) + (statuses.get(429) ?? 0)).toBe(1000);
    // A few guesses were checked (5 free, then one per doubling wait); the rest were refused unchecked.
    expect(statuses.get(401)).toBeLessThan(30);
    expect(Math.max(...waits)).toBe(15 * 60);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(Math.min(waits[i - 1]!, 15 * 60));

    // The person, from the device they used before: the right password and code work at once,
    // from their own address and from one the attacker used.
    for (const address of ['203.0.113.50', '10.3.4.25']) {
      person.headers['X-Forwarded-For'] = address;
      const step1 = await passwordStep(person, a.email, a.password);
      expect(step1.status).toBe(303);
      expect((await totpStep(person, step1.location!, totpCode(a.totpSecret, clock.now()))).status).toBe(303);
      expect((await person.get('/console')).status).toBe(200);
      await logout(person);
      clock.advance(31_000); // a TOTP code is accepted once
    }

    // A new browser of the person's waits for the email's delay (bounded), then gets in.
    const laptop = new WebClient(t.url);
    const refused = await passwordStep(laptop, a.email, a.password, { 'X-Forwarded-For': '203.0.113.51' });
    expect(refused.status).toBe(429);
    expect(retryAfter(refused)).toBeLessThanOrEqual(15 * 60);
    clock.advance(retryAfter(refused) * 1000);
    const step1 = await passwordStep(laptop, a.email, a.password, { 'X-Forwarded-For': '203.0.113.51' });
    expect(step1.status).toBe(303);
  }, 180_000);

  it("a known device's own failures slow only that device", async () => {
    quiet();
    const a = await t.createAccount();
    const device = new WebClient(t.url);
    await device.login(a.email, a.password, a.totpSecret, '/console', clock.now());
    await logout(device);
    clock.advance(31_000);
    for (let i = 0; i < 5; i++) expect((await passwordStep(device, a.email, 'wrong password here')).status).toBe(401);
    const slowed = await passwordStep(device, a.email, a.password);
    expect(slowed.status).toBe(429);
    expect(retryAfter(slowed)).toBe(1);
    // The email itself is not slowed by the device's failures.
    expect((await passwordStep(new WebClient(t.url), a.email, a.password, { 'X-Forwarded-For': freshAddress() })).status).toBe(303);
  });

  it('slows wrong codes like wrong passwords and keeps the half-finished login for after the wait', async () => {
    quiet();
    const a = await t.createAccount();
    const c = new WebClient(t.url);
    const step1 = await passwordStep(c, a.email, a.password);
    const page = await c.get(step1.location!);
    const csrf = WebClient.hidden(page.text, 'csrf');
    const good = totpCode(a.totpSecret, clock.now());
    const wrong = good === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect((await c.post('/login/totp', { csrf, next: '/console', code: wrong })).status).toBe(401);
    const slowed = await c.post('/login/totp', { csrf, next: '/console', code: good });
    expect(slowed.status).toBe(429);
    expect(retryAfter(slowed)).toBe(1);
    clock.advance(1000);
    expect((await c.post('/login/totp', { csrf, next: '/console', code: totpCode(a.totpSecret, clock.now()) })).status).toBe(303);
    expect((await c.get('/console')).status).toBe(200);
  });

  it("slows an attacker's address with doubling delays, without touching other addresses", async () => {
    quiet();
    const attacker = new WebClient(t.url);
    attacker.headers['X-Forwarded-For'] = '192.0.2.66, 203.0.113.9';
    const guess = (i: number) => passwordStep(attacker, `victim-${i}-${Date.now()}@example.com`, 'wrong password here');
    for (let i = 0; i < 20; i++) expect((await guess(i)).status).toBe(401);
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      const slowed = await guess(100 + i);
      expect(slowed.status).toBe(429);
      waits.push(retryAfter(slowed));
      clock.advance(retryAfter(slowed) * 1000);
      expect((await guess(200 + i)).status).toBe(401);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
    const a = await t.createAccount();
    expect((await passwordStep(new WebClient(t.url), a.email, a.password, { 'X-Forwarded-For': freshAddress() })).status).toBe(303);
    // After an hour of quiet the address starts afresh.
    quiet();
    expect((await guess(999)).status).toBe(401);
  }, 180_000);

  it('refuses a login POST without the CSRF token', async () => {
    const a = await t.createAccount();
    const c = new WebClient(t.url);
    await c.get('/login');
    const res = await c.post('/login', { next: '/console', email: a.email, password: a.password });
    expect(res.status).toBe(403);
    expect(c.cookies.has('rcs_session')).toBe(false);
    // A token that does not match the cookie is refused as well.
    const res2 = await c.post('/login', { csrf: 'forged-token-value-000000', next: '/console', email: a.email, password: a.password });
    expect(res2.status).toBe(403);
  });

  it('refuses logout and TOTP posts without the CSRF token', async () => {
    const a = await t.createAccount();
    const c = new WebClient(t.url);
    await c.login(a.email, a.password, a.totpSecret, '/console', clock.now());
    const res = await c.post('/logout', {});
    expect(res.status).toBe(403);
    expect((await c.get('/console')).status).toBe(200);
  });

  it('only redirects to local paths after login', async () => {
    const a = await t.createAccount();
    const c = new WebClient(t.url);
    const done = await c.login(a.email, a.password, a.totpSecret, '//evil.example.com/x', clock.now());
    expect(done.location).toBe('/console');
  });
});
