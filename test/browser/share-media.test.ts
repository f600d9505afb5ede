import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleUrl } from '../../src/sandbox/samples.js';
import { startForeignHost, type ForeignHost } from '../helpers/foreign-host.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchBrowser, loggedInState, screenshot, watchConsole, type SessionState } from './helpers.js';

/**
 * Issue #27: opening a share page makes no request to a host the assistant chose (a tracking pixel
 * there would learn the approver's address and time), and this server's own sample images load on
 * a plain http:// start. The "foreign host" is a second local server on 127.0.0.1 with its own
 * port; the browser resolves no name at all (--host-resolver-rules), the server none either
 * (test/helpers/server.ts: offlineResolve).
 */

let fh: ForeignHost;
let t: TestServer;
let browser: Browser;
let storageState: SessionState;

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const PHONE = '+4915112360001';

beforeAll(async () => {
  fh = await startForeignHost();
  // The server may fetch from the loopback "foreign host" only with the switch on.
  t = await startTestServer({ env: { DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
  browser = await launchBrowser(['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1']);
  storageState = await loggedInState(browser, t.url, t.account);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await fh?.close();
});

/** Opens a page and records every request it makes, from the first byte on. */
async function open(size: keyof typeof SIZES, url: string): Promise<{ page: Page; requests: string[]; problems: string[] }> {
  const context = await browser.newContext({ viewport: SIZES[size], storageState });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  const { problems } = watchConsole(page);
  const res = await page.goto(url);
  expect(res?.status()).toBe(200);
  await page.waitForLoadState('load');
  return { page, requests, problems };
}

const offOrigin = (requests: string[]) => requests.filter((u) => new URL(u).origin !== new URL(t.url).origin);

async function preview(body: Record<string, unknown>): Promise<{ url: string; id: string }> {
  const r = await t.api('POST', '/api/rcs/previews/send', { phoneNumber: PHONE, sendernameId: t.account.senders.rcs, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { url: r.body.data.share_url as string, id: r.body.data.preview_id as string };
}

/** Whether each <img> matching the selector has loaded (complete, with a width). */
const loaded = (page: Page, selector: string) => page.$$eval(selector, (imgs) => imgs.map((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0));

describe('the share page and foreign media', () => {
  it('loads nothing from the assistant\'s hosts: images via this server or a placeholder naming the host, videos as text; own samples load over http', async () => {
    const foreignImage = `https://${fh.host}/ok.png`;
    const foreignVideo = `https://${fh.host}/clip.mp4`;
    const own = sampleUrl(t.url, 'landscape.jpg');
    expect(t.url).toMatch(/^http:\/\//);
    const p = await preview({
      messageType: 'carousel',
      content: {
        cardContents: [
          { title: 'Pixel', description: 'An image on the assistant’s host', media: { height: 'MEDIUM', contentInfo: { fileUrl: foreignImage, contentType: 'image/png' } } },
          { title: 'Clip', description: 'A video there', media: { height: 'MEDIUM', contentInfo: { fileUrl: foreignVideo, contentType: 'video/mp4', thumbnailUrl: `https://${fh.host}/ok.jpg` } } },
          { title: 'Ours', description: 'A sample of this server', media: { height: 'MEDIUM', contentInfo: { fileUrl: own, contentType: 'image/jpeg' } } },
        ],
      },
    });
    for (const size of ['desktop', 'phone'] as const) {
      const before = fh.requests.length;
      const { page, requests, problems } = await open(size, p.url);
      // Every request of the page went to this server (the 'load' event waited for the images).
      expect(offOrigin(requests)).toEqual([]);
      const cards = page.locator('.carousel-card');
      // The foreign image goes through /preview/<slug>/media/<n>. The server's fetch fails here
      // (https:// to a plain-http host), so the image's alt text says so and names the host.
      const pixel = cards.nth(0).locator('.card-media img');
      expect(await pixel.getAttribute('src')).toMatch(new RegExp(`^/preview/${new URL(p.url).pathname.split('/').pop()}/media/\\d+$`));
      expect(await pixel.getAttribute('alt')).toContain(`could not be loaded from ${fh.host}`);
      await expect.poll(() => loaded(page, '.carousel-card:nth-child(1) .card-media img')).toEqual([false]);
      expect(await cards.nth(0).locator('[data-testid=media-url]').textContent()).toContain(foreignImage);
      // The video: no <video>, a placeholder naming the host, its URL as text.
      expect(await cards.nth(1).locator('video').count()).toBe(0);
      expect(await cards.nth(1).locator('.media-note').textContent()).toBe(`Media from ${fh.host} is not shown here`);
      expect(await cards.nth(1).locator('[data-testid=media-url]').textContent()).toContain(foreignVideo);
      // This server's sample: a same-origin path that loads on http://.
      expect(await cards.nth(2).locator('.card-media img').getAttribute('src')).toBe('/api/rcs/sandbox/samples/landscape.jpg');
      await expect.poll(() => loaded(page, '.carousel-card:nth-child(3) .card-media img')).toEqual([true]);
      await screenshot(page, `share-media-foreign-${size}`);
      expect(offOrigin(requests)).toEqual([]);
      // Nothing from the browser reached the foreign host.
      expect(fh.requests.slice(before).filter((r) => !r.userAgent.startsWith('rcs-preview-media/'))).toEqual([]);
      // The only failure is the refused image, answered by this server.
      expect(problems.filter((m) => !/^502 http:\/\/127\.0\.0\.1:\d+\/preview\/[^/]+\/media\/\d+$/.test(m))).toEqual([]);
      await page.context().close();
    }
  });

  it('shows an image the server could fetch, without the browser contacting its host', async () => {
    const p = await preview({
      messageType: 'richCard',
      content: { title: 'Fresh coffee', description: 'Through this server', media: { height: 'TALL', contentInfo: { fileUrl: `https://${fh.host}/ok.png`, contentType: 'image/png' } } },
    });
    // Media URLs must be HTTPS; the local foreign host speaks plain HTTP (allowed for the server's
    // fetches only under DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS): store the URL as http://.
    const row = await t.ctx.db.selectFrom('previews').selectAll().where('id', '=', p.id).executeTakeFirstOrThrow();
    const swap = (s: string) => s.split(`https://${fh.host}`).join(fh.origin);
    await t.ctx.db.updateTable('previews').set({ payload: swap(row.payload), estimate: swap(row.estimate) }).where('id', '=', p.id).execute();

    for (const size of ['desktop', 'phone'] as const) {
      const before = fh.requests.length;
      const { page, requests, problems } = await open(size, p.url);
      await expect.poll(() => loaded(page, '.card-media img')).toEqual([true]);
      expect(await page.locator('[data-testid=media-url]').textContent()).toContain(`${fh.origin}/ok.png`);
      await screenshot(page, `share-media-proxied-${size}`);
      expect(offOrigin(requests)).toEqual([]);
      expect(problems).toEqual([]);
      // Fetched by the server at most once (then from its memory), never by the browser.
      expect(fh.requests.slice(before).every((r) => r.userAgent.startsWith('rcs-preview-media/'))).toBe(true);
      expect(fh.requests.slice(before).length).toBeLessThanOrEqual(1);
      await page.context().close();
    }
  });
});
