import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { body, mcpClient } from '../mcp/helpers.js';
import { launchBrowser, screenshot, watchConsole, loggedInState, type SessionState, expectNoSidewaysScroll } from './helpers.js';

/**
 * The share page shows what each recipient gets: merged messages per recipient, link targets and
 * numbers as text, warnings, and the decision above the fold on a desktop and on a phone.
 */

let t: TestServer;
let browser: Browser;
let storageState: SessionState;

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
type Size = keyof typeof SIZES;

const PHONES = ['+4915112350001', '+4915112350002', '+4915112350003', '+4915112350004', '+4915112350005', '+4915112350006', '+4915112350007'];

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  const names = ['Anna', 'Ben', 'Clara', 'Dora', 'Emil', 'Fritz', 'Greta'];
  for (const [i, phone] of PHONES.entries()) await t.ctx.services.contacts.create(t.account.accountId, { phone, firstName: names[i]! });
  // Log in once (a TOTP code is accepted once) and reuse the session at every size.
  storageState = await loggedInState(browser, t.url, t.account);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function open(size: Size, url: string): Promise<{ page: Page; status: number; problems: string[] }> {
  const context = await browser.newContext({ viewport: SIZES[size], storageState });
  const page = await context.newPage();
  const console = watchConsole(page);
  const res = await page.goto(url);
  return { page, status: res?.status() ?? 0, problems: console.problems };
}

async function close(page: Page): Promise<void> {
  await page.context().close();
}

async function rcsPreview(args: Record<string, unknown>, apiKey = t.account.apiKey): Promise<{ shareUrl: string; previewId: string; payload: Record<string, unknown> }> {
  const c = await mcpClient(t.url, apiKey);
  const r = await c.callTool({ name: 'rcs_preview', arguments: args });
  await c.close();
  const b = body(r);
  expect(b.error).toBeUndefined();
  return { shareUrl: b.share_url, previewId: b.preview_id, payload: b.payload };
}

/** A rich card with merge fields, a link button, a dial button, a calendar chip and a location chip, to 7 people. */
const cardPayload = () => ({
  phoneNumbers: PHONES,
  messageType: 'richCard',
  sendernameId: t.account.senders.rcs,
  content: {
    title: 'Hello {{contact_first_name}}!',
    description: 'Big news for you, {{contact_first_name}}.',
    media: { height: 'MEDIUM', contentInfo: { fileUrl: 'https://media.example.com/promo.jpg', contentType: 'image/jpeg' } },
    cardActions: [
      { type: 'openUrl', text: 'See offer', openUrlAction: { url: 'https://shop.example.com/offer?src=rcs' } },
      { type: 'dial', text: 'Call us', dialAction: { phoneNumber: '+4930123456789' } },
    ],
  },
  smsFallback: { message: 'Hi {{contact_first_name}}, see https://shop.example.com/offer', sendernameId: t.account.senders.sms },
});

const withChips = () => {
  const p = cardPayload();
  return {
    ...p,
    content: {
      ...p.content,
      suggestions: [
        { action: { type: 'createCalendarEvent', text: 'Save the date', createCalendarEventAction: { title: 'Launch party', description: 'Bring friends', startTime: '2030-05-01T18:00:00Z', endTime: '2030-05-01T21:00:00Z' } } },
        { action: { type: 'viewLocation', text: 'Find us', viewLocationAction: { label: 'Main Street 1', latLong: { latitude: 52.52, longitude: 13.405 } } } },
        { reply: { text: 'Stop', postbackData: 'stop' } },
      ],
    },
  };
};

async function expectAboveFold(page: Page, size: Size): Promise<void> {
  for (const id of ['approve', 'reject', 'recipient-count', 'cost']) {
    const box = await page.locator(`[data-testid=${id}]`).boundingBox();
    expect(box, id).not.toBeNull();
    expect(box!.y + box!.height, `${id} at ${size}`).toBeLessThanOrEqual(SIZES[size].height);
    expect(box!.x + box!.width, `${id} at ${size}`).toBeLessThanOrEqual(SIZES[size].width);
  }
}

describe('the share page shows what each recipient gets', () => {
  for (const size of ['desktop', 'phone'] as const) {
    it(`shows the first recipient's merged message, switches recipients, spells out targets (${size})`, async () => {
      const p = await rcsPreview(withChips());
      const { page, status, problems } = await open(size, p.shareUrl);
      expect(status).toBe(200);
      const mockup = page.locator('[data-testid=mockup]');
      // The first recipient's merged message, not the placeholder.
      expect(await mockup.textContent()).toContain('Hello Anna!');
      expect(await mockup.textContent()).toContain('Big news for you, Anna.');
      expect(await mockup.textContent()).toContain('Hi Anna, see https://shop.example.com/offer');
      expect(await mockup.textContent()).not.toContain('{{');
      expect(await page.locator('[data-testid=sample-current]').textContent()).toContain('+4915112350001');
      // Five samples, the rest counted.
      expect(await page.locator('[data-testid=sample-link]').count()).toBe(5);
      expect(await page.locator('.recipient-switch').textContent()).toContain('and 2 more');
      // Targets as visible text beside their buttons and chips.
      const link = page.locator('.card-action[data-action-type=openUrl] [data-testid=action-target]');
      expect(await link.textContent()).toBe('https://shop.example.com/offer?src=rcs');
      expect(await link.isVisible()).toBe(true);
      const dial = page.locator('.card-action[data-action-type=dial] [data-testid=action-target]');
      expect(await dial.textContent()).toContain('+4930123456789');
      expect(await dial.isVisible()).toBe(true);
      const cal = await page.locator('.chip[data-action-type=createCalendarEvent] [data-testid=action-target]').textContent();
      expect(cal).toContain('Launch party');
      expect(cal).toContain('2030-05-01 18:00');
      expect(await page.locator('.chip[data-action-type=viewLocation] [data-testid=action-target]').textContent()).toContain('52.52, 13.405');
      // The media URL as text, and an image that cannot load says so in its alt text.
      expect(await page.locator('[data-testid=media-url]').textContent()).toContain('https://media.example.com/promo.jpg');
      expect(await page.locator('.card-media img').getAttribute('alt')).toMatch(/could not be loaded from media\.example\.com/);
      await screenshot(page, `approval-page-first-${size}`);
      await expectAboveFold(page, size);
      await expectNoSidewaysScroll(page);
      expect(await page.locator('script').count()).toBe(0);

      await page.locator('[data-testid=sample-link]').nth(1).click();
      await page.waitForURL((u) => u.search === '?r=2');
      expect(await mockup.textContent()).toContain('Hello Ben!');
      expect(await mockup.textContent()).toContain('Hi Ben, see');
      expect(await mockup.textContent()).not.toContain('Anna');
      expect(await page.locator('[data-testid=sample-current]').textContent()).toContain('+4915112350002');
      expect(await page.locator('[data-testid=sample-link][aria-current=page]').textContent()).toBe('+4915112350002');
      await screenshot(page, `approval-page-second-${size}`);
      // Out of range falls back to a real sample, never an error.
      await page.goto(`${p.shareUrl}?r=99`);
      expect(await page.locator('[data-testid=sample-current]').textContent()).toContain('+4915112350005');
      // The server's fetch of the image fails (tests resolve no public name) and the page shows
      // the alt text; nothing else may fail, and nothing is asked of media.example.com by the page.
      expect(problems.filter((m) => !/^502 http:\/\/127\.0\.0\.1:\d+\/preview\/[^/]+\/media\/\d+$/.test(m))).toEqual([]);
      await close(page);
    });
  }

  it('lists the preview warnings prominently', async () => {
    const p = await rcsPreview({ ...cardPayload(), content: { ...cardPayload().content, description: 'Code {{no_such_field}}' } });
    const { page } = await open('desktop', p.shareUrl);
    const warnings = page.locator('[data-testid=warnings]');
    expect(await warnings.isVisible()).toBe(true);
    expect(await warnings.textContent()).toContain('unknown_merge_field');
    expect(await warnings.textContent()).toContain('no_such_field');
    expect(await page.locator('.decision .warn-link').getAttribute('href')).toBe('#warnings');
    // The warnings come before the mockup.
    const w = await warnings.boundingBox();
    const m = await page.locator('[data-testid=mockup]').boundingBox();
    expect(w!.y).toBeLessThan(m!.y);
    await screenshot(page, 'approval-page-warnings-desktop');
    await close(page);
  });

  it('flags the mockup when the warnings report empty merge values', async () => {
    // The warning itself comes from the preview service (see approval-warnings.test.ts); here the
    // stored list is set directly so the page's part is checked on its own.
    const p = await rcsPreview(cardPayload());
    const warning = { path: 'content.title', code: 'empty_merge_value', message: '{{contact_first_name}} is empty for 2 of 7 recipients.' };
    await t.ctx.db.updateTable('previews').set({ warnings: JSON.stringify([warning]) }).where('id', '=', p.previewId).execute();
    const { page } = await open('phone', p.shareUrl);
    expect(await page.locator('[data-testid=merge-alert]').textContent()).toContain('{{contact_first_name}} is empty for 2 of 7 recipients.');
    expect(await page.locator('[data-testid=mockup].flagged').count()).toBe(1);
    expect(await page.locator('[data-testid=warnings] [data-warning-code=empty_merge_value]').count()).toBe(1);
    await expectAboveFold(page, 'phone');
    await screenshot(page, 'approval-page-empty-merge-phone');
    await close(page);
    const plain = await rcsPreview(cardPayload());
    const { page: other } = await open('phone', plain.shareUrl);
    expect(await other.locator('[data-testid=merge-alert]').count()).toBe(0);
    expect(await other.locator('[data-testid=mockup].flagged').count()).toBe(0);
    await close(other);
  });

  it('shows an SMS preview merged for its recipient', async () => {
    const c = await mcpClient(t.url, t.account.apiKey);
    const r = body(await c.callTool({ name: 'sms_preview', arguments: { phoneNumber: PHONES[0], sendernameId: t.account.senders.sms, message: 'Hi {{contact_first_name}}, sale today 😀' } }));
    await c.close();
    for (const size of ['desktop', 'phone'] as const) {
      const { page } = await open(size, r.share_url);
      expect(await page.locator('[data-testid=mockup]').textContent()).toContain('Hi Anna, sale today');
      expect(await page.locator('[data-testid=warnings]').textContent()).toContain('sms_unicode');
      await screenshot(page, `approval-page-sms-${size}`);
      await expectAboveFold(page, size);
      await expectNoSidewaysScroll(page);
      await close(page);
    }
  });

  it('shows the final state of a sent or rejected preview instead of an expiry', async () => {
    const { phoneNumbers: _all, ...single } = cardPayload();
    const p = await rcsPreview({ ...single, phoneNumber: PHONES[0] });
    for (const size of ['desktop', 'phone'] as const) {
      const { page } = await open(size, p.shareUrl);
      expect(await page.locator('[data-testid=expires]').count()).toBe(1);
      await screenshot(page, `approval-page-pending-${size}`);
      await close(page);
    }
    const { page } = await open('desktop', p.shareUrl);
    await page.click('[data-testid=reject]');
    await expect.poll(() => page.locator('[data-testid=preview-status]').textContent()).toContain('Rejected');
    expect(await page.locator('[data-testid=expires]').count()).toBe(0);
    expect(await page.content()).not.toMatch(/Decide before|expires/i);
    await screenshot(page, 'approval-page-rejected-desktop');
    await page.click('[data-testid=approve]');
    await expect.poll(() => page.locator('[data-testid=preview-status]').textContent()).toContain('Approved');
    await close(page);

    const c = await mcpClient(t.url, t.account.apiKey);
    const sent = body(await c.callTool({ name: 'rcs_send', arguments: { preview_id: p.previewId, payload: p.payload } }));
    await c.close();
    expect(sent.error).toBeUndefined();
    for (const size of ['desktop', 'phone'] as const) {
      const { page } = await open(size, p.shareUrl);
      expect(await page.locator('[data-testid=preview-status]').textContent()).toContain('Sent');
      expect(await page.locator('[data-testid=expires]').count()).toBe(0);
      expect(await page.locator('[data-testid=approve]').count()).toBe(0);
      expect(await page.locator('main').textContent()).not.toMatch(/expire/i);
      await screenshot(page, `approval-page-sent-${size}`);
      await close(page);
    }
  });

  it('says an expired preview expired and what to do', async () => {
    const p = await rcsPreview({ ...cardPayload(), phoneNumbers: [PHONES[1]] });
    await t.ctx.db.updateTable('previews').set({ expires_at: Date.now() - 1000 }).where('id', '=', p.previewId).execute();
    for (const size of ['desktop', 'phone'] as const) {
      const { page } = await open(size, p.shareUrl);
      const state = await page.locator('[data-testid=preview-status]').textContent();
      expect(state).toMatch(/Expired/);
      expect(state).toContain('Ask the assistant to preview the message again');
      expect(await page.locator('[data-testid=approve]').count()).toBe(0);
      await screenshot(page, `approval-page-expired-${size}`);
      await close(page);
    }
  });

  it('answers an unknown or foreign link with the styled 404 page, the same for both', async () => {
    const other = await t.createAccount();
    const foreign = await rcsPreview({ ...cardPayload(), phoneNumbers: ['+4915112359999'], sendernameId: other.senders.rcs, smsFallback: undefined }, other.apiKey);
    const unknown = `${t.url}/preview/AAAAAAAAAAAAAAAAAAAAAAAA`;
    const texts: string[] = [];
    for (const [name, url] of [
      ['foreign', foreign.shareUrl],
      ['unknown', unknown],
      ['malformed', `${t.url}/preview/x`],
    ] as const) {
      for (const size of ['desktop', 'phone'] as const) {
        const { page, status } = await open(size, url);
        expect(status, name).toBe(404);
        expect(await page.locator('header.topbar .brand').count()).toBe(1);
        expect(await page.locator('link[rel=stylesheet][href="/assets/app.css"]').count()).toBe(1);
        const text = (await page.locator('main').textContent())!;
        expect(text).toContain('Preview not found');
        expect(text).toContain('ask the assistant to preview the message again');
        expect(text).toContain('log in with the account that owns it');
        texts.push(text);
        if (name !== 'malformed') await screenshot(page, `approval-page-missing-${name}-${size}`);
        await close(page);
      }
    }
    expect(new Set(texts).size).toBe(1);
    expect(await t.ctx.db.selectFrom('previews').select('status').where('id', '=', foreign.previewId).executeTakeFirstOrThrow()).toEqual({ status: 'pending' });
  });
});
