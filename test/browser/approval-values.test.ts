import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from '../../src/platform/permissions.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import path from 'node:path';
import { axeViolations } from './axe.js';
import { launchBrowser, loggedInState, screenshot, SCREENSHOT_DIR, watchConsole, type SessionState, expectNoSidewaysScroll } from './helpers.js';

/**
 * The share page of a 10,000-recipient batch (issue #27): the one value an assistant key wrote into
 * recipient 9,876 is on the first screen, riskiest first, with its recipient linked; hidden and
 * look-alike characters are shown; search, the flagged filter, paging and any recipient's whole
 * message work; nothing sticks out sideways on a phone; axe-core finds nothing serious; and the
 * server renders the page in about a second (figures printed, a generous bound asserted).
 */

const N = 10_000;
/** Recipient 9,876 (1-based): the one whose first name the assistant key rewrote. */
const PLANTED = 9_876;
const BAD = 'URGENT card blocked call +4990012345';
const BIDI = '\u202Eexe.nacs';
const LOOKALIKE = '\u0430pple.com';
/** Recipients (1-based) whose names the bulk import brings with hidden or look-alike characters. */
const BIDI_AT = 4_321;
const LOOKALIKE_AT = 7_777;

/** Distinct German mobile numbers; the last digit 5 keeps them off the simulated network's …999x test numbers. */
const phoneOf = (i: number) => `+491514${String(i).padStart(6, '0')}5`;
const BASE = ['Anna', 'Ben', 'Clara', 'Dora', 'Emil', 'Fritz', 'Greta', 'Hanna', 'Ida', 'Jonas', 'Karl', 'Lena', 'Mia', 'Noah', 'Olga', 'Paul', 'Quirin', 'Rosa', 'Sven', 'Tilda'];
/** About 520 different first names, most shared by many recipients. */
const nameOf = (i: number) => `${BASE[i % BASE.length]} ${String.fromCharCode(65 + (Math.floor(i / BASE.length) % 26))}.`;

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
type Size = keyof typeof SIZES;

let t: TestServer;
let browser: Browser;
let storageState: SessionState;
let shareUrl: string;
let assistantKey: string;
const planted = phoneOf(PLANTED);
const timings: Record<string, number> = {};

beforeAll(async () => {
  t = await startTestServer();
  assistantKey = (await t.ctx.services.apiKeys.create(t.account.accountId, 'Assistant', ALL_PERMISSIONS, { sendsNeedApproval: true })).key;
  let at = Date.now();
  for (let start = 1; start <= N; start += 1000) {
    const contacts = [];
    for (let i = start; i < start + 1000; i++) {
      contacts.push({ phone: phoneOf(i), firstName: i === BIDI_AT ? BIDI : i === LOOKALIKE_AT ? LOOKALIKE : nameOf(i) });
    }
    const r = await t.ctx.services.contacts.bulkUpsert(t.account.accountId, { contacts });
    expect(r.created, JSON.stringify(r.errors?.slice(0, 3))).toBe(1000);
  }
  timings.contactsMs = Date.now() - at;

  // The assistant (an approval-bound key) rewrites recipient 9,876's first name.
  const found = await t.api('GET', `/api/v1/contacts/${encodeURIComponent(planted)}`);
  expect(found.status).toBe(200);
  const id = (found.body.data?.id ?? found.body.id) as string;
  const upd = await t.api('PUT', `/api/v1/contacts/${id}`, { firstName: BAD }, { key: assistantKey });
  expect(upd.status, JSON.stringify(upd.body)).toBe(200);

  at = Date.now();
  const res = await t.api(
    'POST',
    '/api/rcs/previews/send-batch',
    { phoneNumbers: Array.from({ length: N }, (_, i) => phoneOf(i + 1)), messageType: 'text', content: { text: 'Hi {{contact_first_name}}' }, sendernameId: t.account.senders.rcs },
    { key: assistantKey },
  );
  timings.previewMs = Date.now() - at;
  expect(res.status, JSON.stringify(res.body).slice(0, 2000)).toBe(201);
  shareUrl = res.body.data.share_url as string;

  browser = await launchBrowser();
  storageState = await loggedInState(browser, t.url, t.account);
}, 300_000);

afterAll(async () => {
  console.log(`approval-values timings (ms): ${JSON.stringify(timings)}`);
  await browser?.close();
  await t?.close();
});

async function open(size: Size, query = ''): Promise<{ page: Page; status: number; problems: string[] }> {
  const context = await browser.newContext({ viewport: SIZES[size], storageState });
  const page = await context.newPage();
  const watched = watchConsole(page);
  const res = await page.goto(`${shareUrl}${query}`);
  return { page, status: res?.status() ?? 0, problems: watched.problems };
}

/** What the first screen shows (the viewport only), as .screenshots/<name>.png. */
async function screenOnly(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

const rows = (page: Page) => page.locator('[data-testid=merge-row]');

describe('the share page of a 10,000-recipient batch lists what differs between recipients', () => {
  for (const size of ['desktop', 'phone'] as const) {
    it(`puts the assistant's value on the first screen, shows hidden characters, searches, filters and pages (${size})`, async () => {
      const { page, status, problems } = await open(size);
      expect(status).toBe(200);
      expect(await page.locator('[data-testid=recipient-count]').textContent()).toContain(String(N));
      const card = page.locator('[data-testid=merge-values]');
      expect(await card.locator('[data-testid=merge-field]').textContent()).toMatch(/contact_first_name.*3 flagged values/);

      // Worst first (issue #42): the link to a look-alike host, then the assistant's phone number, then the bidi override.
      const look = rows(page).first();
      expect(await look.locator('.merge-value').textContent()).toBe(LOOKALIKE);
      expect(await look.getAttribute('class')).toBe('flagged-row');
      expect(await look.locator('[data-risk=lookalike_host]').count()).toBe(1);
      expect(await look.locator('[data-risk=mixed_scripts]').count()).toBe(1);
      const urgent = rows(page).nth(1);
      expect(await urgent.locator('.merge-value').textContent()).toBe(BAD);
      expect(await urgent.textContent()).toContain('written by an assistant');
      expect(await urgent.textContent()).toContain('key "Assistant"');
      const link = urgent.locator(`a[href="?phone=${encodeURIComponent(planted)}#mockup"]`);
      expect(await link.textContent()).toBe(planted);
      expect(await link.isVisible()).toBe(true);
      const bidi = rows(page).nth(2);
      expect(await bidi.locator('.merge-value').textContent()).toBe('⟦U+202E⟧exe.nacs');
      expect(await bidi.getAttribute('class')).toBe('flagged-row');
      // Unflagged values follow, the most common first; none of them is marked.
      expect(await rows(page).nth(3).getAttribute('class')).toBeNull();
      expect(await rows(page).count()).toBe(50);
      // The value and its recipient's number are on the first screen of the card (opened at #values).
      await page.goto(`${shareUrl}#values`);
      await screenOnly(page, `approval-values-screen-${size}`);
      await screenshot(page, `approval-values-first-${size}`);
      for (const shown of [urgent.locator('.merge-value'), link]) {
        const box = await shown.boundingBox();
        expect(box!.y + box!.height, size).toBeLessThanOrEqual(SIZES[size].height);
      }
      await expectNoSidewaysScroll(page);
      expect(await page.locator('script').count()).toBe(0);

      // Search finds it.
      await page.goto(`${shareUrl}?q=URGENT#values`);
      expect(await rows(page).count()).toBe(1);
      expect(await rows(page).first().locator('.merge-value').textContent()).toBe(BAD);
      // Only flagged values.
      await page.goto(`${shareUrl}?flagged=1#values`);
      expect(await rows(page).count()).toBe(3);
      expect(await page.locator('[data-testid=merge-row]:not(.flagged-row)').count()).toBe(0);
      await screenshot(page, `approval-values-flagged-${size}`);
      // Paging: page 2 has the next 50 values, none of page 1's.
      await page.goto(`${shareUrl}#values`);
      const page1 = await rows(page).locator('.merge-value').allTextContents();
      await page.locator('nav.pager[aria-label="Pages of values"] a', { hasText: 'Next' }).click();
      await page.waitForURL((u) => u.searchParams.get('page') === '2');
      expect(await page.locator('nav.pager[aria-label="Pages of values"]').textContent()).toMatch(/Page 2 of \d+/);
      const page2 = await rows(page).locator('.merge-value').allTextContents();
      expect(page2).toHaveLength(50);
      expect(page2.filter((v) => page1.includes(v))).toEqual([]);
      await expectNoSidewaysScroll(page);
      await page.locator('nav.pager[aria-label="Pages of values"]').scrollIntoViewIfNeeded();
      await screenOnly(page, `approval-values-page2-${size}`);
      // Everyone who gets the assistant's value.
      await page.goto(`${shareUrl}?q=URGENT#values`);
      await rows(page).first().locator('a', { hasText: '1 recipient' }).click();
      expect(await page.locator('[data-testid=recipients-of]').textContent()).toContain(planted);
      // A common value's recipients, listed in the card above the table.
      await page.goto(`${shareUrl}?field=contact_first_name&v=3#values`);
      expect(await page.locator('[data-testid=recipients-of] .phone-list li').count()).toBe(20);
      await screenOnly(page, `approval-values-recipients-${size}`);
      await expectNoSidewaysScroll(page);
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it(`shows recipient ${PLANTED.toLocaleString('en-US')}'s whole message in the phone (${size})`, async () => {
      const { page, status } = await open(size, `?phone=${encodeURIComponent(planted)}`);
      expect(status).toBe(200);
      expect(await page.locator('[data-testid=sample-current]').textContent()).toContain(planted);
      expect(await page.locator('[data-testid=mockup]').textContent()).toContain(`Hi ${BAD}`);
      await page.goto(`${shareUrl}?phone=${encodeURIComponent(planted)}#mockup`);
      await screenOnly(page, `approval-values-phone-screen-${size}`);
      await screenshot(page, `approval-values-phone-${size}`);
      await expectNoSidewaysScroll(page);
      await page.context().close();
    });

    it(`has no serious or critical axe-core violation (${size})`, async () => {
      for (const query of ['', `?field=contact_first_name&v=1#values`]) {
        const { page } = await open(size, query);
        const violations = await axeViolations(page);
        if (violations.length > 0) console.log(`axe (${size}, "${query}"): ${JSON.stringify(violations, null, 1)}`);
        expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
        await page.context().close();
      }
    });
  }

  it('the server renders the page for 10,000 recipients in about a second', async () => {
    const cookie = storageState.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const get = async (query: string) => {
      const at = performance.now();
      const res = await fetch(`${shareUrl}${query}`, { headers: { cookie } });
      const text = await res.text();
      const ms = performance.now() - at;
      expect(res.status).toBe(200);
      expect(text).toContain('What differs between recipients');
      return ms;
    };
    const stats = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return { median: Math.round(s[Math.floor(s.length / 2)]!), min: Math.round(s[0]!), max: Math.round(s[s.length - 1]!) };
    };
    await get(''); // warm-up
    for (const [name, query] of [
      ['page', ''],
      ['search', '?q=URGENT'],
      ['phone', `?phone=${encodeURIComponent(planted)}`],
      ['recipientsOf', '?field=contact_first_name&v=10'],
    ] as const) {
      const xs: number[] = [];
      for (let i = 0; i < 7; i++) xs.push(await get(query));
      const s = stats(xs);
      timings[`${name}Median`] = s.median;
      timings[`${name}Min`] = s.min;
      timings[`${name}Max`] = s.max;
      // Generous: the issue asks for about a second on a 2-core machine; this catches a return to
      // per-row scans of all recipients, not scheduler noise.
      expect(s.median, `${name}: ${JSON.stringify(xs.map(Math.round))}`).toBeLessThan(3000);
    }
  });
});
