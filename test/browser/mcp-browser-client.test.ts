import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchBrowser, watchConsole } from './helpers.js';

/**
 * A browser MCP client on another origin (as the MCP Inspector's web UI on localhost:6274 is)
 * connects to /mcp (issue #30): Chromium sends the preflight, reads the 401's WWW-Authenticate,
 * initializes with a key and lists the tools, all cross-origin under CORS.
 */
let t: TestServer;
let browser: Browser;
let client: http.Server;
let clientOrigin: string;

const PAGE = `<!doctype html><meta charset="utf-8"><title>Browser MCP client</title><pre id="out">running</pre><script src="/client.js"></script>`;
const SCRIPT = `
(async () => {
  const params = new URLSearchParams(location.search);
  const mcp = params.get('mcp');
  const key = params.get('key');
  const out = {};
  const call = (body, headers) => fetch(mcp, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2025-11-25', ...headers }, body: JSON.stringify(body) });
  try {
    const anon = await call({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1' } } }, {});
    out.anonStatus = anon.status;
    await anon.text();
    out.challenge = anon.headers.get('WWW-Authenticate');
    const init = await call({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1' } } }, { 'X-API-Key': key });
    out.initStatus = init.status;
    const initText = await init.text();
    out.server = JSON.parse(initText.replace(/^event: message\\ndata: /m, '').split('\\n')[0]).result?.serverInfo?.name ?? null;
    const notified = await call({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'X-API-Key': key });
    out.notified = notified.status;
    await notified.text();
    const list = await call({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, { 'X-API-Key': key, 'Mcp-Method': 'tools/list' });
    const listText = await list.text();
    const data = listText.startsWith('{') ? listText : listText.split('\\n').find((l) => l.startsWith('data: ')).slice(6);
    out.tools = JSON.parse(data).result.tools.length;
  } catch (e) {
    out.error = String(e);
  }
  document.getElementById('out').textContent = JSON.stringify(out);
})();
`;

beforeAll(async () => {
  t = await startTestServer();
  client = http.createServer((req, res) => {
    if (req.url?.startsWith('/client.js')) {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      res.end(SCRIPT);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => client.listen(0, '127.0.0.1', resolve));
  // localhost, not 127.0.0.1: another origin than the server's, as the Inspector's UI is.
  clientOrigin = `http://localhost:${(client.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (client ? client.close(() => resolve()) : resolve()));
  await t?.close();
});

describe('a browser MCP client on another origin', () => {
  it('reads the 401 challenge, initializes and lists the tools', async () => {
    const page = await browser.newPage();
    const { problems } = watchConsole(page);
    const q = new URLSearchParams({ mcp: `${t.url}/mcp`, key: t.account.apiKey });
    await page.goto(`${clientOrigin}/?${q}`);
    await expect.poll(() => page.textContent('#out'), { timeout: 15_000 }).not.toBe('running');
    const out = JSON.parse((await page.textContent('#out'))!);
    expect(out.error).toBeUndefined();
    expect(out.anonStatus).toBe(401);
    expect(out.challenge).toContain('resource_metadata=');
    expect(out.initStatus).toBe(200);
    expect(out.notified).toBe(202);
    expect(out.tools).toBeGreaterThanOrEqual(51);
    expect(new URL(t.url).origin).not.toBe(clientOrigin);
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.close();
  });
});
