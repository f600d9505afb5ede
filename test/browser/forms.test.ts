import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { totpCode } from '../helpers/web-client.js';
import { startReceiver, verifyWebhook, type Receiver } from '../api/webhooks/helpers.js';
import { launchBrowser, screenshot, watchConsole } from './helpers.js';
import { settled } from '../helpers/settled.js';

/**
 * The opt-in form in a real browser, through the link of the confirmation SMS (read from the
 * simulated network), to the signed form_optin_confirmed webhook; then the console's webhooks and
 * forms pages with the delivery log.
 */
let t: TestServer;
let rx: Receiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
let secret: string;
let hookId: string;
let formId: string;
let slug: string;
let fieldId: string;
const PHONE = '+49 151 2345 6780';
const E164 = '+4915123456780';

beforeAll(async () => {
  t = await startTestServer({ env: { DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_MAX_MS: '200' } });
  rx = await startReceiver();
  const hook = await t.api('POST', '/api/rcs/webhooks', { url: `${rx.url}/crm`, events: ['form_submission', 'form_optin_confirmed'], description: 'CRM sync' });
  ({ id: hookId, secret } = hook.body.data);
  fieldId = (await t.api('POST', '/api/v1/contacts/fields', { name: 'Favourite dish', tag: 'dish' })).body.data.id;
  const group = (await t.api('POST', '/api/v1/groups', { name: 'Newsletter' })).body.data.id;
  const form = await t.api('POST', '/api/v1/forms', {
    name: 'Bistro news',
    title: 'Get our weekly menu by SMS',
    description: 'One message a week with the menu & specials. <b>No spam</b>.',
    fields: { firstName: 'required', email: 'optional', customFields: [{ fieldId, label: 'Favourite dish' }] },
    groups: [group],
    confirmation: { sendernameId: t.account.senders.sms, message: 'Bistro: confirm your subscription to {{form_name}} here {{confirm_link}}' },
  });
  expect(form.status).toBe(201);
  ({ id: formId, slug } = form.body.data);
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 420, height: 860 } });
  page = await context.newPage();
  ({ problems } = watchConsole(page));
});
afterAll(async () => {
  await browser?.close();
  await rx?.close();
  await t?.close();
});

describe('opt-in form in a browser', () => {
  it('submits, gets the confirmation SMS, confirms through its link, and the webhook arrives', async () => {
    await page.goto(`${t.url}/f/${slug}`);
    expect(await page.textContent('h1')).toBe('Get our weekly menu by SMS');
    // Account text is shown as text, never as markup.
    expect(await page.textContent('.form-description')).toContain('<b>No spam</b>');
    expect(await page.$('.form-description b')).toBeNull();
    await screenshot(page, 'forms-1-page');

    // A mistake first: the page says what is wrong and keeps the values.
    await page.fill('input[name=phone]', '0151 2345');
    await page.fill('input[name=firstName]', 'Marie');
    await page.click('#optin-submit');
    await expect.poll(() => page.textContent('#phone-error')).toContain('country code');
    expect(await page.inputValue('input[name=firstName]')).toBe('Marie');
    await screenshot(page, 'forms-2-error');

    await page.fill('input[name=phone]', PHONE);
    await page.fill('input[name=email]', 'marie@example.com');
    await page.fill(`input[name=cf_${fieldId}]`, 'Ratatouille');
    await Promise.all([page.waitForURL(/\/sent$/), page.click('#optin-submit')]);
    expect(await page.textContent('h1')).toBe('Check your phone');
    await screenshot(page, 'forms-3-sent');

    await rx.waitFor(() => rx.events('form_submission').length === 1);
    const sub = rx.events('form_submission')[0]!;
    expect(verifyWebhook(sub.raw, sub.headers['x-rcs-signature'], secret, 300)).toBe(true);
    expect(sub.json).toMatchObject({ optIn: { status: 'PENDING', confirmationSent: true }, contact: { phone: E164, optInStatus: 'PENDING' }, data: { firstName: 'Marie' } });

    // The SMS as the simulated network delivered it to the phone.
    // (The network's store keeps the token masked; the virtual phone shows what was received.)
    const sms = (await t.ctx.services.virtualPhone!.view(t.account.accountId, E164)).threads.flatMap((th) => th.items).find((i) => i.kind === 'out')!;
    expect(sms.kind === 'out' && sms.channel).toBe('SMS');
    const text = (sms as { text: string }).text;
    expect(text).toMatch(/^Bistro: confirm your subscription to Bistro news here http:\/\/127\.0\.0\.1:\d+\/f\/confirm\/[A-Za-z0-9_-]+$/);
    const link = text.split(' here ')[1]!;

    await page.goto(link);
    expect(await page.textContent('h1')).toBe('Confirm your subscription');
    expect(await page.textContent('main')).toContain('6780');
    await screenshot(page, 'forms-4-confirm');
    expect(rx.events('form_optin_confirmed')).toHaveLength(0);
    await page.click('#confirm-optin');
    await expect.poll(() => page.textContent('h1')).toBe('Subscription confirmed');
    await screenshot(page, 'forms-5-confirmed');

    await rx.waitFor(() => rx.events('form_optin_confirmed').length === 1);
    const conf = rx.events('form_optin_confirmed')[0]!;
    expect(verifyWebhook(conf.raw, conf.headers['x-rcs-signature'], secret, 300)).toBe(true);
    expect(conf.json).toMatchObject({
      event: 'form_optin_confirmed',
      form: { id: formId, name: 'Bistro news', slug },
      optIn: { status: 'CONFIRMED', confirmationSent: true, dataApplied: true },
      contact: { phone: E164, optInStatus: 'CONFIRMED' },
      data: { phone: E164, firstName: 'Marie', email: 'marie@example.com', customFields: [{ id: fieldId, label: 'Favourite dish', value: 'Ratatouille' }] },
    });
    const contact = (await t.api('GET', `/api/v1/contacts/${E164}?include=customFields`)).body.data;
    expect(contact).toMatchObject({ disabled: false, firstName: 'Marie', groups: [{ name: 'Newsletter' }] });

    // Back and confirm again: nothing more happens.
    await page.goBack();
    await page.reload();
    expect(await page.textContent('h1')).toBe('Already confirmed');
    await settled(t);
    expect(rx.events('form_optin_confirmed')).toHaveLength(1);
  });

  it('works without JavaScript', async () => {
    const noJs = await browser.newContext({ javaScriptEnabled: false });
    try {
      const p = await noJs.newPage();
      await p.goto(`${t.url}/f/${slug}`);
      await p.fill('input[name=phone]', '+49 151 2345 6790');
      await p.fill('input[name=firstName]', 'Jules');
      await Promise.all([p.waitForURL(/\/sent$/), p.click('#optin-submit')]);
      expect(await p.textContent('h1')).toBe('Check your phone');
    } finally {
      await noJs.close();
    }
  });
});

describe('console: webhooks and forms', () => {
  it('logs in, shows the webhook with its delivery log, sends a test, reveals the secret', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${t.url}/console/webhooks`);
    await page.fill('input[name=email]', t.account.email);
    await page.fill('input[name=password]', t.account.password);
    await Promise.all([page.waitForURL(/\/login\/totp/), page.click('button[type=submit]')]);
    await page.fill('input[name=code]', totpCode(t.account.totpSecret, Date.now()));
    await Promise.all([page.waitForURL(/\/console\/webhooks$/), page.click('main button[type=submit]')]);
    expect(await page.textContent(`tr[data-webhook-id="${hookId}"]`)).toContain('healthy');
    await screenshot(page, 'webhooks-1-list');

    await page.click(`tr[data-webhook-id="${hookId}"] a`);
    await expect.poll(() => page.textContent('h1')).toContain('/crm');
    const rows = await page.$$('table.deliveries tbody tr');
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(await page.textContent('table.deliveries')).toContain('form_optin_confirmed');
    await page.click('#send-test');
    await expect.poll(() => page.textContent('[data-testid=attempt-result]')).toContain('Delivered');
    await page.click('#reveal-secret');
    await expect.poll(() => page.textContent('[data-testid=webhook-secret]')).toBe(secret);
    await screenshot(page, 'webhooks-2-detail');
    expect(rx.events('webhook_test')).toHaveLength(1);

    // Rotate with the default overlap: both secrets sign until it ends.
    await Promise.all([page.waitForURL(/done=rotated/), page.click('button:has-text("Rotate secret")')]);
    await page.click('#reveal-secret');
    const fresh = (await page.textContent('[data-testid=webhook-secret]'))!.trim();
    expect(fresh).not.toBe(secret);
    expect(await page.textContent('main')).toContain(secret);
    await page.click('#send-test');
    await expect.poll(() => page.textContent('[data-testid=attempt-result]')).toContain('Delivered');
    const signed = rx.events('webhook_test')[1]!;
    expect(verifyWebhook(signed.raw, signed.headers['x-rcs-signature'], secret)).toBe(true);
    expect(verifyWebhook(signed.raw, signed.headers['x-rcs-signature'], fresh)).toBe(true);
  });

  it('flags a failing endpoint and redelivers by hand from the log', async () => {
    rx.respond(() => ({ status: 500, body: 'CRM down' }));
    const failing = rx.requests.length;
    await page.click('#send-test');
    await expect.poll(() => page.textContent('[data-testid=attempt-result]')).toContain('HTTP 500');
    // Five more failures in a row flag it.
    for (let i = 0; i < 5; i++) await t.api('POST', `/api/rcs/webhooks/${hookId}/test`);
    await page.reload();
    await expect.poll(() => page.textContent('.failing-banner')).toContain('attempts in a row failed');
    await screenshot(page, 'webhooks-3-failing');

    rx.respond(() => ({ status: 200, body: 'ok' }));
    const failedRow = page.locator('tr.delivery-failed').first();
    await failedRow.locator('button:has-text("Redeliver")').click();
    await expect.poll(() => page.textContent('[data-testid=attempt-result]')).toContain('Delivered');
    expect(rx.requests.length).toBe(failing + 7);
    expect(await page.$('.failing-banner')).toBeNull();
  });

  it('the forms pages list the form and its submissions', async () => {
    await page.click('nav.tabs >> text=Forms');
    await expect.poll(() => page.textContent('h1')).toBe('Opt-in forms');
    expect(await page.textContent(`tr[data-form-id="${formId}"]`)).toContain('Bistro news');
    await page.click(`tr[data-form-id="${formId}"] a`);
    await expect.poll(() => page.textContent('table.submissions')).toContain('CONFIRMED');
    expect(await page.textContent('table.submissions')).toContain('Ratatouille');
    await screenshot(page, 'forms-6-console');

    // Edit in the console: close the form.
    await page.uncheck('input[name=active]');
    await Promise.all([page.waitForURL(/done=saved/), page.click('button:has-text("Save form")')]);
    expect((await t.api('GET', `/api/v1/forms/${formId}`)).body.data.active).toBe(false);
    const closed = await fetch(`${t.url}/f/${slug}`);
    expect(closed.status).toBe(404);
  });

  it('a cap on confirmation SMS: the visitor is asked to try again later, the console warns on the form (issue #27)', async () => {
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { formConfirmationLimits: { perFormPerHour: 0 } });
    const capped = await t.api('POST', '/api/v1/forms', { name: 'Capped news', fields: { firstName: 'optional', email: 'off' }, confirmation: { sendernameId: t.account.senders.sms } });
    expect(capped.status).toBe(201);
    await page.goto(`${t.url}/f/${capped.body.data.slug}`);
    await page.fill('input[name=phone]', '+49 151 2345 6791');
    await page.click('#optin-submit');
    await expect.poll(() => page.textContent('main')).toContain('We cannot send more confirmation messages right now. Please try again later.');
    expect(await page.inputValue('input[name=phone]')).toBe('+49 151 2345 6791');
    await screenshot(page, 'forms-7-capped');

    await page.goto(`${t.url}/console/forms`);
    await expect.poll(() => page.textContent(`tr[data-form-id="${capped.body.data.id}"] .confirmation-limit-warning`)).toContain('0 confirmation SMS per hour per form');
    await page.click(`tr[data-form-id="${capped.body.data.id}"] a`);
    await expect.poll(() => page.textContent('.confirmation-limit-warning')).toContain('Visitors were asked to try again later');
    await screenshot(page, 'forms-8-capped-console');
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { formConfirmationLimits: { perFormPerHour: 30 } });
  });

  it('raised no console errors or CSP violations', () => {
    expect(problems).toEqual([]);
  });
});
