import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../api/messaging/util.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { seriousAxeViolations } from './axe.js';
import { expectNoSidewaysScroll, launchBrowser, loggedInState, screenshot, tempScreenshotDir, watchConsole, type SessionState } from './helpers.js';

/**
 * /phone on a phone (issue #30): with many numbers, a selected conversation is on the first
 * screen at 390 px (the list behind "All numbers"), the numbers can be searched without script,
 * and 1280 px keeps the list beside the conversation. axe-core finds nothing serious or critical.
 */
let t: TestServer;
let browser: Browser;
let session: SessionState;
let shots: string;

const NUMBERS = Array.from({ length: 60 }, (_, i) => `+49151${String(31_000_000 + i * 10).padStart(8, '0')}`);
const ANNA = NUMBERS[0]!;

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  session = await loggedInState(browser, t.url, t.account);
  shots = tempScreenshotDir('phone');
  expect((await t.api('POST', '/api/v1/contacts', { phone: ANNA, firstName: 'Anna', lastName: 'Berger' })).status).toBe(201);
  const batch = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: NUMBERS.slice(1), messageType: 'text', content: { text: 'Batch' }, sendernameId: t.account.senders.rcs });
  expect(batch.status).toBe(202);
  // Anna's message last, so she is the first of a long list.
  const sims = async () => Number((await t.ctx.db.selectFrom('sim_messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  await waitFor(sims, { timeoutMs: 20_000, until: (n) => n === NUMBERS.length - 1, what: 'the batch at the simulated network' });
  const sent = await t.api('POST', '/api/rcs/send', {
    phoneNumber: ANNA,
    messageType: 'text',
    content: { text: 'Your table for two is booked for 8 pm.', suggestions: [{ reply: { text: 'Thanks', postbackData: 'thanks' } }] },
    sendernameId: t.account.senders.rcs,
  });
  expect(sent.status).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function open(width: number, path: string): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width, height: width < 500 ? 844 : 900 }, storageState: session });
  const page = await context.newPage();
  const { problems } = watchConsole(page);
  const res = await page.goto(`${t.url}${path}`);
  expect(res?.status()).toBe(200);
  return { page, problems, close: () => context.close() };
}

/** The element's top edge and height, in page pixels. */
const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;

describe('/phone at 390 px', () => {
  it('a selected conversation comes first: the list is behind "All numbers", the reply box is reachable', async () => {
    const { page, problems, close } = await open(390, `/phone?number=${encodeURIComponent(NUMBERS[30]!)}`);
    await screenshot(page, 'phone-390-selected', shots);
    expect(await page.locator('.vp-numbers').isVisible()).toBe(false);
    expect(await page.locator('.vp-back').isVisible()).toBe(true);
    // The conversation starts on the first screen, not under 60 numbers.
    expect((await box(page, '.vp-current')).y).toBeLessThan(844);
    expect((await box(page, '.vp-phone .phone-header')).y).toBeLessThan(844);
    const compose = page.locator('.vp-compose input[name=text]');
    await compose.scrollIntoViewIfNeeded();
    expect(await compose.isVisible()).toBe(true);
    await expectNoSidewaysScroll(page);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await close();
  });

  it('the list, searched by name and by digits through the form; a number opens with the search kept on the way back', async () => {
    const { page, problems, close } = await open(390, `/phone?number=${encodeURIComponent(ANNA)}`);
    await Promise.all([page.waitForURL((u) => u.pathname === '/phone' && !u.searchParams.has('number')), page.click('.vp-back')]);
    expect(await page.locator('.vp-numbers').isVisible()).toBe(true);
    expect(await page.locator('.vp-pick').isVisible()).toBe(false);
    // The search box is on the first screen, above the long list.
    expect((await box(page, '#vp-q')).y).toBeLessThan(844);
    expect(await page.locator('.vp-number').count()).toBe(NUMBERS.length);
    await screenshot(page, 'phone-390-list', shots);
    await expectNoSidewaysScroll(page);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.fill('#vp-q', 'anna b');
    await Promise.all([page.waitForURL((u) => u.searchParams.get('q') === 'anna b'), page.click('.vp-search button')]);
    expect(await page.locator('.vp-number-phone').allTextContents()).toEqual([ANNA]);
    expect(await page.textContent('.vp-number-name')).toBe('Anna Berger');
    await screenshot(page, 'phone-390-search-name', shots);
    expect(await seriousAxeViolations(page)).toEqual([]);

    const digits = NUMBERS[42]!.slice(-6);
    await page.fill('#vp-q', `${digits.slice(0, 3)} ${digits.slice(3)}`);
    await Promise.all([page.waitForURL((u) => u.searchParams.has('q') && u.searchParams.get('q') !== 'anna b'), page.click('.vp-search button')]);
    expect(await page.locator('.vp-number-phone').allTextContents()).toEqual([NUMBERS[42]]);
    await Promise.all([page.waitForURL((u) => u.searchParams.get('number') === NUMBERS[42]), page.click('.vp-number')]);
    expect(await page.textContent('.vp-current')).toContain(NUMBERS[42]);
    expect(new URL(await page.locator('.vp-back').getAttribute('href') ?? '', t.url).searchParams.get('q')).toBe(`${digits.slice(0, 3)} ${digits.slice(3)}`);

    // A search the page cannot run: said on the page, every number still listed.
    await page.goto(`${t.url}/phone?q=${encodeURIComponent('100%')}`);
    expect(await page.textContent('.error')).toContain('Search by digits');
    expect(await page.locator('.vp-number').count()).toBe(NUMBERS.length);
    await screenshot(page, 'phone-390-search-refused', shots);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems.filter((p) => !p.startsWith('400 '))).toEqual([]);
    await close();
  });
});

describe('/phone at 1280 px', () => {
  it('keeps the list with its search beside the selected conversation', async () => {
    const { page, problems, close } = await open(1280, `/phone?number=${encodeURIComponent(ANNA)}&q=anna`);
    await screenshot(page, 'phone-1280-selected', shots);
    expect(await page.locator('.vp-back').isVisible()).toBe(false);
    const nav = await box(page, '.vp-numbers');
    const main = await box(page, '.vp-main');
    expect(nav.x + nav.width).toBeLessThanOrEqual(main.x);
    expect(Math.abs(nav.y - main.y)).toBeLessThan(2);
    expect(await page.locator('.vp-number.active').textContent()).toContain(ANNA);
    expect(await page.textContent('.vp-found')).toContain('1 number matches “anna”');
    await expectNoSidewaysScroll(page);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await close();
  });
});
