import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from '../../src/platform/permissions.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { launchBrowser, loggedInState, screenshot, watchConsole, type SessionState, expectNoSidewaysScroll } from './helpers.js';
import { axeViolations } from './axe.js';

/**
 * The console's Approvals inbox (issue #29) in a real browser, at 1280 px and 390 px: the count
 * beside the tab, the filters, a row opening its share page where the person approves, the record
 * on the decided page; no sideways scrolling on a phone and no serious axe-core violation.
 */
let t: TestServer;
let acc: TestAccount;
let browser: Browser;
let state: SessionState;
let boundKey: string;
let seq = 0;

const preview = async (over: Record<string, unknown> = {}) => {
  const r = await t.api(
    'POST',
    '/api/rcs/previews/send-batch',
    { phoneNumbers: [`+4915112${500000 + ++seq}`, `+4915112${500000 + ++seq}`], messageType: 'text', content: { text: 'Our spring menu is here: asparagus, wild garlic and rhubarb tart' }, sendernameId: acc.senders.rcs, ...over },
    { key: boundKey },
  );
  expect(r.status).toBe(201);
  return r.body.data as { preview_id: string; share_url: string };
};

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount({ name: 'Inbox Browser Co' });
  boundKey = (await t.ctx.services.apiKeys.create(acc.accountId, 'Kitchen assistant with a rather long key name', ALL_PERMISSIONS, { sendsNeedApproval: true })).key;
  await preview({ campaignName: 'Spring menu' });
  await preview({ campaignName: 'Wine tasting on Friday' });
  await preview();
  browser = await launchBrowser();
  state = await loggedInState(browser, t.url, acc);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function open(size: 'desktop' | 'phone', path: string): Promise<{ page: Page; problems: string[] }> {
  const viewport = size === 'desktop' ? { width: 1280, height: 900 } : { width: 390, height: 844 };
  const context = await browser.newContext({ viewport, storageState: state });
  const page = await context.newPage();
  const { problems } = watchConsole(page);
  await page.goto(`${t.url}${path}`);
  return { page, problems };
}

describe('console: Approvals', () => {
  for (const size of ['desktop', 'phone'] as const) {
    it(`lists what waits with the count beside the tab, fits the screen and passes axe-core (${size})`, async () => {
      const { page, problems } = await open(size, '/console');
      expect(await page.textContent('[data-testid=approvals-count]')).toBe('3');
      await page.click('nav.tabs >> text=Approvals');
      await expect.poll(() => page.textContent('h1')).toBe('Approvals');
      expect(await page.locator('table.inbox-table tbody tr').count()).toBe(3);
      const first = await page.textContent('table.inbox-table tbody tr:first-child');
      expect(first).toContain('key "Kitchen assistant with a rather long key name"');
      expect(first).toContain('Waiting');
      expect(await page.locator('script').count()).toBe(0);
      await screenshot(page, `approvals-inbox-${size}`);
      await expectNoSidewaysScroll(page);
      const violations = await axeViolations(page);
      if (violations.length > 0) console.log(`axe (${size}): ${JSON.stringify(violations, null, 1)}`);
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }

  it('opens a preview from the inbox, approves it on its share page, and the inbox and page show who decided', async () => {
    const { page, problems } = await open('desktop', '/console/approvals');
    await page.click('table.inbox-table tbody tr:first-child td:first-child a');
    await page.waitForURL(/\/preview\//);
    await page.click('[data-testid=approve]');
    await expect.poll(() => page.textContent('[data-testid=preview-status]')).toContain('Approved');
    expect(await page.textContent('[data-testid=decision-record]')).toContain(`Approved by ${acc.email}`);
    await screenshot(page, 'approvals-share-page-decided');
    await page.goto(`${t.url}/console/approvals`);
    expect(await page.textContent('[data-testid=approvals-count]')).toBe('2');
    await page.click('nav.filters >> text=Approved');
    await page.waitForURL(/status=approved/);
    expect(await page.locator('table.inbox-table tbody tr').count()).toBe(1);
    expect(await page.textContent('table.inbox-table tbody tr')).toContain(`by ${acc.email}`);
    await screenshot(page, 'approvals-inbox-approved');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('the approved filter and the decided share page fit a phone too and pass axe-core', async () => {
    for (const path of ['/console/approvals?status=approved', '/console/approvals?status=expired']) {
      const { page, problems } = await open('phone', path);
      await expectNoSidewaysScroll(page);
      const violations = await axeViolations(page);
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      if (path.includes('approved')) {
        await screenshot(page, 'approvals-inbox-approved-phone');
        await page.click('table.inbox-table tbody tr:first-child td:first-child a');
        await page.waitForURL(/\/preview\//);
        await expectNoSidewaysScroll(page);
        await screenshot(page, 'approvals-share-page-decided-phone');
      }
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });
});
