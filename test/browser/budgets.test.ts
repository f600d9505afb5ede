import { DateTime } from 'luxon';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { oauthToken } from '../api/approval/helpers.js';
import { launchBrowser, loggedInState, screenshot, watchConsole, type SessionState, expectNoSidewaysScroll } from './helpers.js';
import { seriousAxeViolations } from './axe.js';

/**
 * Budgets per credential on the console (issue #29): a key created with limits on the API keys page, its limits and
 * today's use in the list, changed and removed with the row's form (CSRF like every console form), a refused value
 * shown, the key's 30-day chart, and a connected app's limits on the Connected apps page — at 1280 and 390 px wide,
 * without sideways scrolling, with no serious or critical axe-core violation.
 */
let t: TestServer;
let browser: Browser;
let state: SessionState;
let clientId: string;
const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

async function open(size: keyof typeof SIZES, path: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: SIZES[size], storageState: state });
  const page = await context.newPage();
  const { problems } = watchConsole(page);
  await page.goto(`${t.url}${path}`);
  return { page, problems };
}

const keyRow = async (name: string) => t.ctx.db.selectFrom('api_keys').selectAll().where('account_id', '=', t.account.accountId).where('name', '=', name).executeTakeFirstOrThrow();

beforeAll(async () => {
  t = await startTestServer();
  // An assistant connects by OAuth first (its TOTP code half a minute back, so the console login's code is new).
  await oauthToken(t, t.account, { now: () => Date.now() - 30_000 }, 'messages:read messages:write');
  clientId = (await t.ctx.db.selectFrom('oauth_tokens').select('client_id').where('account_id', '=', t.account.accountId).executeTakeFirstOrThrow()).client_id;
  browser = await launchBrowser();
  state = await loggedInState(browser, t.url, t.account);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('console: budgets of keys and apps', () => {
  it('creates a key with limits; the list shows them with today\'s use', async () => {
    const { page, problems } = await open('desktop', '/console/api-keys');
    await page.fill('input[name=name]', 'Assistant');
    await page.check('input[name=permissions][value="messages:write"]');
    await page.check('input[name=sendsNeedApproval]');
    await page.fill('form[action="/console/api-keys"] input[name=dailyCredits]', '0.5');
    await page.fill('form[action="/console/api-keys"] input[name=maxRecipients]', '3');
    await page.click('button:has-text("Create key")');
    const key = (await page.textContent('[data-testid=new-api-key]'))!.trim();
    const row = await keyRow('Assistant');
    expect((await t.ctx.services.budgets.limits(t.account.accountId)).get(row.id)).toEqual({ dailyCredits: 0.5, maxRecipients: 3 });

    // Some use today: a preview costs nothing, a direct send through an automation key with limits does.
    const auto = await t.ctx.services.apiKeys.create(t.account.accountId, 'CRM sync', ['messages:write']);
    await t.ctx.services.budgets.setLimits(t.account.accountId, { id: auto.info.id, kind: 'key' }, { dailyCredits: 10 });
    const sent = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: '+4915160000001', message: 'Hello', sendernameId: t.account.senders.sms }, { key: auto.key });
    expect(sent.status).toBe(200);
    expect((await t.api('POST', '/api/rcs/previews/send-batch', { phoneNumbers: ['+4915160000002', '+4915160000003', '+4915160000004', '+4915160000005'], messageType: 'text', content: { text: 'Hi' }, sendernameId: t.account.senders.rcs }, { key })).body.error.code).toBe('BUDGET_EXCEEDED');

    await page.goto(`${t.url}/console/api-keys`);
    const assistant = page.locator(`tr[data-key-id="${row.id}"]`);
    expect(await assistant.locator('[data-testid=limits]').textContent()).toBe('0.5 credits a day · 3 recipients a send');
    expect(await assistant.locator('[data-testid=today]').textContent()).toBe('Today: 0 of 0.5 credits, 0 messages');
    const crm = page.locator(`tr[data-key-id="${auto.info.id}"]`);
    expect(await crm.locator('[data-testid=today]').textContent()).toBe('Today: 0.085 of 10 credits, 1 message');
    const unlimited = (await t.ctx.services.apiKeys.list(t.account.accountId)).find((k) => k.name.startsWith('test key'))!;
    expect(await page.locator(`tr[data-key-id="${unlimited.id}"] [data-testid=limits]`).textContent()).toBe('No limits');
    await screenshot(page, 'budgets-1-keys-desktop');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('changes and removes a key\'s limits with its form; a refused value is shown and changes nothing', async () => {
    const row = await keyRow('Assistant');
    const { page, problems } = await open('desktop', '/console/api-keys');
    const form = page.locator(`tr[data-key-id="${row.id}"] form.limits-form`);
    await page.click(`tr[data-key-id="${row.id}"] summary`);
    await form.locator('input[name=dailyCredits]').fill('12.5');
    await form.locator('input[name=maxRecipients]').fill('');
    await Promise.all([page.waitForURL(/done=limits-saved/), form.locator('button').click()]);
    expect(await page.textContent('.notice')).toContain('Limits saved');
    expect(await page.locator(`tr[data-key-id="${row.id}"] [data-testid=limits]`).textContent()).toBe('12.5 credits a day');
    expect((await t.ctx.services.budgets.limits(t.account.accountId)).get(row.id)).toEqual({ dailyCredits: 12.5, maxRecipients: null });

    await page.click(`tr[data-key-id="${row.id}"] summary`);
    await form.locator('input[name=maxRecipients]').fill('-4');
    await form.locator('button').click();
    await expect.poll(() => page.textContent('.card .error')).toContain('maxRecipients');
    expect((await t.ctx.services.budgets.limits(t.account.accountId)).get(row.id)).toEqual({ dailyCredits: 12.5, maxRecipients: null });
    await screenshot(page, 'budgets-2-refused-value');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("a key's usage page shows the last 30 days on the Credits chart", async () => {
    const auto = await keyRow('CRM sync');
    const { page, problems } = await open('desktop', '/console/api-keys');
    await Promise.all([page.waitForURL(/\/console\/usage\?credential=/), page.click(`tr[data-key-id="${auto.id}"] a:has-text("Last 30 days")`)]);
    expect(await page.textContent('h1')).toBe('Usage of key “CRM sync”');
    expect(await page.locator('svg.credits-chart rect.bar-spent').count()).toBe(30);
    const titles = await page.locator('svg.credits-chart rect.bar-spent title').allTextContents();
    expect(titles.at(-1)).toBe(`${new Date().toISOString().slice(0, 10)}: 0.085 credits`);
    expect(await page.locator('svg.credits-chart text').allTextContents()).toContain('ACCEPTED');
    await screenshot(page, 'budgets-3-usage');
    // Another account's key, an unknown id: not found.
    const other = await t.createAccount();
    const theirs = await t.ctx.services.apiKeys.create(other.accountId, 'theirs', ['messages:read']);
    expect((await page.goto(`${t.url}/console/usage?credential=${theirs.info.id}`))!.status()).toBe(404);
    expect((await page.goto(`${t.url}/console/usage?credential=nonsense`))!.status()).toBe(404);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("sets a connected app's limits on the Connected apps page", async () => {
    const { page, problems } = await open('desktop', '/console/apps');
    const row = page.locator(`tr[data-client-id="${clientId}"]`);
    expect(await row.locator('[data-testid=limits]').textContent()).toBe('No limits');
    await row.locator('summary').click();
    await row.locator('input[name=dailyCredits]').fill('50');
    await row.locator('input[name=maxRecipients]').fill('25');
    await Promise.all([page.waitForURL(/done=limits-saved/), row.locator('form.limits-form button').click()]);
    expect(await page.locator(`tr[data-client-id="${clientId}"] [data-testid=limits]`).textContent()).toBe('50 credits a day · 25 recipients a send');
    expect((await t.ctx.services.budgets.limits(t.account.accountId)).get(clientId)).toEqual({ dailyCredits: 50, maxRecipients: 25 });
    await screenshot(page, 'budgets-4-apps-desktop');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('the forms need the CSRF token and the account\'s own credentials', async () => {
    const cookie = state.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const html = await (await fetch(`${t.url}/console/api-keys`, { headers: { Cookie: cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const post = (path: string, form: Record<string, string>) =>
      fetch(`${t.url}${path}`, { method: 'POST', redirect: 'manual', headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    const row = await keyRow('Assistant');
    expect((await post(`/console/api-keys/${row.id}/limits`, { dailyCredits: '1' })).status).toBe(403);
    const other = await t.createAccount();
    const theirs = await t.ctx.services.apiKeys.create(other.accountId, 'theirs', ['messages:read']);
    expect((await post(`/console/api-keys/${theirs.info.id}/limits`, { csrf, dailyCredits: '1' })).status).toBe(404);
    expect((await post('/console/api-keys/not-an-id/limits', { csrf, dailyCredits: '1' })).status).toBe(404);
    expect((await post('/console/apps/limits', { csrf, client_id: 'cli_unknown', dailyCredits: '1' })).status).toBe(404);
    expect((await post(`/console/api-keys/${row.id}/limits`, { csrf, dailyCredits: '1e3' })).status).toBe(400);
    expect((await t.ctx.services.budgets.limits(other.accountId)).size).toBe(0);
  });

  for (const size of ['desktop', 'phone'] as const) {
    it(`the share page says how much of the assistant's daily budget is used (${size})`, async () => {
      // An assistant's key with 0.1 credits a day previews an SMS of 0.085: it fits, so no warning.
      const key = await t.ctx.services.apiKeys.create(t.account.accountId, `Assistant ${size}`, ['messages:write'], { sendsNeedApproval: true });
      await t.ctx.services.budgets.setLimits(t.account.accountId, { id: key.info.id, kind: 'key' }, { dailyCredits: 0.1 });
      const p = await t.api('POST', '/api/rcs/previews/send-sms', { phoneNumber: '+4915160000100', message: `Budget ${size}`, sendernameId: t.account.senders.sms }, { key: key.key });
      expect(p.status, JSON.stringify(p.body)).toBe(201);
      const { page, problems } = await open(size, new URL(p.body.data.share_url as string).pathname);
      // The budget's day is the account's (issue #42): it resets at the account's next local midnight, shown in UTC.
      const zone = (await t.ctx.services.accounts.get(t.account.accountId)).timezone;
      const resets = DateTime.now().setZone(zone).plus({ days: 1 }).startOf('day').toUTC().toFormat('yyyy-MM-dd HH:mm');
      expect((await page.textContent('[data-testid=budget]'))!.replace(/\s+/g, ' ')).toBe(`This assistant (key "Assistant ${size}") has used 0 of 0.1 credits today (resets ${resets} UTC).`);
      await expectNoSidewaysScroll(page);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, `budgets-share-page-${size}`);
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it(`keys, apps and usage pages fit ${SIZES[size].width} px and have no serious axe-core violation`, async () => {
      const auto = await keyRow('CRM sync');
      for (const [name, path] of [
        ['keys', '/console/api-keys'],
        ['apps', '/console/apps'],
        ['usage', `/console/usage?credential=${auto.id}`],
      ] as const) {
        const { page, problems } = await open(size, path);
        // The limits forms open, as a person would see them.
        for (const summary of await page.locator('details.limits-edit summary').all()) await summary.click();
        await expectNoSidewaysScroll(page);
        expect(await seriousAxeViolations(page)).toEqual([]);
        await screenshot(page, `budgets-${name}-${size}`);
        expect(problems).toEqual([]);
        await page.context().close();
      }
    });
  }
});
