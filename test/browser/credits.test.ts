import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { de, waitFor } from '../api/messaging/util.js';
import { launchBrowser, loggedInState, screenshot, watchConsole } from './helpers.js';

/**
 * The console's Credits page (issue #18): balance, a server-rendered SVG chart of credits spent
 * and messages by status per day (no script), and the paged credit history.
 */
let t: TestServer;
let acc: TestAccount;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
const DAY = 86_400_000;

/** A week of traffic: each day a batch with delivered, fallback and failing numbers, moved back to its day. */
async function trafficOverAWeek(): Promise<void> {
  let n = 0;
  for (let daysAgo = 6; daysAgo >= 0; daysAgo--) {
    const phones = [...Array.from({ length: 2 + ((daysAgo * 3) % 5) }, () => de(8000 + ++n)), de(8000 + ++n, '9990'), ...(daysAgo % 2 === 0 ? [de(8000 + ++n, '9992')] : [])];
    const r = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Weekly news' }, sendernameId: acc.senders.rcs, smsFallback: { message: 'Weekly news', sendernameId: acc.senders.sms } }, { key: acc.apiKey });
    expect(r.status).toBe(202);
    const jobId = r.body.jobId as string;
    await waitFor(async () => (await t.ctx.db.selectFrom('messages').select('id').where('job_id', '=', jobId).where('pending', '=', 1).execute()).length === 0, { what: `job ${jobId} done` });
    // Test data only: the rows are moved back in time, amounts untouched (balances stay as the ledger says).
    const shift = daysAgo * DAY;
    if (shift > 0) {
      await t.ctx.db.updateTable('messages').set((eb) => ({ created_at: eb('created_at', '-', shift) })).where('job_id', '=', jobId).execute();
      await t.ctx.db.updateTable('credit_ledger').set((eb) => ({ created_at: eb('created_at', '-', shift) })).where('job_id', '=', jobId).execute();
    }
  }
  for (let i = 0; i < 24; i++) await t.ctx.services.billing.setCredits(acc.accountId, 1000 + i, `Monthly top-up #${i + 1}`);
}

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount({ name: 'Credits Browser Co' });
  await trafficOverAWeek();
  browser = await launchBrowser();
  const state = await loggedInState(browser, t.url, acc);
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, storageState: state });
  page = await context.newPage();
  ({ problems } = watchConsole(page));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('console: Credits', () => {
  it('shows the balance, the chart and the newest history entries', async () => {
    await page.goto(`${t.url}/console`);
    await page.click('nav.tabs >> text=Credits');
    await expect.poll(() => page.textContent('h1')).toBe('Credits');
    const balance = (await t.api('GET', '/api/rcs/credits', undefined, { key: acc.apiKey })).body.credits as number;
    expect((await page.textContent('.balance-value'))!.replace(/,/g, '')).toBe(String(balance));

    // The chart: server-rendered SVG, one spent bar per day of the last 30, stacked status bars, no script anywhere.
    expect(await page.locator('svg.credits-chart').count()).toBe(1);
    expect(await page.locator('svg.credits-chart rect.bar-spent').count()).toBe(30);
    const spentHeights = await page.locator('svg.credits-chart rect.bar-spent').evaluateAll((els) => els.map((e) => Number(e.getAttribute('height'))));
    expect(spentHeights.slice(-7).every((h) => h > 0)).toBe(true);
    expect(spentHeights.slice(0, 23).every((h) => h === 0)).toBe(true);
    const legend = await page.locator('svg.credits-chart text').allTextContents();
    expect(legend).toEqual(expect.arrayContaining(['FAILED']));
    expect(legend.some((s) => ['READ', 'DELIVERED', 'SENT'].includes(s))).toBe(true);
    expect(await page.locator('script').count()).toBe(0);
    const titles = await page.locator('svg.credits-chart rect.bar-spent title').allTextContents();
    const db = await t.ctx.services.billing.daily(acc.accountId, 30);
    expect(titles.at(-1)).toBe(`${db.at(-1)!.day}: ${db.at(-1)!.spent} credits`);

    // History: 25 newest entries, the adjustments first, with reasons; a link to older ones.
    expect(await page.locator('table.ledger tbody tr').count()).toBe(25);
    expect(await page.textContent('table.ledger tbody tr:first-child')).toContain('Monthly top-up #24');
    await screenshot(page, 'credits-1-page');
    expect(problems).toEqual([]);
  });

  it('pages back through the history, and a broken link says so', async () => {
    await page.click('text=Older entries');
    await page.waitForURL(/cursor=/);
    const older = await page.locator('table.ledger tbody tr').allTextContents();
    expect(older.length).toBeGreaterThan(0);
    expect(older.join('\n')).toContain('Batch RCS send');
    expect(older.join('\n')).not.toContain('Monthly top-up #24');
    await screenshot(page, 'credits-2-older');

    const res = await page.goto(`${t.url}/console/credits?cursor=broken`);
    expect(res!.status()).toBe(400);
    expect(await page.textContent('.error')).toContain('does not exist');
    expect(problems).toEqual([]);
  });

  it('needs a login', async () => {
    const r = await fetch(`${t.url}/console/credits`, { redirect: 'manual' });
    expect([302, 303]).toContain(r.status);
  });
});
