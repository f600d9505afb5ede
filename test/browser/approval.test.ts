import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { totpCode } from '../helpers/web-client.js';
import { body, mcpClient } from '../mcp/helpers.js';
import { launchBrowser, screenshot, watchConsole } from './helpers.js';

let t: TestServer;
let browser: Browser;

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** An assistant previews a carousel whose texts try to act on the page. */
async function preview(): Promise<{ shareUrl: string; previewId: string; payload: Record<string, unknown> }> {
  const c = await mcpClient(t.url, t.account.apiKey);
  const r = await c.callTool({
    name: 'rcs_preview',
    arguments: {
      phoneNumbers: ['+4915112340001', '+4915112340002', '+4915112340003'],
      messageType: 'carousel',
      sendernameId: t.account.senders.rcs,
      campaignName: '<img src=x onerror=alert(1)>',
      content: {
        cardContents: [
          { title: '<script>document.forms[0].submit()</script>', description: 'Approve me', media: { height: 'MEDIUM', contentInfo: { fileUrl: 'https://example.com/a.jpg', contentType: 'image/jpeg' } } },
          { title: 'Second card', description: 'More' },
        ],
        suggestions: [{ reply: { text: 'Yes', postbackData: 'yes' } }],
      },
      smsFallback: { message: 'Fallback text', sendernameId: t.account.senders.sms },
    },
  });
  await c.close();
  const b = body(r);
  expect(b.error).toBeUndefined();
  return { shareUrl: b.share_url, previewId: b.preview_id, payload: b.payload };
}

const status = async (id: string) => (await t.ctx.db.selectFrom('previews').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

describe('the approval share page', () => {
  it('sends an unauthenticated visitor to the login and never approves', async () => {
    const p = await preview();
    const page = await browser.newPage();
    await page.goto(p.shareUrl);
    expect(new URL(page.url()).pathname).toBe('/login');
    // A forged cross-site form post (no session, no token) changes nothing.
    const res = await fetch(`${p.shareUrl}/approve`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'csrf=x', redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/login/);
    expect(await status(p.previewId)).toBe('pending');
    await page.close();
  });

  it('lets the logged-in person review and approve; content stays inert text', async () => {
    const p = await preview();
    const page = await browser.newPage();
    const console = watchConsole(page);
    let dialogs = 0;
    page.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
    await page.goto(p.shareUrl);
    await page.fill('input[name=email]', t.account.email);
    await page.fill('input[name=password]', t.account.password);
    // The login form has an optional code field of its own: wait for the code page.
    await Promise.all([page.waitForURL(/\/login\/totp/), page.click('button[type=submit]')]);
    await page.fill('input[name=code]', totpCode(t.account.totpSecret));
    await page.click('button[type=submit]');
    await page.waitForURL(p.shareUrl);

    await expect.poll(() => page.locator('[data-testid=recipient-count]').textContent()).toContain('3');
    expect(await page.getByText('<script>document.forms[0].submit()</script>').count()).toBeGreaterThan(0);
    expect(await page.getByText('Second card').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid=cost]').textContent()).toContain('0.105');
    expect(await page.locator('script').count()).toBe(0);
    expect(await status(p.previewId)).toBe('pending');
    await screenshot(page, 'approval-pending');

    // Without the CSRF token the same logged-in browser cannot approve.
    const forged = await page.evaluate(async (url) => (await fetch(`${url}/approve`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'csrf=wrong', redirect: 'manual' })).status, p.shareUrl);
    expect(forged).toBe(403);
    expect(await status(p.previewId)).toBe('pending');

    await page.click('[data-testid=approve]');
    await expect.poll(() => page.locator('[data-testid=preview-status]').textContent()).toContain('Approved');
    expect(await status(p.previewId)).toBe('approved');
    await screenshot(page, 'approval-approved');

    // Save as template from the page.
    await page.fill('input[name=name]', 'Carousel from preview');
    await page.click('text=Save template');
    await expect.poll(() => page.getByText('Saved as template').count()).toBeGreaterThan(0);
    const templates = await t.ctx.services.templates.list(t.account.accountId, { search: 'Carousel from preview' });
    expect(templates.data).toHaveLength(1);
    expect(templates.data[0]).toMatchObject({ type: 'RCS', rcsMessageType: 'carousel' });

    expect(dialogs).toBe(0);
    // The server cannot fetch the customer's image (tests resolve no public name; the page asks this server, never the host) and the forged post was refused on purpose.
    expect(console.problems.filter((m) => !/^502 http:\/\/127\.0\.0\.1:\d+\/preview\/[^/]+\/media\/\d+$/.test(m) && !/403 .*\/approve$/.test(m))).toEqual([]);
    await page.close();
  });
});
