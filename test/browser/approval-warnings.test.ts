import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { body, mcpClient } from '../mcp/helpers.js';
import { launchBrowser, screenshot, loggedInState, type SessionState } from './helpers.js';

/**
 * Empty merge values on the share page: recipients without a first name would read "Hello !".
 * The preview's warnings (code empty_merge_value, added by the preview service) must be listed
 * and the mockup flagged, instead of "No warnings" beside a message with a blank in it.
 */

let t: TestServer;
let browser: Browser;
let storageState: SessionState;

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
// Contacts exist, but without first names.
const PHONES = ['+4915112360001', '+4915112360002', '+4915112360003'];

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  for (const phone of PHONES) await t.ctx.services.contacts.create(t.account.accountId, { phone });
  storageState = await loggedInState(browser, t.url, t.account);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function open(size: keyof typeof SIZES, url: string): Promise<Page> {
  const context = await browser.newContext({ viewport: SIZES[size], storageState });
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

describe('empty merge values on the share page', () => {
  it('lists the empty_merge_value warning naming the field, and flags the mockup', async () => {
    const c = await mcpClient(t.url, t.account.apiKey);
    const r = body(
      await c.callTool({
        name: 'rcs_preview',
        arguments: { phoneNumbers: PHONES, messageType: 'text', sendernameId: t.account.senders.rcs, content: { text: 'Hello {{contact_first_name}}! Big news.' } },
      }),
    );
    await c.close();
    expect(r.error).toBeUndefined();
    for (const size of ['desktop', 'phone'] as const) {
      const page = await open(size, r.share_url);
      // The mockup shows what the first recipient really gets…
      expect(await page.locator('[data-testid=mockup]').textContent()).toContain('Hello ! Big news.');
      // …and the page says why that is wrong.
      const warning = page.locator('[data-testid=warnings] [data-warning-code=empty_merge_value]');
      expect(await warning.count()).toBeGreaterThan(0);
      expect(await warning.first().textContent()).toContain('contact_first_name');
      const alert = page.locator('[data-testid=merge-alert]');
      expect(await alert.isVisible()).toBe(true);
      expect(await alert.textContent()).toContain('contact_first_name');
      expect(await page.locator('[data-testid=mockup].flagged').count()).toBe(1);
      expect(await page.locator('main').textContent()).not.toContain('No warnings');
      // The decision stays above the fold with the warnings shown.
      const approve = await page.locator('[data-testid=approve]').boundingBox();
      expect(approve!.y + approve!.height).toBeLessThanOrEqual(SIZES[size].height);
      await screenshot(page, `approval-warnings-${size}`);
      await page.context().close();
    }
  });
});
