import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from '../../src/platform/permissions.js';
import { sampleUrl } from '../../src/sandbox/samples.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { seriousViolations, axeViolations } from './axe.js';
import { expectNoSidewaysScroll, launchBrowser, loggedInState, watchConsole, type SessionState } from './helpers.js';

/**
 * The worst first, seen by the approver (issue #42). An assistant key wrote the first names of 10,000
 * contacts; one of them is "Call 0900 5551234", another "paypal。com/login". The carousel's cards carry
 * thumbnails — one on this server, one on a host the assistant chose. At 1280 and 390 px: the worst
 * value is on the first screen of the page (its head) and heads the values table at #values; each
 * card's thumbnail is shown (through this server, never from its host) with its URL as text; no
 * sideways scroll; axe-core finds nothing serious. Screenshots go to /tmp/i42-approver-*.png.
 */
const N = 10_000;
const CALL = 'Call 0900 5551234';
const LINK = 'paypal\u3002com/login';
const FOREIGN_THUMB = 'https://thumbs.assistant-chosen.test/t.jpg';
const phoneOf = (i: number) => `+491518${String(i).padStart(6, '0')}5`;
const nameOf = (i: number) => (i === 7_000 ? CALL : i === 9_000 ? LINK : `Name${i}`);
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
type Size = keyof typeof SIZES;

let t: TestServer;
let browser: Browser;
let storageState: SessionState;
let shareUrl: string;

beforeAll(async () => {
  t = await startTestServer();
  const assistantKey = (await t.ctx.services.apiKeys.create(t.account.accountId, 'Assistant', ALL_PERMISSIONS, { sendsNeedApproval: true })).key;
  for (let start = 1; start <= N; start += 1000) {
    const contacts = Array.from({ length: 1000 }, (_, k) => ({ phone: phoneOf(start + k), firstName: nameOf(start + k) }));
    const r = await t.api('POST', '/api/v1/contacts/bulk', { contacts }, { key: assistantKey });
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
  }
  const own = (f: string) => sampleUrl(t.url, f);
  const res = await t.api(
    'POST',
    '/api/rcs/previews/send-batch',
    {
      phoneNumbers: Array.from({ length: N }, (_, i) => phoneOf(i + 1)),
      messageType: 'carousel',
      content: {
        cardContents: [
          { title: 'Hi {{contact_first_name}}', description: 'Our lake cruise', media: { height: 'MEDIUM', contentInfo: { fileUrl: own('landscape.jpg'), contentType: 'image/jpeg', thumbnailUrl: own('sunset-poster.jpg') } } },
          { title: 'And more', description: 'A picture elsewhere', media: { height: 'MEDIUM', contentInfo: { fileUrl: own('landscape.jpg'), contentType: 'image/jpeg', thumbnailUrl: FOREIGN_THUMB } } },
        ],
      },
      sendernameId: t.account.senders.rcs,
    },
    { key: assistantKey },
  );
  expect(res.status, JSON.stringify(res.body).slice(0, 1000)).toBe(201);
  shareUrl = res.body.data.share_url as string;
  browser = await launchBrowser(['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1']);
  storageState = await loggedInState(browser, t.url, t.account);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function open(size: Size, hash = ''): Promise<{ page: Page; problems: string[]; requests: string[] }> {
  const context = await browser.newContext({ viewport: SIZES[size], storageState });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  const { problems } = watchConsole(page);
  const res = await page.goto(`${shareUrl}${hash}`);
  expect(res?.status()).toBe(200);
  await page.waitForLoadState('load');
  return { page, problems, requests };
}

const onFirstScreen = async (page: Page, selector: string, size: Size) => {
  const box = await page.locator(selector).first().boundingBox();
  expect(box, selector).not.toBeNull();
  expect(box!.y, `${selector} (${size})`).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height, `${selector} (${size})`).toBeLessThanOrEqual(SIZES[size].height);
};

describe('the worst of 10,000 assistant-written names, on the first screen', () => {
  for (const size of ['desktop', 'phone'] as const) {
    it(`names the look-alike link above the decision and lists both dangerous values first (${size})`, async () => {
      const { page, problems, requests } = await open(size);
      const worst = page.locator('[data-testid=worst-value]');
      expect(await worst.locator('[data-testid=worst-value-text]').textContent()).toBe(LINK);
      expect(await worst.textContent()).toContain('look-alike link');
      expect(await worst.textContent()).toContain(phoneOf(9_000));
      await onFirstScreen(page, '[data-testid=worst-value-text]', size);
      await onFirstScreen(page, '[data-testid=approve]', size);
      await page.screenshot({ path: `/tmp/i42-approver-head-${size}.png` });
      // The warnings name both by value, first.
      const warnings = await page.locator('[data-testid=warnings] li').allTextContents();
      const risky = warnings.filter((w) => w.includes('{{contact_first_name}}'));
      expect(risky[0]).toContain(LINK);
      expect(risky[1]).toContain(CALL);
      await expectNoSidewaysScroll(page);

      // The values card, opened at #values: both dangerous values head the table, on its first screen.
      await page.goto(`${shareUrl}#values`);
      const rows = page.locator('[data-testid=merge-row] .merge-value');
      expect(await rows.nth(0).textContent()).toBe(LINK);
      expect(await rows.nth(1).textContent()).toBe(CALL);
      await onFirstScreen(page, '[data-testid=merge-row]:nth-child(2) .merge-value', size);
      await page.screenshot({ path: `/tmp/i42-approver-values-${size}.png` });
      await expectNoSidewaysScroll(page);
      // Nothing was requested from a host other than this server.
      expect(requests.filter((u) => new URL(u).origin !== new URL(t.url).origin)).toEqual([]);
      expect(problems.filter((m) => !/\/preview\/[^/]+\/media\/\d+$/.test(m))).toEqual([]);
      await page.context().close();
    });

    it(`shows each card's thumbnail through this server, or names its host, with its URL (${size})`, async () => {
      const { page, requests } = await open(size, '#mockup');
      const thumbs = page.locator('.carousel-card [data-testid=media-thumbnail]');
      expect(await thumbs.count()).toBe(2);
      // This server's sample: loaded from the same origin.
      const ownImg = thumbs.nth(0).locator('img');
      expect(await ownImg.getAttribute('src')).toBe('/api/rcs/sandbox/samples/sunset-poster.jpg');
      await expect.poll(() => ownImg.evaluate((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0)).toBe(true);
      expect(await thumbs.nth(0).textContent()).toContain(sampleUrl(t.url, 'sunset-poster.jpg'));
      // The assistant's host: fetched by this server (/preview/<slug>/media/<n>), named, URL as text.
      const foreign = thumbs.nth(1).locator('img');
      expect(await foreign.getAttribute('src')).toMatch(/^\/preview\/[^/]+\/media\/\d+$/);
      expect(await foreign.getAttribute('alt')).toBe('Thumbnail from thumbs.assistant-chosen.test');
      expect(await thumbs.nth(1).textContent()).toContain(FOREIGN_THUMB);
      await thumbs.nth(0).scrollIntoViewIfNeeded();
      await page.screenshot({ path: `/tmp/i42-approver-thumbs-${size}.png` });
      expect(requests.filter((u) => new URL(u).origin !== new URL(t.url).origin)).toEqual([]);
      await expectNoSidewaysScroll(page);
      await page.context().close();
    });

    it(`has no serious or critical axe-core violation (${size})`, async () => {
      for (const hash of ['', '#values', '#mockup']) {
        const { page } = await open(size, hash);
        const violations = await axeViolations(page);
        if (violations.length > 0) console.log(`axe (${size}, "${hash}"): ${JSON.stringify(violations, null, 1)}`);
        expect(seriousViolations(violations)).toEqual([]);
        await page.context().close();
      }
    });
  }

  it('wrote its screenshots', () => {
    for (const f of ['head-desktop', 'head-phone', 'values-phone', 'thumbs-phone']) expect(fs.existsSync(`/tmp/i42-approver-${f}.png`), f).toBe(true);
  });
});
