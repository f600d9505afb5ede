import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { seriousAxeViolations } from './axe.js';
import { expectNoSidewaysScroll, launchBrowser, loggedInState, screenshot, watchConsole, type SessionState } from './helpers.js';

/**
 * The console's consent reviews (issue #42): replies that may be a request to stop wait on the Consent page, written as
 * received (escaped: a reply is text from a stranger), with why and what was cancelled; a person confirms the opt-out or
 * releases the number. At 1280 and 390 px: nothing scrolls sideways, no serious or critical axe-core violation.
 */
let t: TestServer;
let acc: TestAccount;
let browser: Browser;
let state: SessionState;
const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
const phone = (i: number) => `+4915190002${String(i).padStart(3, '0')}`;
const reply = (from: string, text: string) => (t.ctx.carriers as unknown as { userReply(i: object): Promise<void> }).userReply({ from, senderId: acc.senders.rcs, channel: 'RCS', text });

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount({ name: 'Review Browser Co' });
  for (let i = 0; i < 4; i++) {
    expect((await t.api('POST', '/api/rcs/send', { phoneNumber: phone(i), messageType: 'text', content: { text: 'Our spring offer' }, sendernameId: acc.senders.rcs, scheduleAt: new Date(Date.now() + 86_400_000).toISOString() }, { key: acc.apiKey })).status).toBe(200);
  }
  await reply(phone(0), 'Stop? I want these messages, they are great');
  await reply(phone(1), 'wrong number — who is this? <script>alert(1)</script> https://evil.example/x');
  await reply(phone(2), 'Stopp! Ich will mehr Nachrichten');
  await reply(phone(3), 'I had to stop at the bus stop and wait for an hour and then another hour before the bus came, '.repeat(3));
  browser = await launchBrowser();
  state = await loggedInState(browser, t.url, acc);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function open(size: keyof typeof SIZES): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: SIZES[size], storageState: state });
  const page = await context.newPage();
  const { problems } = watchConsole(page);
  await page.goto(`${t.url}/console/consent`);
  return { page, problems };
}

describe('console: consent reviews', () => {
  for (const size of ['desktop', 'phone'] as const) {
    it(`lists the replies that wait, as received, with no sideways scroll (${size})`, async () => {
      const { page, problems } = await open(size);
      const items = page.locator('.review-list > li');
      expect(await items.count()).toBe(4);
      const all = (await page.locator('.review-list').textContent()) ?? '';
      expect(all).toContain('Stop? I want these messages');
      expect(all).toContain('<script>alert(1)</script>');
      expect(all).toContain('Stopp! Ich will mehr Nachrichten');
      expect(all).toContain('queued marketing message was cancelled');
      expect(await page.locator('script').count()).toBe(0);
      await expectNoSidewaysScroll(page);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, `consent-reviews-${size}`);
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }

  it('confirming opts the number out; releasing lets marketing go again', async () => {
    const { page } = await open('desktop');
    const first = page.locator('.review-list > li', { hasText: 'Stopp! Ich will' });
    await first.locator('button:has-text("Confirm opt-out")').click();
    await expect.poll(() => page.textContent('.consent-standing h2')).toBe(phone(2));
    expect(await page.textContent('.consent-facts')).toContain('Opted out since');
    expect(await page.locator('.review-list > li').count()).toBe(3);

    const second = page.locator('.review-list > li', { hasText: 'Stop? I want these' });
    await second.locator('button:has-text("Release number")').click();
    await expect.poll(() => page.textContent('.consent-standing h2')).toBe(phone(0));
    expect(await page.textContent('.consent-facts')).toContain('Not opted out');
    expect(await page.locator('.review-list > li').count()).toBe(2);
    const send = await t.api('POST', '/api/rcs/send', { phoneNumber: phone(0), messageType: 'text', content: { text: 'Hi' }, sendernameId: acc.senders.rcs }, { key: acc.apiKey });
    expect(send.status).toBe(200);
    const refused = await t.api('POST', '/api/rcs/send', { phoneNumber: phone(1), messageType: 'text', content: { text: 'Hi' }, sendernameId: acc.senders.rcs }, { key: acc.apiKey });
    expect(refused.body.error.code).toBe('CONSENT_UNDER_REVIEW');
    await page.context().close();
  });
});
