import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { totpCode } from '../helpers/web-client.js';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Debian's Chromium (`apt-get install chromium`); playwright-core downloads no browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Screenshots land here (git-ignored); look at them after a run. */
export const SCREENSHOT_DIR = path.join(PROJECT_ROOT, '.screenshots');

/** A fresh folder for a test file's screenshots under the system's temp dir (outside the repository), logged so they can be looked at. */
export function tempScreenshotDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rcs-screenshots-${label}-`));
  console.log(`screenshots: ${dir}`);
  return dir;
}

/** `extraArgs`: more Chromium switches, e.g. `--host-resolver-rules=…` so the browser resolves no name. */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it with "apt-get install -y chromium" or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}

/** Saves a full-page screenshot as <dir>/<name>.png (.screenshots by default) and returns its path. */
export async function screenshot(page: Page, name: string, dir: string = SCREENSHOT_DIR): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Collects console errors (CSP violations among them), page errors and failed sub-resources, so
 * a test can assert there were none. The browser's own /favicon.ico probe is not a problem.
 */
export function watchConsole(page: Page): { problems: string[] } {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('response', (res) => {
    if (res.status() >= 400 && new URL(res.url()).pathname !== '/favicon.ico' && res.request().resourceType() !== 'document') {
      problems.push(`${res.status()} ${res.url()}`);
    }
  });
  page.on('requestfailed', (req) => {
    // Media elements abort their own download once they have the metadata they asked for.
    if (req.resourceType() === 'media' && req.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`failed ${req.url()}: ${req.failure()?.errorText ?? ''}`);
  });
  return { problems };
}

export type SessionState = Awaited<ReturnType<BrowserContext['storageState']>>;

/**
 * Logs a person in once (password, then the TOTP code, which is accepted once) and returns the
 * session to reuse in every later context, at any viewport.
 */
export async function loggedInState(browser: Browser, baseUrl: string, person: { email: string; password: string; totpSecret: string }): Promise<SessionState> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${baseUrl}/login`);
    await page.fill('input[name=email]', person.email);
    await page.fill('input[name=password]', person.password);
    // The login form has an optional code field of its own: wait for the code page.
    await Promise.all([page.waitForURL(/\/login\/totp/), page.click('button[type=submit]')]);
    await page.fill('input[name=code]', totpCode(person.totpSecret));
    await page.click('button[type=submit]');
    await page.waitForURL((u) => u.pathname === '/console');
    return await context.storageState();
  } finally {
    await context.close();
  }
}

/** Nothing sticks out sideways: the page is no wider than the viewport (names the widest elements when it is). */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scroll, client, wide } = await page.evaluate(() => {
    const client = document.documentElement.clientWidth;
    const wide = Array.from(document.querySelectorAll('body *'))
      .filter((e) => e.getBoundingClientRect().right > client + 0.5)
      .map((e) => `${e.tagName}.${e.className}`);
    return { scroll: document.documentElement.scrollWidth, client, wide };
  });
  expect(scroll, `too wide: ${wide.slice(0, 5).join(', ')}`).toBeLessThanOrEqual(client);
}

/**
 * A test server, a browser and the account's person logged in once, for a whole file (registers beforeAll/afterAll):
 * `open(width)` gives a fresh page of that width with the session and a console watcher.
 */
export function loggedInBrowser(): { server: () => TestServer; open: (width: number) => Promise<{ page: Page; problems: string[] }> } {
  let t: TestServer | undefined;
  let browser: Browser | undefined;
  let session: SessionState | undefined;
  beforeAll(async () => {
    t = await startTestServer();
    browser = await launchBrowser();
    session = await loggedInState(browser, t.url, t.account);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  return {
    server: () => t!,
    async open(width: number) {
      const context = await browser!.newContext({ viewport: { width, height: 900 }, storageState: session });
      const page = await context.newPage();
      const { problems } = watchConsole(page);
      return { page, problems };
    },
  };
}
