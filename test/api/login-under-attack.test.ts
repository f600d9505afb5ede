import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import { sha256Hex } from '../../src/platform/secrets.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { totpCode, WebClient } from '../helpers/web-client.js';
import { discover, register } from '../oauth/helpers.js';

// Issue #42: strangers sending wrong passwords for a person's e-mail from many addresses must not keep
// that person out of a new browser, on the console's login or on the OAuth authorization's (one rule).
let t: TestServer;
const clock = new FakeClock(Date.UTC(2026, 6, 1, 9, 0, 0));
beforeAll(async () => {
  // Behind a trusted proxy, so the test plays client addresses with X-Forwarded-For.
  t = await startTestServer({ clock, env: { TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await t.close();
});

const retryAfter = (r: { headers: Headers }) => Number(r.headers.get('retry-after'));
const quiet = () => clock.advance(2 * 60 * 60_000);
let nextAddress = 0;
const freshAddress = () => `198.18.${Math.floor(++nextAddress / 250)}.${(nextAddress % 250) + 1}`;
const wrongCode = (secret: string) => (totpCode(secret, clock.now()) === '000000' ? '111111' : '000000');

/** The login form, filled in: password, and the code too when given (one step). */
async function loginForm(c: WebClient, fields: { email: string; password: string; code?: string }, next = '/console', address = freshAddress()) {
  const page = await c.get(`/login?next=${encodeURIComponent(next)}`);
  return c.request('POST', '/login', { csrf: WebClient.hidden(page.text, 'csrf'), next, ...fields }, { 'X-Forwarded-For': address });
}

/**
 * The attacker: wrong passwords for `email` at 4 requests a second (the test clock moves 250 ms per
 * request) from eight addresses in turn, for `seconds`. Returns how many guesses were checked (401)
 * and refused unchecked (429).
 */
async function attack(email: string, seconds: number) {
  const c = new WebClient(t.url);
  const form = await c.get('/login');
  const csrf = WebClient.hidden(form.text, 'csrf');
  const counts = { checked: 0, refused: 0, longestWait: 0 };
  for (let i = 0; i < seconds * 4; i++) {
    const r = await c.request('POST', '/login', { csrf, next: '/console', email, password: `guess number ${i}` }, { 'X-Forwarded-For': `10.77.0.${(i % 8) + 1}` });
    expect([401, 429]).toContain(r.status);
    if (r.status === 401) counts.checked++;
    else {
      counts.refused++;
      counts.longestWait = Math.max(counts.longestWait, retryAfter(r));
    }
    clock.advance(250);
  }
  return counts;
}

describe('login while strangers guess the password (issue #42)', () => {
  let a: TestAccount;
  beforeAll(async () => {
    quiet();
    a = await t.createAccount();
  });

  it('the person gets in from a new browser on the first try, on the console and through OAuth; the attacker stays slowed', async () => {
    const first = await attack(a.email, 3 * 60);
    // The attacker was slowed: a handful of guesses were checked (5 free, then one per doubling wait).
    expect(first.checked).toBeLessThan(20);
    expect(first.longestWait).toBeGreaterThanOrEqual(90);

    // Password alone, as before: the e-mail's wait (nothing tells whether the password was right).
    const passwordOnly = await loginForm(new WebClient(t.url), { email: a.email, password: a.password });
    expect(passwordOnly.status).toBe(429);
    expect(passwordOnly.text).toContain('Too many failed attempts');
    // The throttled page asks for the code with the password.
    expect(passwordOnly.text).toMatch(/name="code"/);

    // The person, new browser, own address: password and code together get in at once.
    const laptop = new WebClient(t.url);
    const done = await loginForm(laptop, { email: a.email, password: a.password, code: totpCode(a.totpSecret, clock.now()) }, '/console', '203.0.113.77');
    expect(done.status, done.text).toBe(303);
    expect(done.location).toBe('/console');
    expect((await laptop.get('/console')).status).toBe(200);
    expect(laptop.cookies.get('rcs_device')).toBeTruthy();

    // The same code again (a replay, from another browser): refused like any wrong attempt.
    const replay = await loginForm(new WebClient(t.url), { email: a.email, password: a.password, code: totpCode(a.totpSecret, clock.now()) });
    expect(replay.status).toBe(429);

    // The attack goes on; the OAuth door (another new browser) follows the same rule.
    const second = await attack(a.email, 60);
    expect(second.checked).toBeLessThanOrEqual(1);
    clock.advance(31_000); // a fresh TOTP step
    const { as } = await discover(t);
    const rc = await register(as, 'http://127.0.0.1:53682/callback');
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({ client_id: rc.client.client_id, response_type: 'code', redirect_uri: rc.redirectUri, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: 's', resource: `${as.issuer}/mcp` })) url.searchParams.set(k, v);
    const phone = new WebClient(t.url);
    const authorize = await phone.get(url.pathname + url.search);
    expect(authorize.location).toMatch(/^\/consent\?/);
    const consentPath = authorize.location!;
    const toLogin = await phone.get(consentPath);
    expect(toLogin.location).toMatch(/^\/login/);
    const oauthLogin = await loginForm(phone, { email: a.email, password: a.password, code: totpCode(a.totpSecret, clock.now()) }, consentPath, '203.0.113.78');
    expect(oauthLogin.status, oauthLogin.text).toBe(303);
    expect(oauthLogin.location).toBe(consentPath);
    expect((await phone.get(consentPath)).status).toBe(200);
  }, 180_000);

  it('the right password with a wrong code answers like a wrong password, does not get in, and is slowed', async () => {
    // The e-mail is still in a wait from the attack.
    await attack(a.email, 10);
    const wrongBoth = await loginForm(new WebClient(t.url), { email: a.email, password: 'not the password', code: wrongCode(a.totpSecret) }, '/console', '192.0.2.10');
    const rightPassword = await loginForm(new WebClient(t.url), { email: a.email, password: a.password, code: wrongCode(a.totpSecret) }, '/console', '192.0.2.11');
    expect(wrongBoth.status).toBe(429);
    expect(rightPassword.status).toBe(429);
    expect(retryAfter(rightPassword)).toBe(retryAfter(wrongBoth));
    const page = (r: { text: string }) => r.text.replace(/name="csrf" value="[^"]*"/g, '');
    expect(page(rightPassword)).toBe(page(wrongBoth));

    // Someone who has the password but not the code: wrong codes count against the account's second
    // factor, from any address; after the free ones even the right code waits (the known device still works).
    for (let i = 0; i < 4; i++) expect((await loginForm(new WebClient(t.url), { email: a.email, password: a.password, code: wrongCode(a.totpSecret) })).status).toBe(429);
    // The next step's code (not used yet, within the ±1 step window) is refused while that wait runs.
    const slowed = await loginForm(new WebClient(t.url), { email: a.email, password: a.password, code: totpCode(a.totpSecret, clock.now() + 30_000) });
    expect(slowed.status).toBe(429);
    const row = await t.ctx.db.selectFrom('login_failures').select(['failures', 'next_attempt_at']).where('key', '=', `tfa:${sha256Hex(a.email.toLowerCase())}`).executeTakeFirstOrThrow();
    expect(Number(row.failures)).toBe(5);
    expect(Number(row.next_attempt_at)).toBeGreaterThan(clock.now());
    clock.advance(1_000);
    const person = new WebClient(t.url);
    expect((await loginForm(person, { email: a.email, password: a.password, code: totpCode(a.totpSecret, clock.now() + 30_000) })).status).toBe(303);
  }, 60_000);

  it('a code step begun before the attack finishes during it', async () => {
    quiet();
    const b = await t.createAccount();
    const person = new WebClient(t.url);
    const step1 = await loginForm(person, { email: b.email, password: b.password }, '/console', '203.0.113.90');
    expect(step1.status).toBe(303);
    await attack(b.email, 30);
    const page = await person.get(step1.location!);
    const done = await person.request('POST', '/login/totp', { csrf: WebClient.hidden(page.text, 'csrf'), next: '/console', code: totpCode(b.totpSecret, clock.now()) }, { 'X-Forwarded-For': '203.0.113.90' });
    expect(done.status, done.text).toBe(303);
    expect((await person.get('/console')).status).toBe(200);
  }, 60_000);

  it('without the attack, password and code in one form log in too; a wrong code there is a plain 401', async () => {
    quiet();
    const b = await t.createAccount();
    const wrong = await loginForm(new WebClient(t.url), { email: b.email, password: b.password, code: wrongCode(b.totpSecret) });
    const wrongPassword = await loginForm(new WebClient(t.url), { email: b.email, password: 'not it at all', code: wrongCode(b.totpSecret) });
    expect(wrong.status).toBe(401);
    expect(wrongPassword.status).toBe(401);
    const c = new WebClient(t.url);
    const done = await loginForm(c, { email: b.email, password: b.password, code: totpCode(b.totpSecret, clock.now()) });
    expect(done.status).toBe(303);
    expect((await c.get('/console')).status).toBe(200);
  });
});
