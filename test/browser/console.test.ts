import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { totpCode } from '../helpers/web-client.js';
import { callMcp } from '../oauth/helpers.js';
import { launchBrowser, screenshot, watchConsole } from './helpers.js';

let t: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
let callback: http.Server;
let callbackUrl: string;

beforeAll(async () => {
  t = await startTestServer();
  callback = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>Assistant</title><p>Connected. You can close this tab.</p>');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/oauth/callback`;
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  ({ problems } = watchConsole(page));
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (callback ? callback.close(() => resolve()) : resolve()));
  await t?.close();
});

describe('OAuth consent in a browser, then the console', () => {
  let clientId: string;
  const verifier = randomBytes(32).toString('base64url');

  it('an assistant’s authorization: login with password and TOTP, consent, redirect with a code', async () => {
    const reg = await fetch(`${t.url}/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Browser Assistant', redirect_uris: [callbackUrl], token_endpoint_auth_method: 'none' }),
    });
    expect(reg.status).toBe(201);
    clientId = (await reg.json()).client_id;
    const url = new URL(`${t.url}/authorize`);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: callbackUrl,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'contacts:read messages:read messages:write',
      state: 'xyz-state',
      resource: `${t.url}/mcp`,
    }).toString();

    await page.goto(url.href);
    expect(new URL(page.url()).pathname).toBe('/login');
    await screenshot(page, 'oauth-1-login');
    await page.fill('input[name=email]', t.account.email);
    await page.fill('input[name=password]', t.account.password);
    await Promise.all([page.waitForURL(/\/login\/totp/), page.click('button[type=submit]')]);
    await screenshot(page, 'oauth-2-totp');
    await page.fill('input[name=code]', totpCode(t.account.totpSecret, Date.now()));
    await Promise.all([page.waitForURL(/\/consent\?request=/), page.click('main button[type=submit]')]);

    await expect.poll(() => page.textContent('h1')).toContain('Browser Assistant');
    const offered = await page.$$eval('input[name=scope]', (els) => els.map((e) => (e as HTMLInputElement).value));
    expect(offered).toEqual(['contacts:read', 'messages:read', 'messages:write']);
    expect(await page.textContent('main')).toContain(new URL(callbackUrl).host);
    await screenshot(page, 'oauth-3-consent');

    // Untick messages:write: the token gets only what the person allowed.
    await page.uncheck('input[name=scope][value="messages:write"]');
    await Promise.all([page.waitForURL((u) => u.href.startsWith(callbackUrl)), page.click('button[value=approve]')]);
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe('xyz-state');
    expect(back.searchParams.get('iss')).toBe(t.url);
    const code = back.searchParams.get('code')!;
    expect(code).toBeTruthy();

    const tokenRes = await fetch(`${t.url}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: callbackUrl, client_id: clientId, resource: `${t.url}/mcp` }),
    });
    expect(tokenRes.status).toBe(200);
    const tokens = await tokenRes.json();
    expect(tokens.scope).toBe('contacts:read messages:read');
    expect((await callMcp(t, tokens.access_token, 'messages:read')).status).toBe(200);
    expect((await callMcp(t, tokens.access_token, 'messages:write')).status).toBe(403);
  });

  it('the console overview and connected apps', async () => {
    await page.goto(`${t.url}/console`);
    await expect.poll(() => page.textContent('h1')).toBe('Overview');
    await screenshot(page, 'console-1-overview');
    await page.click('nav.tabs >> text=Connected apps');
    await expect.poll(() => page.textContent('table.apps')).toContain('Browser Assistant');
    await screenshot(page, 'console-2-apps');
  });

  it('creates an API key (shown once), uses it, revokes it', async () => {
    await page.goto(`${t.url}/console/api-keys`);
    await page.fill('input[name=name]', 'Browser key');
    await page.check('input[name=permissions][value="contacts:read"]');
    await page.check('input[name=permissions][value="messages:read"]');
    await page.click('button:has-text("Create key")');
    const key = (await page.textContent('[data-testid=new-api-key]'))!.trim();
    expect(key).toMatch(/^rcsk_/);
    await screenshot(page, 'console-3-key-created');

    const row = await t.ctx.db.selectFrom('api_keys').selectAll().where('name', '=', 'Browser key').executeTakeFirstOrThrow();
    expect(row.key_hash).not.toBe(key);
    expect(JSON.parse(row.permissions)).toEqual(['contacts:read', 'messages:read']);
    expect((await t.api('GET', '/api/v1/contacts', undefined, { key })).status).toBe(200);
    expect((await t.api('POST', '/api/v1/contacts', { phone: '+4915112345678' }, { key })).status).toBe(403);

    // Reloading the list never shows the secret again.
    await page.goto(`${t.url}/console/api-keys`);
    expect(await page.content()).not.toContain(key);

    await Promise.all([page.waitForURL(/done=key-revoked/), page.click(`tr[data-key-id="${row.id}"] button:has-text("Revoke")`)]);
    await expect.poll(() => page.textContent('.notice')).toContain('revoked');
    await screenshot(page, 'console-4-key-revoked');
    expect((await t.api('GET', '/api/v1/contacts', undefined, { key })).status).toBe(401);
  });

  it('creates a key whose sends need approval; every key shows how it sends', async () => {
    await page.goto(`${t.url}/console/api-keys`);
    expect(await page.isChecked('input[name=sendsNeedApproval]')).toBe(false);
    await page.fill('input[name=name]', 'Assistant key');
    await page.check('input[name=permissions][value="messages:write"]');
    await page.check('input[name=sendsNeedApproval]');
    await page.click('button:has-text("Create key")');
    const key = (await page.textContent('[data-testid=new-api-key]'))!.trim();
    expect(await page.textContent('.created-key')).toContain('sends need approval');
    const row = await t.ctx.db.selectFrom('api_keys').selectAll().where('name', '=', 'Assistant key').executeTakeFirstOrThrow();
    expect(row.sends_need_approval).toBe(1);
    expect(await page.getAttribute(`tr[data-key-id="${row.id}"] td.sends`, 'data-sends-need-approval')).toBe('true');
    expect(await page.textContent(`tr[data-key-id="${row.id}"] td.sends`)).toContain('need approval');
    const automation = (await t.ctx.services.apiKeys.list(t.account.accountId)).find((k) => !k.sendsNeedApproval && k.revokedAt === null)!;
    expect(await page.textContent(`tr[data-key-id="${automation.id}"] td.sends`)).toContain('directly');
    const send = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: '+4915112340001', message: 'hi', sendernameId: t.account.senders.sms }, { key });
    expect(send.status).toBe(403);
    expect(send.body.error.code).toBe('APPROVAL_REQUIRED');
  });

  it('settings: approval, time zone, company profile, unsubscribe URL', async () => {
    await page.goto(`${t.url}/console/settings`);
    await page.uncheck('input[name=approvalRequired]');
    await page.selectOption('select[name=timezone]', 'America/New_York');
    await page.fill('input[name=profile_company_name]', 'Acme <Widgets> & Co');
    await page.fill('input[name=unsubscribeUrl]', 'https://acme.example/unsubscribe');
    await Promise.all([page.waitForURL(/done=settings-saved/), page.click('button:has-text("Save settings")')]);
    await screenshot(page, 'console-5-settings');
    const account = await t.ctx.services.accounts.get(t.account.accountId);
    expect(account).toMatchObject({ approvalRequired: false, timezone: 'America/New_York', unsubscribeUrl: 'https://acme.example/unsubscribe' });
    expect(account.companyProfile.company_name).toBe('Acme <Widgets> & Co');
    expect(await page.inputValue('input[name=profile_company_name]')).toBe('Acme <Widgets> & Co');

    await page.fill('input[name=unsubscribeUrl]', 'not a url');
    await page.$eval('form.settings', (f) => ((f as HTMLFormElement).noValidate = true));
    await page.click('button:has-text("Save settings")');
    await expect.poll(() => page.textContent('.error-list')).toContain('unsubscribeUrl');
    expect((await t.ctx.services.accounts.get(t.account.accountId)).unsubscribeUrl).toBe('https://acme.example/unsubscribe');
  });

  it('senders (read-only) and the webhooks placeholder', async () => {
    await page.goto(`${t.url}/console/senders`);
    await expect.poll(() => page.textContent('main table')).toContain('APPROVED');
    await screenshot(page, 'console-6-senders');
    await page.goto(`${t.url}/console/webhooks`);
    expect(await page.textContent('main')).toContain('Webhook');
  });

  it('raised no console errors or CSP violations', () => {
    expect(problems).toEqual([]);
  });
});

describe('console over HTTP', () => {
  it('another account’s key cannot be revoked (404), and POSTs need the CSRF token', async () => {
    const other = await t.createAccount();
    const otherKey = (await t.ctx.services.apiKeys.list(other.accountId))[0]!;
    const cookies = await context.cookies(t.url);
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const html = await (await fetch(`${t.url}/console/api-keys`, { headers: { Cookie: cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const post = (path: string, body: Record<string, string>) =>
      fetch(`${t.url}${path}`, { method: 'POST', redirect: 'manual', headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/html' }, body: new URLSearchParams(body) });
    expect((await post(`/console/api-keys/${otherKey.id}/revoke`, { csrf })).status).toBe(404);
    expect((await t.ctx.services.apiKeys.list(other.accountId))[0]!.revokedAt).toBeNull();
    expect((await post('/console/api-keys', { name: 'x', permissions: 'contacts:read' })).status).toBe(403);
    expect((await post('/console/api-keys', { csrf, name: 'x', permissions: 'nope:read' })).status).toBe(400);
  });
});
