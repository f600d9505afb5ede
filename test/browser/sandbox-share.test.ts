import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES_PATH } from '../../src/sandbox/samples.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
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

const sample = (file: string) => `https://${new URL(t.url).host}${SAMPLES_PATH}/${file}`;

async function createPreview(body: unknown): Promise<string> {
  const r = await t.api('POST', '/api/rcs/sandbox/preview', body, { key: null });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.preview.share_url as string;
}

async function open(url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const { problems } = watchConsole(page);
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  const res = await page.goto(url, { waitUntil: 'load' });
  expect(res?.status()).toBe(200);
  return { page, problems };
}

describe('sandbox share page', () => {
  it('shows a carousel with chips; the second card is reached by scrolling sideways', async () => {
    const url = await createPreview({
      messageType: 'carousel',
      content: {
        cardContents: [
          {
            title: 'Lake cruise',
            description: 'Two hours at dusk, {{contact_first_name}}.',
            media: { height: 'MEDIUM', contentInfo: { fileUrl: sample('landscape.jpg'), contentType: 'image/jpeg' } },
            cardActions: [{ text: 'Book', type: 'openUrl', openUrlAction: { url: 'https://example.com/book' } }],
          },
          {
            title: 'City lights',
            description: 'Night walk downtown.',
            media: { height: 'MEDIUM', contentInfo: { fileUrl: sample('skyline.jpg'), contentType: 'image/jpeg' } },
            cardActions: [{ text: 'Choose', type: 'postback', postbackData: 'city' }],
          },
          {
            title: 'Coffee <script>alert(1)</script>',
            description: '<img src=x onerror=alert(2)> stays text',
            media: { height: 'MEDIUM', contentInfo: { fileUrl: sample('coffee.png'), contentType: 'image/png' } },
            cardActions: [{ text: 'Directions', type: 'viewLocation', viewLocationAction: { latLong: { latitude: 52.52, longitude: 13.405 }, label: 'Café' } }],
          },
        ],
        suggestions: [
          { reply: { text: 'Yes please', postbackData: 'yes' } },
          { action: { text: 'Call us', type: 'dial', dialAction: { phoneNumber: '+15550100' } } },
          { action: { text: 'Website', type: 'openUrl', openUrlAction: { url: 'https://example.com' } } },
          { action: { text: 'Unsubscribe', type: 'unsubscribe', unsubscribeAction: {} } },
        ],
      },
    });
    const { page, problems } = await open(url);

    const carousel = page.locator('.carousel');
    const cards = carousel.locator('.carousel-card');
    await expect.poll(() => cards.count()).toBe(3);
    expect(await page.locator('.card-title', { hasText: 'Lake cruise' }).isVisible()).toBe(true);
    expect(await page.locator('.card-description', { hasText: 'Two hours at dusk, Alex.' }).isVisible()).toBe(true);
    // The chip row scrolls sideways too: every chip is there and can be brought into view.
    const chipRow = (await page.locator('.chips').boundingBox())!;
    for (const chip of ['Yes please', 'Call us', 'Website', 'Unsubscribe']) {
      const el = page.locator('.chip', { hasText: chip });
      await el.scrollIntoViewIfNeeded();
      const b = (await el.boundingBox())!;
      expect(b.x >= chipRow.x - 1 && b.x + b.width <= chipRow.x + chipRow.width + 1, chip).toBe(true);
    }
    await page.evaluate(() => document.querySelector('.chips')!.scrollTo({ left: 0, behavior: 'instant' }));
    expect(await page.locator('.chip', { hasText: 'Yes please' }).isVisible()).toBe(true);
    // Chips and buttons carry an icon per action type (reply chips none).
    expect(await page.locator('.chip[data-action-type="dial"] svg').count()).toBe(1);
    expect(await page.locator('.card-action[data-action-type="viewLocation"] svg').count()).toBe(1);

    // Sample images load from this server.
    await expect
      .poll(() => page.$$eval('.carousel img', (imgs) => imgs.map((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0)), { timeout: 5000 })
      .toEqual([true, true, true]);

    const box = (await carousel.boundingBox())!;
    const fullyInside = async (i: number) => {
      const b = (await cards.nth(i).boundingBox())!;
      return b.x >= box.x - 1 && b.x + b.width <= box.x + box.width + 1;
    };
    expect(await fullyInside(0)).toBe(true);
    expect(await fullyInside(1)).toBe(false); // only peeking
    expect(await page.evaluate(() => {
      const c = document.querySelector('.carousel')!;
      return c.scrollWidth > c.clientWidth;
    })).toBe(true);
    await screenshot(page, 'sandbox-carousel');

    // A person swipes / scrolls sideways over the carousel: it snaps to the second card.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(200, 0);
    // Wait until scrolling (and snapping) has come to rest.
    let last = -1;
    await expect
      .poll(
        async () => {
          const now = await page.evaluate(() => document.querySelector('.carousel')!.scrollLeft);
          const settled = now === last;
          last = now;
          return settled && (await fullyInside(1));
        },
        { timeout: 5000, interval: 150 },
      )
      .toBe(true);
    // Snapped: the second card starts where the first one did.
    const second = (await cards.nth(1).boundingBox())!;
    expect(Math.abs(second.x - box.x)).toBeLessThanOrEqual(2);
    expect(await page.locator('.card-title', { hasText: 'City lights' }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.querySelector('.carousel')!.scrollLeft)).toBeGreaterThan(0);
    await screenshot(page, 'sandbox-carousel-scrolled');

    // Markup in content is text, never markup; no script ran, nothing broke the CSP.
    await cards.nth(2).scrollIntoViewIfNeeded();
    expect(await page.locator('.card-title', { hasText: 'Coffee <script>alert(1)</script>' }).count()).toBe(1);
    expect(await page.locator('.card-description', { hasText: '<img src=x onerror=alert(2)> stays text' }).count()).toBe(1);
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('text=Expires').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows foreign media as a placeholder naming its host, the SMS fallback and the warnings', async () => {
    const url = await createPreview({
      messageType: 'richCard',
      content: {
        title: 'Spring sale',
        description: 'Hi {{contact_first_name}}, 20% off this week.',
        cardOrientation: 'HORIZONTAL',
        imageAlignment: 'LEFT',
        media: { contentInfo: { fileUrl: 'https://cdn.example.org/private/sale.jpg' } },
        cardActions: [{ text: 'Shop now', type: 'openUrl', openUrlAction: { url: 'https://example.com/sale' } }],
        suggestions: [{ action: { text: 'Add to calendar', type: 'createCalendarEvent', createCalendarEventAction: { startTime: '2026-04-01T09:00:00Z', endTime: '2026-04-01T10:00:00Z', title: 'Sale' } } }],
      },
      smsFallback: { message: 'Hi {{contact_first_name}}, 20% off this week 🎉', sendernameId: 'ignored' },
    });
    const { page, problems } = await open(url);
    expect(await page.locator('.media-note', { hasText: 'Media from cdn.example.org is not shown here' }).isVisible()).toBe(true);
    expect(await page.locator('.bubble-sms', { hasText: 'Hi Alex, 20% off this week 🎉' }).isVisible()).toBe(true);
    expect(await page.locator('.issue-code', { hasText: 'media_height_missing' }).isVisible()).toBe(true);
    expect(await page.locator('.facts dd', { hasText: 'Unicode' }).first().isVisible()).toBe(true);
    expect(await page.content()).not.toContain('private/sale.jpg');
    expect(problems).toEqual([]);
    await screenshot(page, 'sandbox-richcard-fallback');
    await page.close();
  });

  it('shows a video with its poster and a file tile, and a 404 page for an unknown slug', async () => {
    const url = await createPreview({
      messageType: 'video',
      content: { media: { height: 'MEDIUM', contentInfo: { fileUrl: sample('sunset.mp4'), contentType: 'video/mp4', thumbnailUrl: sample('sunset-poster.jpg') } }, caption: 'Four seconds of sunset.' },
    });
    const { page, problems } = await open(url);
    const video = page.locator('video');
    expect(await video.count()).toBe(1);
    expect(await video.getAttribute('poster')).toBe(`${SAMPLES_PATH}/sunset-poster.jpg`);
    await screenshot(page, 'sandbox-video');
    // The MP4 really decodes in Chromium.
    const duration = await video.evaluate(
      (v: HTMLVideoElement) =>
        new Promise<number>((resolve) => {
          v.addEventListener('loadedmetadata', () => resolve(v.duration), { once: true });
          v.addEventListener('error', () => resolve(-1), { once: true });
          v.preload = 'metadata';
          v.load();
        }),
    );
    expect(duration).toBeGreaterThan(3);
    expect(problems).toEqual([]);
    await page.close();

    const file = await createPreview({ messageType: 'file', content: { url: sample('brochure.pdf') } });
    const p2 = await open(file);
    expect(await p2.page.locator('.tile-name', { hasText: 'brochure.pdf' }).isVisible()).toBe(true);
    await p2.page.close();

    const missing = await browser.newPage();
    const res = await missing.goto(`${t.url}/sandbox/p/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    expect(res?.status()).toBe(404);
    expect(await missing.locator('text=not found or expired').isVisible()).toBe(true);
    await missing.close();
  });

  it('renders the usage example of every message type from /sandbox/samples without a broken resource', async () => {
    const samples = await t.api('GET', '/api/rcs/sandbox/samples', undefined, { key: null });
    expect(samples.status).toBe(200);
    for (const [type, usage] of Object.entries<{ example: unknown }>(samples.body.usage)) {
      const { page, problems } = await open(await createPreview(usage.example));
      expect(await page.locator(`.msg-${type}`).count(), type).toBe(1);
      // Images are loading="lazy": wait until each has loaded (or failed) before judging.
      await expect.poll(() => page.$$eval('img', (imgs) => imgs.every((i) => (i).complete)), { timeout: 5000 }).toBe(true);
      const broken = await page.$$eval('img', (imgs) => imgs.filter((i) => (i).naturalWidth === 0).map((i) => (i).src));
      expect(broken, type).toEqual([]);
      expect(problems, type).toEqual([]);
      await screenshot(page, `sandbox-usage-${type}`);
      await page.close();
    }
  });
});
