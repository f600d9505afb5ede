import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { seriousAxeViolations } from './axe.js';
import { expectNoSidewaysScroll, launchBrowser, loggedInState, screenshot, watchConsole, type SessionState } from './helpers.js';

/**
 * Every console page on a phone (issue #30): at 390 px nothing sticks out sideways and axe-core
 * finds nothing serious or critical, with data on the pages (a key, a sent message, a webhook, a form).
 */
let t: TestServer;
let browser: Browser;
let session: SessionState;

const PAGES = ['/console', '/console/approvals', '/console/api-keys', '/console/apps', '/console/senders', '/console/credits', '/console/webhooks', '/console/forms', '/console/consent', '/console/settings', '/phone'];

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  session = await loggedInState(browser, t.url, t.account);
  // Something on each page: a sent message (overview, credits, phone), a webhook endpoint, a form.
  expect((await t.api('POST', '/api/rcs/send', { phoneNumber: '+4915123459001', messageType: 'text', content: { text: 'Hello from the phone test' }, sendernameId: t.account.senders.rcs })).status).toBe(200);
  expect((await t.api('POST', '/api/rcs/webhooks', { url: 'https://hooks.example.com/a-rather-long-path/for/the/receiver', events: ['delivery_status'] })).status).toBeLessThan(300);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the console at 390 px', () => {
  for (const path of PAGES) {
    it(`${path} fits and passes axe-core`, async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: session });
      const page = await context.newPage();
      const { problems } = watchConsole(page);
      const res = await page.goto(`${t.url}${path}`);
      expect(res?.status()).toBe(200);
      await screenshot(page, `console-phone${path.replace(/\//g, '-')}`);
      await expectNoSidewaysScroll(page);
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
