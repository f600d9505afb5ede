import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { totpCode } from '../helpers/web-client.js';
import { launchBrowser, screenshot, watchConsole } from './helpers.js';

let t: TestServer;
let browser: Browser;
let page: Page;
let problems: string[];

const PHONE = '+4915123450002';

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  page = await context.newPage();
  ({ problems } = watchConsole(page));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the virtual phone in a browser', () => {
  it('log in, a message arrives, a chip is tapped, the interaction is in the API; a reply and STOP', async () => {
    // Log in through the forms: password, then the TOTP code.
    await page.goto(`${t.url}/phone`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name=email]', t.account.email);
    await page.fill('input[name=password]', t.account.password);
    await Promise.all([page.waitForURL(/\/login\/totp/), page.click('button[type=submit]')]);
    await page.fill('input[name=code]', totpCode(t.account.totpSecret, Date.now()));
    await Promise.all([page.waitForURL(/\/phone$/), page.click('main button[type=submit]')]);
    await expect.poll(() => page.textContent('h1')).toBe('Virtual phone');
    expect(await page.textContent('.vp-numbers')).toContain('No number has received');

    // A message with chips and a card arrives.
    const sent = await t.api('POST', '/api/rcs/send', {
      phoneNumber: PHONE,
      messageType: 'richCard',
      sendernameId: t.account.senders.rcs,
      campaignName: 'tasting',
      content: {
        title: 'Wine tasting on Friday',
        description: 'Six wines, cheese, 25 €. Shall we save you a seat?',
        cardActions: [{ type: 'postback', text: 'Details', postbackData: 'tasting_details' }],
        suggestions: [
          { reply: { text: 'Yes, book me', postbackData: 'tasting_yes' } },
          { reply: { text: 'Not this time', postbackData: 'tasting_no' } },
          { action: { type: 'dial', text: 'Call us', dialAction: { phoneNumber: '+4930123456' } } },
        ],
      },
      smsFallback: { message: 'Wine tasting Friday, reply YES to book', sendernameId: t.account.senders.sms },
    });
    expect(sent.status).toBe(200);
    await page.goto(`${t.url}/phone`);
    await page.click(`a.vp-number:has-text("${PHONE}")`);
    await expect.poll(() => page.textContent('.vp-current')).toContain(PHONE);
    expect(await page.textContent('.phone-thread')).toContain('Wine tasting on Friday');
    await screenshot(page, 'engagement-phone-1-received');

    // Tap a chip: a form POST, then back on the phone.
    await Promise.all([page.waitForURL(/\/phone\?number=/), page.click('button.chip:has-text("Yes, book me")')]);
    await expect.poll(() => page.textContent('.vp-tap')).toContain('Yes, book me');
    const list = await t.api('GET', `/api/rcs/interactions?phone=${encodeURIComponent(PHONE)}`);
    expect(list.body.data).toEqual([
      expect.objectContaining({ type: 'button_click', actionType: 'reply', buttonText: 'Yes, book me', postbackData: 'tasting_yes', campaignName: 'tasting', messageId: sent.body.messageRecordId, phoneNumber: PHONE }),
    ]);

    // A card button.
    await Promise.all([page.waitForURL(/\/phone\?number=/), page.click('button.vp-card-button:has-text("Details")')]);
    const clicks = await t.api('GET', `/api/rcs/interactions?phone=${encodeURIComponent(PHONE)}&type=button_click`);
    expect(clicks.body.data[0]).toMatchObject({ actionType: 'postback', buttonText: 'Details', postbackData: 'tasting_details' });

    // A reply typed on the phone.
    await page.fill(`#thread-${t.account.senders.rcs} input[name=text]`, 'Two seats please');
    await Promise.all([page.waitForURL(/\/phone\?number=/), page.click(`#thread-${t.account.senders.rcs} .vp-compose button`)]);
    await expect.poll(() => page.textContent(`#thread-${t.account.senders.rcs} .phone-thread`)).toContain('Two seats please');
    const log = await t.api('GET', `/api/messages/log?direction=INBOUND&phoneNumber=${encodeURIComponent(PHONE)}`);
    expect(log.body.messages[0]).toMatchObject({ status: 'RECEIVED', source: 'INBOUND', content: 'Two seats please', campaignName: 'tasting' });
    await screenshot(page, 'engagement-phone-2-tapped-and-replied');

    // STOP: the number is out.
    await Promise.all([page.waitForURL(/\/phone\?number=/), page.click(`#thread-${t.account.senders.rcs} .vp-stop button`)]);
    await expect.poll(() => page.textContent('.vp-current')).toContain('opted out');
    const refused = await t.api('POST', '/api/rcs/send', { phoneNumber: PHONE, messageType: 'text', content: { text: 'x' }, sendernameId: t.account.senders.rcs });
    expect(refused.body.error.code).toBe('CONTACT_OPTED_OUT');
    await screenshot(page, 'engagement-phone-3-stopped');
    expect(problems).toEqual([]);
  });

  it('shows only the logged-in account’s messages', async () => {
    const other = await t.createAccount();
    const theirs = '+4915123450003';
    const r = await t.api('POST', '/api/rcs/send', { phoneNumber: theirs, messageType: 'text', content: { text: 'Secret of another tenant' }, sendernameId: other.senders.rcs }, { key: other.apiKey });
    expect(r.status).toBe(200);
    await page.goto(`${t.url}/phone`);
    expect(await page.textContent('.vp-numbers')).not.toContain(theirs);
    const res = await page.goto(`${t.url}/phone?number=${encodeURIComponent(theirs)}`);
    expect(res?.status()).toBe(404);
    expect(await page.content()).not.toContain('Secret of another tenant');
  });
});
