import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { launchBrowser, loggedInState, screenshot, watchConsole, type SessionState, expectNoSidewaysScroll } from './helpers.js';
import { axeViolations } from './axe.js';

/**
 * The console's Consent page (issue #28): a person looks up a number, sees where it stands and its history (a keyword
 * opt-out with the text received, a declared opt-in with its source and actor), enables the contact (recorded as the
 * business's own change; the opt-out stands), and downloads the account's record as CSV. At 1280 and 390 px: nothing
 * scrolls sideways, no serious or critical axe-core violation, no console error.
 */
let t: TestServer;
let acc: TestAccount;
let browser: Browser;
let state: SessionState;
const P = '+4915190001234';
const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount({ name: 'Consent Browser Co' });
  const created = await t.api('POST', '/api/v1/contacts', { phone: P, firstName: 'Ada', consentSource: 'Signed the paper form at the Berlin shop counter on a rainy Tuesday, form number 2026-0412' }, { key: acc.apiKey });
  expect(created.status).toBe(201);
  expect((await t.api('POST', '/api/rcs/send', { phoneNumber: P, messageType: 'text', content: { text: 'Hello' }, sendernameId: acc.senders.rcs }, { key: acc.apiKey })).status).toBe(200);
  await (t.ctx.carriers as unknown as { userReply(i: object): Promise<void> }).userReply({ from: P, senderId: acc.senders.rcs, channel: 'RCS', text: 'Please stop sending me these messages' });
  browser = await launchBrowser();
  state = await loggedInState(browser, t.url, acc);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function open(size: keyof typeof SIZES, pathAndQuery: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: SIZES[size], storageState: state });
  const page = await context.newPage();
  const { problems } = watchConsole(page);
  await page.goto(`${t.url}${pathAndQuery}`);
  return { page, problems };
}

describe('console: Consent', () => {
  for (const size of ['desktop', 'phone'] as const) {
    it(`looks up a number and shows its history (${size})`, async () => {
      const { page, problems } = await open(size, '/console');
      await page.click('nav.tabs >> text=Consent');
      await expect.poll(() => page.textContent('h1')).toBe('Consent');
      await page.fill('input[name=q]', P.replace('+49', '0049 '));
      await page.click('button:has-text("Look up")');
      await expect.poll(() => page.textContent('.consent-standing h2')).toBe(P);
      expect(await page.textContent('.consent-facts')).toContain('Opted out since');
      const events = page.locator('.consent-history > li');
      expect(await events.count()).toBe(2);
      expect(await events.nth(0).textContent()).toContain('Please stop sending me these messages');
      expect(await events.nth(0).textContent()).toContain('Opted out');
      expect(await events.nth(1).textContent()).toContain('Signed the paper form');
      expect(await events.nth(1).textContent()).toMatch(/By\s*key "/);
      expect(await page.locator('script').count()).toBe(0);
      await screenshot(page, `consent-lookup-${size}`);
      await expectNoSidewaysScroll(page);
      const violations = await axeViolations(page);
      if (violations.length > 0) console.log(`axe (${size}): ${JSON.stringify(violations, null, 1)}`);
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }

  it('an unknown number says so; enabling the contact is recorded, the opt-out stands; the CSV downloads', async () => {
    const { page, problems } = await open('desktop', '/console/consent?q=%2B4915190009999');
    expect(await page.textContent('[role=alert]')).toContain('Nothing is on record');
    await page.goto(`${t.url}/console/consent?q=${encodeURIComponent(P)}`);
    await page.click('button:has-text("Enable contact")');
    await expect.poll(() => page.textContent('[role=status]')).toContain('The contact was enabled');
    const first = page.locator('.consent-history > li').first();
    expect(await first.textContent()).toContain('Contact enabled by the business');
    expect(await first.textContent()).toContain(`user "${acc.email}"`);
    expect(await first.textContent()).toContain('opt-out stands');
    expect(await page.textContent('.consent-facts')).toContain('Opted out since');
    await screenshot(page, 'consent-enabled-desktop');

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('a:has-text("Download")')]);
    const csv = fs.readFileSync((await download.path()), 'utf8');
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toMatch(/^id,occurred_at,phone,/);
    expect(lines).toHaveLength(4);
    expect(csv).toContain('Please stop sending me these messages');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
