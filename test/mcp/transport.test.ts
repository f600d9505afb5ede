import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * The wire behaviour of POST /mcp, byte level (the SDK client in flow.test.ts hides most of it):
 * JSON-RPC envelopes, batches, notifications, headers, and answers going to the right caller.
 *
 * Since /mcp runs on @modelcontextprotocol/server 2.x (createMcpHandler), these wire details
 * changed, the behaviour did not: a 2025-era request is answered as an SSE stream of one message
 * (the SDK's stateless legacy serving; a lone tools/call gets the same JSON as a plain JSON body) and needs Accept with both application/json and
 * text/event-stream; a batch's answers come in completion order; an unknown tool or one outside
 * the served toolsets is JSON-RPC -32602 (was a NOT_FOUND tool result); a tool failing inside is an
 * INTERNAL tool result that names nothing of the server's insides (was -32603 with the message).
 * 2026-07-28 requests are covered in protocol-2026.test.ts.
 */
let t: TestServer;
let other: TestAccount;

beforeAll(async () => {
  t = await startTestServer({ workers: false });
  other = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

async function post(body: unknown, opts: { key?: string; headers?: Record<string, string>; query?: string; raw?: string } = {}) {
  const res = await fetch(`${t.url}/mcp${opts.query ?? ''}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': opts.key ?? t.account.apiKey, ...opts.headers },
    body: opts.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: parseAnswer(text) };
}

/** A JSON body, or the JSON-RPC message of an SSE stream of one message (the SDK's stateless 2025 answer). */
function parseAnswer(text: string): any {
  if (!text) return undefined;
  if (!text.startsWith('event:') && !text.startsWith('data:')) return JSON.parse(text);
  const data = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  return data.length === 1 ? data[0] : data;
}

const call = (id: unknown, name: string, args?: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...(args === undefined ? {} : { arguments: args }) } });

describe('POST /mcp on the wire', () => {
  it('answers a tools/call with the text block and structuredContent carrying the same JSON', async () => {
    const r = await post(call(1, 'list_sendernames', {}));
    expect(r.status).toBe(200);
    // A lone tools/call takes the fast path (fast-path.ts) and is answered with the JSON itself; the
    // SDK answers other 2025 requests as one SSE event carrying the same JSON.
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const listed = await post({ jsonrpc: '2.0', id: 'l', method: 'tools/list' });
    expect(listed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.json).toMatchObject({ jsonrpc: '2.0', id: 1 });
    const result = r.json.result;
    expect(result.isError).toBeUndefined();
    expect(result.content).toHaveLength(1);
    expect(result.content[0].type).toBe('text');
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(result.structuredContent).toMatchObject({ success: true, count: 3 });
  });

  it('keeps ids as given: strings, zero, large integers', async () => {
    for (const id of ['abc', 0, 2 ** 40, '']) {
      const r = await post(call(id, 'list_sendernames'));
      expect(r.json.id).toBe(id);
      expect(r.json.result.structuredContent.count).toBe(3);
    }
  });

  it('answers each caller with its own account, even with the same JSON-RPC id at the same time', async () => {
    const [mine, theirs] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => post(call(1, 'list_sendernames', {})))),
      Promise.all(Array.from({ length: 8 }, () => post(call(1, 'list_sendernames', {}), { key: other.apiKey }))),
    ]);
    for (const r of mine) expect(r.json.result.structuredContent.sendernames.map((s: { id: string }) => s.id)).toContain(t.account.senders.rcs);
    for (const r of theirs) {
      const ids = r.json.result.structuredContent.sendernames.map((s: { id: string }) => s.id);
      expect(ids).toContain(other.senders.rcs);
      expect(ids).not.toContain(t.account.senders.rcs);
    }
  });

  it('reports a caller mistake as a tool result with isError and no structuredContent', async () => {
    const r = await post(call(2, 'list_sendernames', { type: 'FAX' }));
    expect(r.status).toBe(200);
    expect(r.json.result.isError).toBe(true);
    expect(r.json.result.structuredContent).toBeUndefined();
    expect(JSON.parse(r.json.result.content[0].text).error).toMatchObject({ code: 'VALIDATION_ERROR', nextStep: expect.any(String) });
    const unknown = await post(call(3, 'no_such_tool', {}));
    expect(unknown.json).toMatchObject({ id: 3, error: { code: -32602, message: 'Tool no_such_tool not found' } });
  });

  it('leaves malformed tools/call params to the SDK path, which answers a JSON-RPC error', async () => {
    // -32602 Invalid params naming the path (server.ts), not the SDK's -32603 with a zod dump.
    const noName = await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { arguments: {} } });
    expect(noName.json).toMatchObject({ jsonrpc: '2.0', id: 4, error: { code: -32602, message: expect.stringContaining('name') } });
    const badArgs = await post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'list_sendernames', arguments: [1] } });
    expect(badArgs.json).toMatchObject({ id: 5, error: { code: -32602, message: expect.stringContaining('arguments') } });
    expect(badArgs.json.error.message).toBe('Invalid params: params.arguments: expected an object, received array');
  });

  it('lists the tools of the filter', async () => {
    const all = await post({ jsonrpc: '2.0', id: 'l', method: 'tools/list' });
    expect(all.json.result.tools).toHaveLength(51);
    const ro = await post({ jsonrpc: '2.0', id: 'l', method: 'tools/list', params: {} }, { query: '?readonly=1' });
    expect(ro.json.result.tools.length).toBeLessThan(51);
    expect(ro.json.result.tools.every((x: { annotations: { readOnlyHint: boolean } }) => x.annotations.readOnlyHint)).toBe(true);
    const sub = await post(call(6, 'rcs_jobs', {}), { query: '?toolsets=contacts' });
    expect(sub.json).toMatchObject({ id: 6, error: { code: -32602 } });
    // The same order on every call (2026-07-28 asks for a deterministic order): the catalog's.
    expect((await post({ jsonrpc: '2.0', id: 'l', method: 'tools/list' })).json.result.tools.map((x: { name: string }) => x.name)).toEqual(all.json.result.tools.map((x: { name: string }) => x.name));
  });

  it('negotiates the protocol version in initialize', async () => {
    const init = (protocolVersion: string) => ({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'wire', version: '1' } } });
    const known = await post(init('2025-03-26'));
    expect(known.json.result).toMatchObject({ protocolVersion: '2025-03-26', serverInfo: { name: 'rcs-sms-mcp-server' }, capabilities: { tools: { listChanged: false }, resources: { listChanged: false } } });
    expect(known.json.result.instructions).toContain('rcs_validate');
    const unknown = await post(init('1999-01-01'));
    expect(unknown.json.result.protocolVersion).toBe('2025-11-25');
  });

  it('answers a batch in request order and skips notifications', async () => {
    const r = await post([call('a', 'list_sendernames'), { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 7, method: 'ping' }, call('c', 'rcs_validate_schedule_time', { scheduleAt: '2030-01-01T10:00:00Z' })]);
    expect(r.status).toBe(200);
    const byId = new Map(r.json.map((m: { id: unknown }) => [m.id, m]));
    expect([...byId.keys()].sort()).toEqual([7, 'a', 'c'].sort());
    expect((byId.get('a') as any).result.structuredContent.count).toBe(3);
    expect((byId.get(7) as any).result).toEqual({});
    expect((byId.get('c') as any).result.isError).toBeUndefined();
  });

  it('accepts notifications alone with 202 and no body', async () => {
    const r = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
  });

  it('answers an unknown method with a JSON-RPC error', async () => {
    const r = await post({ jsonrpc: '2.0', id: 8, method: 'prompts/list' });
    expect(r.json).toMatchObject({ jsonrpc: '2.0', id: 8, error: { code: -32601 } });
  });

  it('refuses what is not a JSON-RPC message, an empty batch, and bad JSON', async () => {
    expect((await post({ hello: 'world' })).json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect((await post({ hello: 'world' })).status).toBe(400);
    expect((await post([])).status).toBe(400);
    expect((await post({ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' })).status).toBe(400);
    expect((await post(undefined, { raw: '{"jsonrpc":' })).status).toBe(400);
  });

  it('checks the Accept and MCP-Protocol-Version headers', async () => {
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { headers: { Accept: 'text/html' } })).status).toBe(406);
    const bad = await post(call(1, 'list_sendernames'), { headers: { 'MCP-Protocol-Version': '1999-01-01' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('Unsupported protocol version: 1999-01-01');
    expect((await post(call(1, 'list_sendernames'), { headers: { 'MCP-Protocol-Version': '2025-06-18' } })).status).toBe(200);
  });

  it('answers a tool that fails inside with an INTERNAL tool error naming nothing of the server, and logs it', async () => {
    const senders = t.ctx.services.senders;
    const list = senders.list;
    senders.list = async () => {
      throw new Error('database on fire');
    };
    try {
      const r = await post(call(17, 'list_sendernames', {}));
      expect(r.json.id).toBe(17);
      expect(r.json.result.isError).toBe(true);
      expect(r.text).not.toContain('database on fire');
      expect(JSON.parse(r.json.result.content[0].text).error).toMatchObject({ code: 'INTERNAL', nextStep: expect.stringContaining('server bug') });
    } finally {
      senders.list = list;
    }
  });

  it('serves /mcp/ with a trailing slash, and nothing below /mcp', async () => {
    const res = await fetch(`${t.url}/mcp/`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': t.account.apiKey }, body: JSON.stringify(call(1, 'list_sendernames')) });
    expect(res.status).toBe(200);
    expect(parseAnswer(await res.text()).result.structuredContent.count).toBe(3);
    const below = await fetch(`${t.url}/mcp/other`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': t.account.apiKey }, body: JSON.stringify(call(1, 'list_sendernames')) });
    expect(below.status).toBe(404);
  });

  it('answers GET with 405 and Allow: POST', async () => {
    const res = await fetch(`${t.url}/mcp`, { headers: { 'X-API-Key': t.account.apiKey, Accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
