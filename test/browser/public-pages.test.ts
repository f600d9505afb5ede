import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES_PATH } from '../../src/sandbox/samples.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { discover, register } from '../oauth/helpers.js';
import { seriousAxeViolations } from './axe.js';
import { expectNoSidewaysScroll, launchBrowser, loggedInState, screenshot, tempScreenshotDir, watchConsole, type SessionState } from './helpers.js';

/**
 * Every page a person reaches from a link (issue #30), at 390 and 1280 px: the login steps, the
 * sandbox share page, an opt-in form (also refused) with its confirmation, the unsubscribe page,
 * the OAuth consent page and its refusals, the preview share page of one recipient, of a batch
 * (also with flagged values), of an SMS and after the decision, and the not-found pages. None scrolls sideways, its primary action can be reached, and axe-core finds
 * nothing serious or critical. The list follows the routers: src/accounts/login-routes.ts,
 * src/sandbox/page-routes.ts, src/forms/public-routes.ts, src/inbound/unsubscribe-routes.ts,
 * oauth/handlers/consent.ts, src/previews/page-routes.ts (the console and /phone are in
 * console-phone.test.ts and phone-search.test.ts).
 */
let t: TestServer;
let browser: Browser;
let session: SessionState;
let shots: string;

interface PublicPage {
  name: string;
  /** Path and query, resolved once the data exists. */
  path: () => string;
  status?: number;
  /** Needs the logged-in person (share pages, consent). */
  session?: boolean;
  /** The action the page is for: visible, enabled and inside the viewport's width once scrolled to. */
  primary?: string;
  /** Steps from the page at `path` to the page under test (e.g. the password step before the code). */
  prepare?: (page: Page) => Promise<void>;
}

const WIDTHS = [390, 1280] as const;
const at = (width: number) => ({ width, height: width < 500 ? 844 : 900 });
const BATCH = Array.from({ length: 40 }, (_, i) => `+49151${String(41_000_000 + i * 10).padStart(8, '0')}`);
const NAMES = ['Anna', 'Ben', 'Clara', 'Dora', 'Emil', 'Fritz', 'Greta', 'Hanna', 'Ida', 'Jonas'];

const data = {
  sandbox: '',
  sandboxIssues: '',
  form: '',
  confirm: '',
  unsubscribe: '',
  consent: '',
  single: '',
  batch: '',
  sms: '',
  flagged: '',
  decided: '',
};

const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

async function sandboxPreview(body: unknown): Promise<string> {
  const r = await t.api('POST', '/api/rcs/sandbox/preview', body, { key: null });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return pathOf(r.body.preview.share_url as string);
}

/** The first link to this server in what the simulated network delivered to `phone`. */
async function receivedLink(phone: string, path: string): Promise<string> {
  const view = await t.ctx.services.virtualPhone!.view(t.account.accountId, phone);
  const m = new RegExp(`https?://[^\\s"]+(${path}[A-Za-z0-9_-]+)`).exec(JSON.stringify(view));
  expect(m, `a ${path} link sent to ${phone}`).not.toBeNull();
  return m![1]!;
}

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  session = await loggedInState(browser, t.url, t.account);
  shots = tempScreenshotDir('public');
  const sample = (file: string) => `https://${new URL(t.url).host}${SAMPLES_PATH}/${file}`;

  // Sandbox: a carousel with chips, and a message with errors and warnings listed beside it.
  data.sandbox = await sandboxPreview({
    messageType: 'carousel',
    content: {
      cardContents: [
        { title: 'Lake cruise', description: 'Two hours at dusk, {{contact_first_name}}.', media: { height: 'MEDIUM', contentInfo: { fileUrl: sample('landscape.jpg') } }, cardActions: [{ text: 'Book', type: 'openUrl', openUrlAction: { url: 'https://example.com/book' } }] },
        { title: 'City lights', description: 'Night walk downtown.', media: { height: 'MEDIUM', contentInfo: { fileUrl: sample('skyline.jpg') } }, cardActions: [{ text: 'Choose', type: 'postback', postbackData: 'city' }] },
      ],
      suggestions: [{ reply: { text: 'Yes please', postbackData: 'yes' } }, { action: { text: 'Call us', type: 'dial', dialAction: { phoneNumber: '+15550100' } } }],
    },
  });
  data.sandboxIssues = await sandboxPreview({
    messageType: 'richCard',
    content: {
      title: 'A title that is far longer than any phone will show in a single card header line, really',
      description: 'Hi {{contact_first_name}} {{unknown_field}}, a long link https://example.com/a/really/long/path/that/goes/on/and/on/and/on/without/a/break',
      media: { height: 'TALL', contentInfo: { fileUrl: sample('coffee.png') } },
      cardActions: [{ text: 'Website', type: 'openUrl', openUrlAction: { url: 'https://example.com/' + 'x'.repeat(120) } }],
    },
    smsFallback: { message: 'Grüße — your ☕ is ready {{contact_first_name}}' },
  });

  // An opt-in form with double opt-in; a submission through the form gives the confirmation link.
  const form = await t.api('POST', '/api/v1/forms', {
    name: 'Bistro news',
    title: 'Get our weekly menu by SMS — Speisekartenbenachrichtigungsdienstleistungsangebot',
    description: 'One message a week with the menu & specials, and a very long word: Donaudampfschifffahrtsgesellschaftskapitänsmütze.',
    fields: { firstName: 'required', email: 'optional' },
    confirmation: { sendernameId: t.account.senders.sms, message: 'Bistro: confirm here {{confirm_link}}' },
  });
  expect(form.status, JSON.stringify(form.body)).toBe(201);
  data.form = `/f/${form.body.data.slug as string}`;
  const web = new WebClient(t.url);
  const formPage = await web.get(data.form);
  const submitted = await web.post(data.form, { csrf: WebClient.hidden(formPage.text, 'csrf'), phone: '+4915140000001', firstName: 'Marie' });
  expect(submitted.status, submitted.text.slice(0, 500)).toBe(303);
  data.confirm = await receivedLink('+4915140000001', '/f/confirm/');

  // A message with an unsubscribe link: its page (visiting changes nothing).
  expect((await t.api('POST', '/api/rcs/send', { phoneNumber: '+4915140000002', messageType: 'text', content: { text: 'Spring menu. Unsubscribe: {{unsubscribe_link}}' }, sendernameId: t.account.senders.rcs })).status).toBe(200);
  data.unsubscribe = await receivedLink('+4915140000002', '/u/');

  // The OAuth consent page of a registered app (answered by no one: the request stays open).
  const { as } = await discover(t);
  const rc = await register(as, 'http://127.0.0.1:9/callback', { name: 'Assistant_with_a_very_long_unbroken_registration_name_that_never_ends_0123456789' });
  const authorize = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries({ client_id: rc.client.client_id, response_type: 'code', redirect_uri: rc.redirectUri, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', scope: 'messages:read messages:write contacts:read', state: 's', resource: `${t.url}/mcp` })) {
    authorize.searchParams.set(k, v);
  }
  const redirect = await fetch(authorize, { redirect: 'manual' });
  expect(redirect.status).toBe(302);
  data.consent = redirect.headers.get('location')!;
  expect(data.consent).toMatch(/^\/consent\?request=/);

  // Share pages: a rich card to one person, a text to 40 named contacts, an SMS.
  for (const [i, phone] of BATCH.entries()) await t.ctx.services.contacts.create(t.account.accountId, { phone, firstName: NAMES[i % NAMES.length]! });
  const single = await t.api('POST', '/api/rcs/previews/send', {
    phoneNumber: BATCH[0],
    sendernameId: t.account.senders.rcs,
    messageType: 'richCard',
    content: {
      title: 'Table for {{contact_first_name}}',
      description: 'Friday at 8 pm. Tap to confirm or change.',
      media: { height: 'MEDIUM', contentInfo: { fileUrl: sample('coffee.png') } },
      cardActions: [{ text: 'Open booking', type: 'openUrl', openUrlAction: { url: 'https://bistro.example.com/booking/very/long/path?ref=campaign-spring-2026' } }],
      suggestions: [{ reply: { text: 'Confirm', postbackData: 'ok' } }, { action: { text: 'Call', type: 'dial', dialAction: { phoneNumber: '+4930123456' } } }],
    },
  });
  expect(single.status, JSON.stringify(single.body)).toBe(201);
  data.single = pathOf(single.body.data.share_url as string);
  const batch = await t.api('POST', '/api/rcs/previews/send-batch', { phoneNumbers: BATCH, messageType: 'text', content: { text: 'Hi {{contact_first_name}}, our spring menu is out: https://bistro.example.com/menu' }, sendernameId: t.account.senders.rcs });
  expect(batch.status, JSON.stringify(batch.body)).toBe(201);
  data.batch = pathOf(batch.body.data.share_url as string);
  // A batch whose merged values are flagged (a link, a phone number, unusual length), and a preview the person decides on.
  const risky = ['Visit bit.ly/win-now', 'Call 0800 123 4567', 'A'.repeat(60), 'Zoë'];
  for (const [i, firstName] of risky.entries()) await t.ctx.services.contacts.create(t.account.accountId, { phone: `+49151${String(42_000_000 + i * 10).padStart(8, '0')}`, firstName });
  const flagged = await t.api('POST', '/api/rcs/previews/send-batch', {
    phoneNumbers: [...risky.map((_, i) => `+49151${String(42_000_000 + i * 10).padStart(8, '0')}`), ...BATCH.slice(0, 6)],
    messageType: 'text',
    content: { text: 'Hi {{contact_first_name}}, {{unknown_tag}} your code is ready', suggestions: [{ action: { text: 'Open', type: 'openUrl', openUrlAction: { url: 'https://xn--bcher-kva.example/{{contact_first_name}}' } } }] },
    sendernameId: t.account.senders.rcs,
  });
  expect(flagged.status, JSON.stringify(flagged.body)).toBe(201);
  data.flagged = pathOf(flagged.body.data.share_url as string);
  const decided = await t.api('POST', '/api/rcs/previews/send', { phoneNumber: BATCH[2], messageType: 'text', content: { text: 'Decided' }, sendernameId: t.account.senders.rcs });
  expect(decided.status, JSON.stringify(decided.body)).toBe(201);
  data.decided = pathOf(decided.body.data.share_url as string);
  const sms = await t.api('POST', '/api/rcs/previews/send-sms', { phoneNumber: BATCH[1], message: 'Hi {{contact_first_name}}, your table is ready. Grüße!', sendernameId: t.account.senders.sms });
  expect(sms.status, JSON.stringify(sms.body)).toBe(201);
  data.sms = pathOf(sms.body.data.share_url as string);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const PAGES: PublicPage[] = [
  { name: 'login', path: () => '/login', primary: 'main button[type=submit]' },
  {
    name: 'login-refused',
    path: () => '/login',
    primary: 'main button[type=submit]',
    status: 401,
    prepare: async (page) => {
      await page.fill('input[name=email]', t.account.email);
      await page.fill('input[name=password]', 'not the password');
      await Promise.all([page.waitForLoadState('load'), page.click('main button[type=submit]')]);
      await page.waitForSelector('.error');
    },
  },
  {
    name: 'login-code',
    path: () => '/login',
    primary: 'main button[type=submit]',
    prepare: async (page) => {
      await page.fill('input[name=email]', t.account.email);
      await page.fill('input[name=password]', t.account.password);
      await Promise.all([page.waitForURL(/\/login\/totp/), page.click('main button[type=submit]')]);
    },
  },
  { name: 'sandbox', path: () => data.sandbox, primary: '.phone' },
  { name: 'sandbox-issues', path: () => data.sandboxIssues, primary: '.phone' },
  { name: 'sandbox-missing', path: () => '/sandbox/p/sbx_nothing_here', status: 404 },
  { name: 'form', path: () => data.form, primary: '#optin-submit' },
  { name: 'form-sent', path: () => `${data.form}/sent` },
  { name: 'form-missing', path: () => '/f/no-such-form', status: 404 },
  { name: 'form-confirm', path: () => data.confirm, primary: '#confirm-optin' },
  { name: 'form-confirm-missing', path: () => '/f/confirm/no-such-token', status: 404 },
  { name: 'unsubscribe', path: () => data.unsubscribe, primary: '#unsubscribe-confirm' },
  { name: 'unsubscribe-missing', path: () => '/u/no-such-token', status: 404 },
  {
    name: 'form-refused',
    path: () => data.form,
    primary: '#optin-submit',
    prepare: async (page) => {
      await page.fill('input[name=phone]', '0151 2345');
      await page.fill('input[name=firstName]', 'Marie');
      await Promise.all([page.waitForLoadState('load'), page.click('#optin-submit')]);
      await page.waitForSelector('#phone-error');
    },
  },
  { name: 'oauth-refused', path: () => '/authorize?client_id=no-such-client&response_type=code&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256', status: 400 },
  { name: 'oauth-consent-expired', path: () => '/consent?request=no-such-request', session: true, status: 400 },
  { name: 'oauth-consent', path: () => data.consent, session: true, primary: 'button[value=approve]' },
  { name: 'share-single', path: () => data.single, session: true, primary: '[data-testid=approve]' },
  { name: 'share-batch', path: () => data.batch, session: true, primary: '[data-testid=approve]' },
  { name: 'share-sms', path: () => data.sms, session: true, primary: '[data-testid=approve]' },
  { name: 'share-flagged', path: () => data.flagged, session: true, primary: '[data-testid=approve]' },
  {
    name: 'share-approved',
    path: () => data.decided,
    session: true,
    prepare: async (page) => {
      // The first visit approves; the page then shows the decision and its record.
      const approve = page.locator('[data-testid=approve]');
      if (await approve.isEnabled()) await Promise.all([page.waitForLoadState('load'), approve.click()]);
      await page.waitForSelector('.decision-records');
    },
  },
  { name: 'share-missing', path: () => '/preview/no-such-preview', session: true, status: 404 },
  { name: 'not-found', path: () => '/no-such-page', status: 404 },
];

describe('pages reached without the console, at 390 and 1280 px', () => {
  for (const p of PAGES) {
    for (const width of WIDTHS) {
      it(`${p.name} at ${width} px: fits, its action is reachable, axe-core finds nothing serious`, async () => {
        const context = await browser.newContext({ viewport: at(width), ...(p.session ? { storageState: session } : {}) });
        try {
          const page = await context.newPage();
          const { problems } = watchConsole(page);
          const res = await page.goto(`${t.url}${p.path()}`);
          if (!p.prepare) expect(res?.status()).toBe(p.status ?? 200);
          await p.prepare?.(page);
          await screenshot(page, `${p.name}-${width}`, shots);
          await expectNoSidewaysScroll(page);
          if (p.primary) {
            const action = page.locator(p.primary).first();
            await action.scrollIntoViewIfNeeded();
            expect(await action.isVisible(), p.primary).toBe(true);
            const box = (await action.boundingBox())!;
            expect(box.x).toBeGreaterThanOrEqual(0);
            expect(box.x + box.width).toBeLessThanOrEqual(width);
          }
          expect(await seriousAxeViolations(page)).toEqual([]);
          // The page's own status (404, 401) is no sub-resource problem.
          expect(problems).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  }
});
