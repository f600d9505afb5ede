import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * The wire behaviour of POST /mcp, byte level (the SDK client in flow.test.ts hides most of it):
 * JSON-RPC envelopes, batches, notifications, headers, and answers going to the right caller.
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
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

const call = (id: unknown, name: string, args?: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...(args === undefined ? {} : { arguments: args }) } });

describe('POST /mcp on the wire', () => {
  it('answers a tools/call with the text block and structuredContent carrying the same JSON', async () => {
    const r = await post(call(1, 'list_sendernames', {}));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
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
    expect(JSON.parse(unknown.json.result.content[0].text).error.code).toBe('NOT_FOUND');
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
    expect(JSON.parse(sub.json.result.content[0].text).error.code).toBe('NOT_FOUND');
  });

  it('negotiates the protocol version in initialize', async () => {
    const init = (protocolVersion: string) => ({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'wire', version: '1' } } });
    const known = await post(init('2025-03-26'));
    expect(known.json.result).toMatchObject({ protocolVersion: '2025-03-26', serverInfo: { name: 'rcs-sms-mcp-server' }, capabilities: { tools: { listChanged: false } } });
    expect(known.json.result.instructions).toContain('rcs_validate');
    const unknown = await post(init('1999-01-01'));
    expect(unknown.json.result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('answers a batch in request order and skips notifications', async () => {
    const r = await post([call('a', 'list_sendernames'), { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 7, method: 'ping' }, call('c', 'rcs_validate_schedule_time', { scheduleAt: '2030-01-01T10:00:00Z' })]);
    expect(r.status).toBe(200);
    expect(r.json.map((m: { id: unknown }) => m.id)).toEqual(['a', 7, 'c']);
    expect(r.json[0].result.structuredContent.count).toBe(3);
    expect(r.json[1].result).toEqual({});
    expect(r.json[2].result.isError).toBeUndefined();
  });

  it('accepts notifications alone with 202 and no body', async () => {
    const r = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
  });

  it('answers an unknown method with a JSON-RPC error', async () => {
    const r = await post({ jsonrpc: '2.0', id: 8, method: 'resources/list' });
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
    expect(bad.json.error.message).toContain('Unsupported MCP-Protocol-Version');
    expect((await post(call(1, 'list_sendernames'), { headers: { 'MCP-Protocol-Version': '2025-06-18' } })).status).toBe(200);
  });

  it('answers a single request exactly as the SDK answers it inside a batch', async () => {
    // A lone tools/call or tools/list is answered without the SDK's Protocol (src/mcp/direct.ts);
    // in a batch the same request goes through the SDK's Server: the answers must be identical.
    const card = { messageType: 'richCard', content: { title: 'Sale', description: 'Hi {{contact_first_name}}', suggestions: [{ reply: { text: 'Yes', postbackData: 'yes' } }] } };
    const messages = [
      call(9, 'list_sendernames', {}),
      call('s', 'list_sendernames', { type: 'SMS' }),
      call(10, 'list_sendernames', { type: 'FAX' }),
      call(11, 'no_such_tool'),
      call(12, 'rcs_validate', card),
      call(13, 'rcs_validate', { ...card, content: { title: 'x'.repeat(300) } }),
      { jsonrpc: '2.0', id: 14, method: 'tools/call', params: { name: 'list_sendernames', arguments: {}, _meta: { progressToken: 'p1' } } },
      { jsonrpc: '2.0', id: 15, method: 'tools/list' },
      { jsonrpc: '2.0', id: 16, method: 'tools/list', params: { cursor: 'c' } },
    ];
    for (const m of messages) {
      const single = await post(m);
      const batch = await post([m]);
      expect(single.status).toBe(200);
      expect(single.text).toBe(JSON.stringify(batch.json[0]));
    }
  });

  it('answers a tool that fails inside with the same JSON-RPC error on both paths', async () => {
    const senders = t.ctx.services.senders;
    const list = senders.list;
    senders.list = async () => {
      throw new Error('database on fire');
    };
    try {
      const single = await post(call(17, 'list_sendernames', {}));
      const batch = await post([call(17, 'list_sendernames', {})]);
      expect(single.json).toEqual({ jsonrpc: '2.0', id: 17, error: { code: -32603, message: 'database on fire' } });
      expect(single.text).toBe(JSON.stringify(batch.json[0]));
    } finally {
      senders.list = list;
    }
  });

  it('serves /mcp/ with a trailing slash, and nothing below /mcp', async () => {
    const res = await fetch(`${t.url}/mcp/`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-API-Key': t.account.apiKey }, body: JSON.stringify(call(1, 'list_sendernames')) });
    expect(res.status).toBe(200);
    expect((await res.json()).result.structuredContent.count).toBe(3);
    const below = await fetch(`${t.url}/mcp/other`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': t.account.apiKey }, body: JSON.stringify(call(1, 'list_sendernames')) });
    expect(below.status).toBe(404);
  });

  it('answers GET with 405 and Allow: POST', async () => {
    const res = await fetch(`${t.url}/mcp`, { headers: { 'X-API-Key': t.account.apiKey, Accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
