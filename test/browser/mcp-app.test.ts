import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW_APP_URI, registerPreviewApp } from '../../src/mcp/apps/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { body, mcpClient } from '../mcp/helpers.js';
import { launchBrowser, screenshot, watchConsole } from './helpers.js';

/**
 * The in-chat preview as a host shows it (issue #16): the ui:// document read over MCP, loaded in
 * a sandboxed iframe by the ext-apps AppBridge, given a real rcs_preview / sms_preview result from
 * a running server. The phone must show the first recipient's merged message, with cost,
 * warnings and the link to the approval page, and no way to approve in the chat.
 */

let t: TestServer;
let browser: Browser;
let html: string;
let hostScript: string;

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
  // The document as a host reads it: resources/read on an McpServer with the preview app.
  const server = new McpServer({ name: 'apps-browser-test', version: '1.0.0' });
  registerPreviewApp(server);
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'host', version: '1.0.0' });
  await Promise.all([server.connect(b), client.connect(a)]);
  const read = await client.readResource({ uri: PREVIEW_APP_URI });
  html = (read.contents[0] as { text: string }).text;
  await client.close();
  await server.close();
  const esbuild = await import('esbuild');
  const built = await esbuild.build({ entryPoints: [path.join(path.dirname(fileURLToPath(import.meta.url)), 'mcp-app-host.ts')], bundle: true, write: false, format: 'iife', platform: 'browser', target: 'es2022', logLevel: 'silent' });
  hostScript = built.outputFiles[0]!.text;
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function callTool(name: string, args: Record<string, unknown>) {
  const c = await mcpClient(t.url, t.account.apiKey);
  try {
    return (await c.callTool({ name, arguments: args })) as Record<string, unknown>;
  } finally {
    await c.close();
  }
}

/** A host page showing the view for one tool call; returns the page and the view's frame once drawn. */
async function host(toolInput: Record<string, unknown>, toolResult: Record<string, unknown>): Promise<{ page: Page; view: Frame; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 820, height: 1800 } });
  const page = await context.newPage();
  const { problems } = watchConsole(page);
  await page.setContent('<!doctype html><html><head><title>host</title></head><body></body></html>');
  await page.addScriptTag({ content: hostScript });
  await page.evaluate(([h, i, r]) => (globalThis as unknown as { startHost: (a: unknown, b: unknown, c: unknown) => Promise<void> }).startHost(h, i, r), [html, toolInput, toolResult] as const);
  await page.waitForFunction(() => (globalThis as unknown as { hostReady: boolean }).hostReady);
  const view = page.frames().find((f) => f !== page.mainFrame())!;
  await view.waitForSelector('[data-testid=app-head]');
  return { page, view, problems };
}

describe('the in-chat preview in a host', () => {
  it('rcs_preview: the merged first message, recipients, cost, warnings and the approval link', async () => {
    await t.ctx.services.contacts.create(t.account.accountId, { phone: '+4915112370001', firstName: 'Ada' });
    const input = {
      phoneNumbers: ['+4915112370001', '+4915112370002'],
      messageType: 'richCard',
      content: {
        title: 'Hello {{contact_first_name}}',
        description: 'Spring sale: 20% off <b>today</b>',
        media: { height: 'MEDIUM', contentInfo: { fileUrl: 'https://cdn.example.com/spring.jpg', contentType: 'image/jpeg' } },
        suggestions: [{ reply: { text: 'Yes please', postbackData: 'yes' } }, { action: { type: 'openUrl', text: 'Shop', postbackData: 'shop', openUrlAction: { url: 'https://shop.example.com/spring' } } }],
      },
      sendernameId: t.account.senders.rcs,
      smsFallback: { message: 'Hi {{contact_first_name}}, 20% off today', sendernameId: t.account.senders.sms },
    };
    const result = await callTool('rcs_preview', input);
    expect(result.isError).toBeFalsy();
    const preview = body(result);
    const { page, view, problems } = await host(input, result);

    const head = await view.locator('[data-testid=app-head]').textContent();
    expect(head).toContain('RCS message to 2 recipients');
    expect(await view.locator('[data-testid=app-recipients]').textContent()).toBe('2');
    expect(await view.locator('[data-testid=app-cost]').textContent()).toBe(`${preview.creditsEstimated} credits`);
    expect(preview.creditsEstimated).toBeGreaterThan(0);
    expect(await view.locator('[data-testid=app-status]').textContent()).toContain('waits for your approval');

    // The first recipient's merged message, the fallback, the sender names, as on the share page.
    const mockup = await view.locator('[data-testid=mockup]').textContent();
    expect(mockup).toContain('Hello Ada');
    expect(mockup).toContain('Spring sale: 20% off <b>today</b>'); // text, not markup
    expect(await view.locator('[data-testid=mockup] b').count()).toBe(0);
    expect(mockup).toContain('Hi Ada, 20% off today');
    expect(mockup).toContain('Yes please');
    expect(mockup).toContain('https://shop.example.com/spring');
    expect(mockup).toMatch(/RCS Agent \d+/);
    expect(mockup).toMatch(/SMSCO\d+/);
    expect(mockup).toContain('Media from cdn.example.com is not shown here');

    // The second recipient has no first name: the warning is there and the mockup is flagged.
    const warnings = view.locator('[data-testid=app-warnings] [data-warning-code=empty_merge_value]');
    expect(await warnings.count()).toBeGreaterThan(0);
    expect(await warnings.first().textContent()).toContain('contact_first_name');
    expect(await view.locator('[data-testid=mockup].flagged').count()).toBe(1);

    // The approval link goes to the share page, opened through the host; nothing approves here.
    const link = view.locator('[data-testid=approval-link]');
    expect(await link.getAttribute('href')).toBe(preview.share_url);
    await link.click();
    await page.waitForFunction(() => (globalThis as unknown as { openedLinks: string[] }).openedLinks.length > 0);
    expect(await page.evaluate(() => (globalThis as unknown as { openedLinks: string[] }).openedLinks)).toEqual([preview.share_url]);
    expect(await view.locator('button, form, [data-testid=approve]').count()).toBe(0);
    const status = await t.ctx.services.previews.get(t.account.accountId, preview.preview_id);
    expect(status.status).toBe('pending');

    // Its CSP refused nothing it needed (no violations, no failed loads).
    // The view sized its frame to its whole content (AppBridge size-changed).
    const frameHeight = await page.locator('iframe').evaluate((f) => (f as unknown as { clientHeight: number }).clientHeight);
    const docHeight = await view.evaluate(() => Math.ceil((globalThis as unknown as { document: { documentElement: { getBoundingClientRect(): { height: number } } } }).document.documentElement.getBoundingClientRect().height));
    expect(frameHeight).toBe(docHeight);
    expect(frameHeight).toBeGreaterThan(400);
    expect(problems).toEqual([]);
    console.log(`screenshot: ${await screenshot(page, 'mcp-app-rcs-preview')}`);
    await page.context().close();
  });

  it('sms_preview: the SMS phone with the merged text, segments and cost', async () => {
    const input = { phoneNumber: '+4915112370001', message: 'Hi {{contact_first_name}}, your order is ready', sendernameId: t.account.senders.sms };
    const result = await callTool('sms_preview', input);
    const preview = body(result);
    expect(result.isError).toBeFalsy();
    const { page, view, problems } = await host(input, result);
    expect(await view.locator('[data-testid=app-head] h1').textContent()).toBe('SMS message to +4915112370001');
    expect(await view.locator('[data-testid=app-cost]').textContent()).toBe(`${preview.creditsEstimated} credits`);
    expect(await view.locator('[data-testid=mockup] .bubble-sms').textContent()).toBe('Hi Ada, your order is ready');
    expect(await view.locator('[data-testid=app-head]').textContent()).toContain('1 segment, GSM-7');
    expect(await view.locator('[data-testid=approval-link]').getAttribute('href')).toBe(preview.share_url);
    expect(problems).toEqual([]);
    console.log(`screenshot: ${await screenshot(page, 'mcp-app-sms-preview')}`);
    await page.context().close();
  });

  it('a tool error is shown as the error, not as an empty phone', async () => {
    const input = { phoneNumber: 'not a number', message: 'x', sendernameId: t.account.senders.sms };
    const result = await callTool('sms_preview', input);
    expect(result.isError).toBe(true);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addScriptTag({ content: hostScript });
    await page.evaluate(([h, i, r]) => (globalThis as unknown as { startHost: (a: unknown, b: unknown, c: unknown) => Promise<void> }).startHost(h, i, r), [html, input, result] as const);
    await page.waitForFunction(() => (globalThis as unknown as { hostReady: boolean }).hostReady);
    const view = page.frames().find((f) => f !== page.mainFrame())!;
    const error = await view.waitForSelector('[data-testid=app-error]');
    expect((await error.textContent())?.length).toBeGreaterThan(0);
    expect(await view.locator('[data-testid=mockup]').count()).toBe(0);
    await context.close();
  });
});
