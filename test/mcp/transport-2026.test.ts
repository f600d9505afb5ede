import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { TOOLS_BY_NAME } from '../../src/mcp/catalog.js';
import { PREVIEW_APP_MIME_TYPE, PREVIEW_APP_URI } from '../../tools/preview-app-meta.js';

/** The wire of POST /mcp for 2026-07-28 requests: per-request envelope, standard headers, resultType, cache hints. */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ workers: false });
});
afterAll(async () => {
  await t.close();
});

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'wire', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

async function post(method: string, params: Record<string, unknown> = {}, opts: { name?: string; headers?: Record<string, string>; query?: string; key?: string | null; raw?: string } = {}) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, ...(opts.name !== undefined && { 'Mcp-Name': opts.name }), ...opts.headers };
  if (opts.key !== null) headers['X-API-Key'] = opts.key ?? t.account.apiKey;
  const res = await fetch(`${t.url}/mcp${opts.query ?? ''}`, { method: 'POST', headers, body: opts.raw ?? JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: ENVELOPE } }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

describe('POST /mcp, revision 2026-07-28', () => {
  it('answers server/discover with the revision, the tools capability, instructions and cache hints', async () => {
    const r = await post('server/discover');
    expect(r.status).toBe(200);
    expect(r.json.result).toMatchObject({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', ttlMs: 300000, cacheScope: 'private' });
    expect(r.json.result.instructions).toContain('rcs_validate');
    expect(r.json.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'rcs-sms-mcp-server' });
  });

  it('lists the tools the key may call in catalog order, with resultType and cache hints', async () => {
    const a = await post('tools/list');
    expect(a.json.result).toMatchObject({ resultType: 'complete', ttlMs: 300000, cacheScope: 'private' });
    const names = a.json.result.tools.map((x: { name: string }) => x.name);
    expect(names).toHaveLength(51);
    expect((await post('tools/list')).json.result.tools.map((x: { name: string }) => x.name)).toEqual(names);
    const key = await t.createKey(t.account.accountId, ['contacts:read']);
    const limited = (await post('tools/list', {}, { key })).json.result.tools;
    expect(limited.length).toBeGreaterThan(0);
    // tools/list no longer repeats each tool's permissions (_meta); the catalog has them.
    expect(limited.every((x: { name: string }) => TOOLS_BY_NAME.get(x.name)!.permissions.every((p) => p === 'contacts:read'))).toBe(true);
    const ro = (await post('tools/list', {}, { query: '?readonly=1&toolsets=contacts' })).json.result.tools;
    expect(ro.length).toBeGreaterThan(0);
    expect(ro.every((x: { name: string; annotations: { readOnlyHint: boolean } }) => x.annotations.readOnlyHint && TOOLS_BY_NAME.get(x.name)!.toolset === 'contacts')).toBe(true);
  });

  it('calls a tool: structuredContent and its JSON text, resultType complete', async () => {
    const r = await post('tools/call', { name: 'list_sendernames', arguments: {} }, { name: 'list_sendernames' });
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.json.result).toMatchObject({ resultType: 'complete', structuredContent: { success: true, count: 3 } });
    expect(JSON.parse(r.json.result.content[0].text)).toEqual(r.json.result.structuredContent);
    const bad = await post('tools/call', { name: 'list_sendernames', arguments: { type: 'FAX' } }, { name: 'list_sendernames' });
    expect(bad.json.result.isError).toBe(true);
    expect(JSON.parse(bad.json.result.content[0].text).error).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path: 'type' })] });
  });

  it('refuses Mcp-Method / Mcp-Name headers that disagree with the body (HeaderMismatch)', async () => {
    const r = await post('tools/call', { name: 'list_sendernames', arguments: {} }, { name: 'rcs_jobs' });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32020);
    const m = await post('tools/call', { name: 'list_sendernames', arguments: {} }, { name: 'list_sendernames', headers: { 'Mcp-Method': 'tools/list' } });
    expect(m.json.error.code).toBe(-32020);
  });

  it('answers malformed params with a short -32602 and the request id, broken JSON with -32700', async () => {
    const r = await post('tools/call', { name: 'list_sendernames', arguments: [1] }, { name: 'list_sendernames' });
    expect(r.json).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: params.arguments: expected an object, received array' } });
    const unknown = await post('tools/call', { name: 'no_such_tool', arguments: {} }, { name: 'no_such_tool' });
    expect(unknown.json).toMatchObject({ id: 1, error: { code: -32602, message: 'Tool no_such_tool not found' } });
    const broken = await post('tools/list', {}, { raw: '{"jsonrpc":' });
    expect(broken.status).toBe(400);
    expect(broken.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('keeps auth, the DNS-rebinding guard and 405 in front of the SDK', async () => {
    const anon = await post('tools/list', {}, { key: null });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect((await post('tools/list', {}, { headers: { Origin: 'https://evil.example' } })).status).toBe(403);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${t.url}/mcp`, { method, headers: { 'X-API-Key': t.account.apiKey } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('serves the in-chat preview on the endpoint itself: listed, readable, and named by the two preview tools only', async () => {
    const tools = (await post('tools/list')).json.result.tools as Array<{ name: string; _meta?: { ui?: { resourceUri?: string } } }>;
    expect(tools.filter((x) => x._meta?.ui?.resourceUri === PREVIEW_APP_URI).map((x) => x.name).sort()).toEqual(['rcs_preview', 'sms_preview']);
    const list = await post('resources/list');
    expect(list.json.result).toMatchObject({ resultType: 'complete', ttlMs: 300000, cacheScope: 'private' });
    expect(list.json.result.resources).toEqual([expect.objectContaining({ uri: PREVIEW_APP_URI, mimeType: PREVIEW_APP_MIME_TYPE })]);
    const read = await post('resources/read', { uri: PREVIEW_APP_URI }, { name: PREVIEW_APP_URI });
    expect(read.status).toBe(200);
    const [doc] = read.json.result.contents as Array<{ uri: string; mimeType: string; text: string }>;
    expect(doc).toMatchObject({ uri: PREVIEW_APP_URI, mimeType: PREVIEW_APP_MIME_TYPE });
    // The document carries its own CSP: no network, scripts only by hash.
    expect(doc!.text).toContain("default-src 'none'");
    // Without a credential the resource is as closed as the tools.
    expect((await post('resources/list', {}, { key: null })).status).toBe(401);
    // An unknown ui:// resource is a JSON-RPC error, not an empty document.
    const unknown = await post('resources/read', { uri: 'ui://rcs-sms/other.html' }, { name: 'ui://rcs-sms/other.html' });
    expect(unknown.json.error).toBeDefined();
  });
});
