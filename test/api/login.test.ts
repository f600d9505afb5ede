import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { totpCode, WebClient } from '../helpers/web-client.js';

let t: TestServer;
const clock = new FakeClock(Date.UTC(2026, 5, 1, 9, 0, 0));
beforeAll(async () => {
  t = await startTestServer({ clock });
});
afterAll(async () => {
  await t.close();
});

async function passwordStep(c: WebClient, email: string, password: string) {
  const page = await c.get('/login');
  return c.post('/login', { csrf: WebClient.hidden(page.text, 'csrf'), next: '/console', email, password });
}

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

  it('a locked account answers exactly like an unknown email, after the same password hashing work', async () => {
    clock.advance(16 * 60_000); // a fresh per-address window for this test's failures
    const a = await t.createAccount();
    const b = await t.createAccount();
    for (let i = 0; i < 5; i++) expect((await passwordStep(new WebClient(t.url), a.email, 'wrong password here')).status).toBe(401);
    // One client, so the form's CSRF value is the same; the typed email is echoed back, so it is replaced.
    const c = new WebClient(t.url);
    const unknownEmail = `nobody-${Date.now()}@example.com`;
    const locked = await passwordStep(c, a.email, a.password);
    const unknown = await passwordStep(c, unknownEmail, a.password);
    expect(locked.status).toBe(unknown.status);
    expect(locked.text.replaceAll(a.email, 'EMAIL')).toBe(unknown.text.replaceAll(unknownEmail, 'EMAIL'));
    const names = (h: Headers) => {
      const out: string[] = [];
      h.forEach((_v, k) => out.push(k));
      return out.sort();
    };
    expect(names(locked.headers)).toEqual(names(unknown.headers));
    // Timing: the password is hashed in every case (scrypt, ~50 ms), so none answers much faster.
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
    expect(await timed(a.email, a.password)).toBeGreaterThan(wrongPassword * 0.3);
    expect(await timed(unknownEmail, a.password)).toBeGreaterThan(wrongPassword * 0.3);
    clock.advance(16 * 60_000); // the next tests start with a clean per-address count
  });

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

  it('locks the user after repeated failures, even for the right password, until the lockout ends', async () => {
    const a = await t.createAccount();
    const c = new WebClient(t.url);
    for (let i = 0; i < 5; i++) expect((await passwordStep(c, a.email, 'wrong password here')).status).toBe(401);
    // Locked answers like an unknown email (no account enumeration): same status, no Retry-After.
    const locked = await passwordStep(c, a.email, a.password);
    expect(locked.status).toBe(401);
    expect(locked.headers.get('retry-after')).toBeNull();
    clock.advance(16 * 60_000);
    expect((await passwordStep(c, a.email, a.password)).status).toBe(303);
  });

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
