import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { authorizeVia, discover, exchange, register } from '../oauth/helpers.js';
import { axeViolations } from './axe.js';
import { launchBrowser, loggedInState, screenshot, tempScreenshotDir, watchConsole, type SessionState } from './helpers.js';

/**
 * Issue #42: /console/api-keys with a revoked key and /console/forms with a form scrolled sideways at 390 px, and the
 * back links failed contrast (4.19:1). Every console page, with data on it (an active key with limits and a revoked
 * one, a connected app, a webhook with deliveries, a form with a submission, a batch, a waiting preview, a consent history), at 1280 and 390 px in a plain
 * viewport (no mobile emulation: a narrow desktop window does not get the phone's text autosizing): nothing is wider
 * than the window and axe-core finds nothing, color contrast included.
 */
let t: TestServer;
let browser: Browser;
let state: SessionState;
const dir = tempScreenshotDir('console-narrow');
const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
const P = '+4915190004321';
const pages: [name: string, path: string][] = [];

beforeAll(async () => {
  t = await startTestServer({ env: { DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
  const a = t.account;
  browser = await launchBrowser();
  state = await loggedInState(browser, t.url, a);
  const keys = t.ctx.services.apiKeys;
  const active = await keys.create(a.accountId, 'CRM sync for the Berlin and Hamburg shops (nightly)', ['messages:read', 'messages:write', 'contacts:read'], { sendsNeedApproval: true });
  await t.ctx.services.budgets.setLimits(a.accountId, { id: active.info.id, kind: 'key' }, { dailyCredits: 25, maxRecipients: 500 });
  const revoked = await keys.create(a.accountId, 'zapier_crm_production_integration_berlin_shop_2025', ['messages:read', 'contacts:read', 'contacts:write', 'templates:read']);
  await keys.revoke(a.accountId, revoked.info.id);

  // A connected app, by the OAuth flow a person goes through (a second login: the next TOTP code, each is accepted once).
  const { as } = await discover(t);
  const rc = await register(as, 'http://127.0.0.1:9/callback', { name: 'Desk Assistant with a rather long display name' });
  const web = new WebClient(t.url);
  const auth = await authorizeVia(web, as, rc, { email: a.email, password: a.password, totpSecret: a.totpSecret, now: () => Date.now() + 30_000 }, { scope: 'contacts:read messages:read messages:write' });
  await exchange(as, rc, auth.location!, auth.state, auth.verifier);

  const hook = await t.api('POST', '/api/rcs/webhooks', { url: 'https://crm.example.com/hooks/rcs/incoming-messages-and-delivery-status', events: ['sms_message_received', 'delivery_status'], description: 'CRM sync of replies and receipts' });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  const form = await t.api('POST', '/api/v1/forms', {
    name: 'Bistro news and the weekly lunch menu',
    title: 'Get our weekly menu by SMS',
    fields: { firstName: 'required', email: 'optional' },
    confirmation: { sendernameId: a.senders.sms, message: 'Bistro: confirm your subscription to {{form_name}} here {{confirm_link}}' },
  });
  expect(form.status, JSON.stringify(form.body)).toBe(201);
  // A submission on the form, by its public page.
  const visitor = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const formPage = await visitor.newPage();
  await formPage.goto(`${t.url}/f/${form.body.data.slug as string}`);
  await formPage.fill('input[name=phone]', '+49 151 9000 4323');
  await formPage.fill('input[name=firstName]', 'Bartholomew-Maximilian');
  await formPage.fill('input[name=email]', 'bartholomew.maximilian.von.und.zu.example@example.com');
  await Promise.all([formPage.waitForURL(/\/sent$/), formPage.click('#optin-submit')]);
  await visitor.close();
  // A batch on the overview's progress list.
  expect((await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: ['+4915190004330', '+4915190004331'], messageType: 'text', content: { text: 'Batch' }, sendernameId: a.senders.rcs, campaignName: 'spring_sale_berlin_and_hamburg_2026' })).status).toBeLessThan(300);
  const preview = await t.api('POST', '/api/rcs/previews/send-sms', { phoneNumber: '+4915190004322', message: 'Lunch today: soup and bread', sendernameId: a.senders.sms });
  expect(preview.status).toBe(201);
  expect((await t.api('POST', '/api/v1/contacts', { phone: P, firstName: 'Ada', consentSource: 'Signed the paper form at the Berlin shop counter, form number 2026-0412' })).status).toBe(201);
  expect((await t.api('POST', '/api/rcs/send', { phoneNumber: P, messageType: 'text', content: { text: 'Hello' }, sendernameId: a.senders.rcs })).status).toBe(200);
  await (t.ctx.carriers as unknown as { userReply(i: object): Promise<void> }).userReply({ from: P, senderId: a.senders.rcs, channel: 'RCS', text: 'Please stop sending me these messages' });

  pages.push(
    ['overview', '/console'],
    ['api-keys', '/console/api-keys'],
    ['apps', '/console/apps'],
    ['usage', `/console/usage?credential=${active.info.id}`],
    ['senders', '/console/senders'],
    ['webhooks', '/console/webhooks'],
    ['webhook', `/console/webhooks/${hook.body.data.id as string}`],
    ['approvals', '/console/approvals'],
    ['forms', '/console/forms'],
    ['form', `/console/forms/${form.body.data.id as string}`],
    ['settings', '/console/settings'],
    ['credits', '/console/credits'],
    ['consent', `/console/consent?q=${encodeURIComponent(P)}`],
  );
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** What is wider than the window: the page's scroll width and the elements sticking out (their right edge). */
async function overflow(page: Page) {
  return page.evaluate(() => {
    const client = document.documentElement.clientWidth;
    const wide = Array.from(document.querySelectorAll('body *'))
      .filter((e) => e.getBoundingClientRect().right > client + 0.5)
      .map((e) => `${e.tagName.toLowerCase()}${e.className ? `.${String(e.className).replace(/\s+/g, '.')}` : ''} (${Math.round(e.getBoundingClientRect().right)})`);
    return { scroll: document.documentElement.scrollWidth, client, wide: wide.slice(0, 8) };
  });
}

describe('every console page with data on it', () => {
  for (const size of ['desktop', 'phone'] as const) {
    it(`fits ${SIZES[size].width} px and axe-core finds nothing, color contrast included`, async () => {
      const context = await browser.newContext({ viewport: SIZES[size], storageState: state });
      const failures: string[] = [];
      try {
        for (const [name, path] of pages) {
          const page = await context.newPage();
          const { problems } = watchConsole(page);
          const res = await page.goto(`${t.url}${path}`);
          expect(res?.status(), path).toBe(200);
          // Forms folded away (the limits of a key, the edit form of a webhook) open, as a person would see them.
          for (const summary of await page.locator('details summary').all()) if (await summary.isVisible()) await summary.click();
          await screenshot(page, `${name}-${size}`, dir);
          const o = await overflow(page);
          if (o.scroll > o.client) failures.push(`${path}: ${o.scroll} px wide in ${o.client}: ${o.wide.join(', ')}`);
          const violations = await axeViolations(page);
          for (const v of violations) failures.push(`${path}: axe ${v.id} (${v.impact}) ${v.targets.join(' | ')}`);
          if (problems.length > 0) failures.push(`${path}: ${problems.join('; ')}`);
          await page.close();
        }
      } finally {
        await context.close();
      }
      expect(failures).toEqual([]);
    });
  }
});
