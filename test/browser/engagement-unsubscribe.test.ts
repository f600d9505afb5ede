import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchBrowser, screenshot, watchConsole } from './helpers.js';

let t: TestServer;
let browser: Browser;
let page: Page;
let problems: string[];

const PHONE = '+4915123450001';

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 420, height: 760 } });
  page = await context.newPage();
  ({ problems } = watchConsole(page));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the unsubscribe page in a browser', () => {
  it('one click on the link’s page and the contact is out (scheduled messages cancelled, sends refused)', async () => {
    await t.api('POST', '/api/v1/contacts', { phone: PHONE, firstName: 'Mia' });
    const sent = await t.api('POST', '/api/rcs/send', {
      phoneNumber: PHONE,
      messageType: 'text',
      content: { text: 'Hi {{contact_first_name}}, our spring menu is here. Unsubscribe: {{unsubscribe_link}}' },
      sendernameId: t.account.senders.rcs,
      campaignName: 'spring-menu',
    });
    expect(sent.status).toBe(200);
    const scheduled = await t.api('POST', '/api/rcs/send', {
      phoneNumber: PHONE,
      messageType: 'text',
      content: { text: 'Reminder tomorrow' },
      sendernameId: t.account.senders.rcs,
      scheduleAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(scheduled.status).toBe(200);
    // The log keeps the link masked; the number's (virtual) phone received the real one.
    const content = await t.api('GET', `/api/messages/${sent.body.messageRecordId}/content`);
    expect(content.body.message.content.text).toContain(`/u/${'*'.repeat(32)}`);
    const received = (await t.ctx.services.virtualPhone!.view(t.account.accountId, PHONE)).threads.flatMap((th) => th.items).find((i) => i.kind === 'out' && i.messageId === sent.body.messageRecordId);
    const link = /(http:\/\/[^\s"]+\/u\/[A-Za-z0-9_-]+)/.exec(JSON.stringify(received))![1]!;

    await page.goto(link);
    await expect.poll(() => page.textContent('h1')).toContain('Unsubscribe from');
    expect(await page.textContent('main')).toContain('0001');
    await screenshot(page, 'engagement-unsubscribe-1-confirm');
    expect((await t.api('GET', `/api/v1/contacts/${encodeURIComponent(PHONE)}`)).body.data.disabled).toBe(false);

    await page.click('#unsubscribe-confirm');
    await expect.poll(() => page.textContent('h1')).toBe('You are unsubscribed');
    await screenshot(page, 'engagement-unsubscribe-2-done');

    const c = (await t.api('GET', `/api/v1/contacts/${encodeURIComponent(PHONE)}`)).body.data;
    expect(c).toMatchObject({ disabled: true, disabledReason: 'Opted out: used the unsubscribe link' });
    const stillScheduled = await t.api('GET', `/api/messages/log?status=SCHEDULED&phoneNumber=${encodeURIComponent(PHONE)}`);
    expect(stillScheduled.body.messages).toEqual([]);
    const again = await t.api('POST', '/api/rcs/send', { phoneNumber: PHONE, messageType: 'text', content: { text: 'Hello?' }, sendernameId: t.account.senders.rcs, skipDisabled: false });
    expect(again.body.error.code).toBe('CONTACT_OPTED_OUT');

    // A second visit: already unsubscribed, no button.
    await page.goto(link);
    await expect.poll(() => page.textContent('h1')).toBe('Already unsubscribed');
    expect(await page.$('#unsubscribe-confirm')).toBeNull();
    await screenshot(page, 'engagement-unsubscribe-3-again');
    expect(problems).toEqual([]);
  });
});
