import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { PREVIEW_APP_URI } from '../../tools/preview-app-meta.js';
import { firstStartKey, startChildServer, type ChildServer } from '../helpers/child-server.js';

/**
 * The one-file server `npm start` runs (scripts/bundle.mjs, dist/server.mjs): every other test runs the sources
 * through tsx, so this one builds a bundle the same way and checks what a bundle can get wrong — files read at run
 * time relative to a module (the MCP app's view, the page assets), packages loaded at run time (esbuild, the native
 * SQLite driver), CommonJS packages inside an ES module — on the paths a person and an assistant use first.
 */
const dir = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'rcs-test-bundle');
const outfile = path.join(dir, `server-${process.pid}.mjs`);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bundle-'));
let server: ChildServer;
let key: string;

beforeAll(async () => {
  fs.mkdirSync(dir, { recursive: true });
  // scripts/ is plain JavaScript outside the TypeScript program: imported by its path, typed here.
  const { bundleServer } = (await import(pathToFileURL(path.join(PROJECT_ROOT, 'scripts', 'bundle.mjs')).href)) as { bundleServer(outfile?: string): Promise<void> };
  await bundleServer(outfile);
  server = await startChildServer({ DATA_DIR: dataDir, DATABASE_URL: '', HOST: '127.0.0.1' }, 60_000, [], outfile);
  key = firstStartKey(dataDir, 'Assistant');
}, 120_000);
afterAll(async () => {
  await server?.stop();
  for (const f of fs.readdirSync(dir)) if (f.startsWith(`server-${process.pid}.`)) fs.rmSync(path.join(dir, f), { force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bundle', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
async function mcp(method: string, params: Record<string, unknown> = {}, name?: string) {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, ...(name !== undefined && { 'Mcp-Name': name }), 'X-API-Key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: ENVELOPE } }),
  });
  return { status: res.status, json: (await res.json()) as { result?: Record<string, unknown>; error?: unknown } };
}

describe('the one-file server (dist/server.mjs)', () => {
  it('starts on its embedded defaults, answers health and serves the pages with their assets', async () => {
    expect(key).toMatch(/^rcsk_/);
    expect((await fetch(`${server.url}/api/rcs/health`)).status).toBe(200);
    const login = await fetch(`${server.url}/login`);
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('/assets/');
    const css = await fetch(`${server.url}/assets/app.css`);
    expect(css.status).toBe(200);
    expect((await css.text()).length).toBeGreaterThan(1000);
  });

  it('serves MCP: the 51 tools, a tool call, and the in-chat preview document bundled at run time', async () => {
    const list = await mcp('tools/list');
    expect(list.status).toBe(200);
    expect((list.json.result!.tools as unknown[]).length).toBeGreaterThan(0);
    const call = await mcp('tools/call', { name: 'rcs_validate', arguments: { messageType: 'text', content: { text: 'Hello from the bundle' } } }, 'rcs_validate');
    expect(call.status).toBe(200);
    expect(call.json.result).toMatchObject({ structuredContent: { valid: true, errors: [] } });
    const read = await mcp('resources/read', { uri: PREVIEW_APP_URI }, PREVIEW_APP_URI);
    expect(read.status, JSON.stringify(read.json)).toBe(200);
    const [doc] = read.json.result!.contents as { text: string }[];
    expect(doc!.text).toContain("default-src 'none'");
    expect(doc!.text).toContain('ui/initialize');
  });

  it('stops on SIGTERM with exit code 0', async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});
