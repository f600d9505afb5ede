import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue #42: malformed requests to /mcp wrote the SDK's stack traces to the log (a warn line with `err.stack` per
 * refusal: wrong Content-Type, not JSON-RPC, empty or invalid batches, 2026 envelopes that disagree with their
 * headers). Each is a clean 4xx JSON-RPC error and exactly one log line (the request's, info level) naming why,
 * without a stack. And an unsupported protocol version is answered with every version the server speaks.
 */
let t: TestServer;
const lines: string[] = [];
beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  t = await startTestServer({ workers: false, logger: pino({ level: 'info', base: undefined }, sink) });
});
afterAll(async () => {
  await t?.close();
});

const VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];
const envelope = (v: string) => ({ 'io.modelcontextprotocol/protocolVersion': v, 'io.modelcontextprotocol/clientInfo': { name: 'wire', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} });
const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

async function send(method: string, headers: Record<string, string>, body: string | undefined) {
  const before = lines.length;
  const res = await fetch(`${t.url}/mcp`, {
    method,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': t.account.apiKey, ...headers },
    ...(body !== undefined && { body }),
  });
  const text = await res.text();
  // The request line is written on 'finish'; give the logger the turn it needs.
  for (let i = 0; i < 50 && lines.length === before; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 20));
  return { status: res.status, type: res.headers.get('content-type') ?? '', json: JSON.parse(text), logs: lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('malformed /mcp requests', () => {
  const cases: [string, string, Record<string, string>, string | undefined, number][] = [
    ['broken JSON', 'POST', {}, '{"jsonrpc":', 400],
    ['Content-Type text/plain', 'POST', { 'Content-Type': 'text/plain' }, ping, 415],
    ['no Content-Type', 'POST', { 'Content-Type': '' }, ping, 415],
    ['a form body', 'POST', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'a=b', 415],
    ['a JSON object that is no JSON-RPC message', 'POST', {}, '{"hello":"world"}', 400],
    ['jsonrpc 1.0', 'POST', {}, '{"jsonrpc":"1.0","id":1,"method":"ping"}', 400],
    ['an object as id', 'POST', {}, '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}', 400],
    ['a number as method', 'POST', {}, '{"jsonrpc":"2.0","id":1,"method":5}', 400],
    ['invalid UTF-8', 'POST', {}, '\u00ff', 400],
    ['an empty body', 'POST', {}, '', 400],
    ['an empty batch', 'POST', {}, '[]', 400],
    ['a batch of numbers', 'POST', {}, '[1,2,3]', 400],
    ['a batch with one invalid message', 'POST', {}, `[${ping},{"bad":1}]`, 400],
    ['a JSON primitive', 'POST', {}, '42', 400],
    ['an oversize body', 'POST', {}, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { x: 'a'.repeat(3_000_000) } }), 413],
    ['a body nested too deep', 'POST', {}, '['.repeat(5000) + ']'.repeat(5000), 400],
    ['a body that is not gzip as it says', 'POST', { 'Content-Encoding': 'gzip' }, 'notgzip', 400],
    ['GET without a session', 'GET', { Accept: 'text/event-stream' }, undefined, 405],
    ['DELETE without a session', 'DELETE', {}, undefined, 405],
    ['Accept without text/event-stream', 'POST', { Accept: 'text/html' }, ping, 406],
    ['a 2026 envelope disagreeing with its header', 'POST', { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope('2025-01-01') } }), 400],
    ['a 2026 request without Mcp-Method', 'POST', { 'MCP-Protocol-Version': '2026-07-28' }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope('2026-07-28') } }), 400],
    ['an unsupported MCP-Protocol-Version', 'POST', { 'MCP-Protocol-Version': '1999-01-01' }, ping, 400],
  ];

  it.each(cases)('%s: a 4xx JSON-RPC error and one log line without a stack', async (_name, method, headers, body, status) => {
    const r = await send(method, headers, body);
    expect(r.status).toBe(status);
    expect(r.type).toMatch(/^application\/json/);
    expect(r.json).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) } });
    expect(r.logs, JSON.stringify(r.logs)).toHaveLength(1);
    const [line] = r.logs;
    expect(line).toMatchObject({ msg: 'request', status, level: 30 });
    expect(JSON.stringify(line)).not.toMatch(/stack|\n\s+at /);
    // Not for 406: the SDK answers it without telling why; the status says it.
    if (status !== 406) expect(typeof line!.note).toBe('string');
  });
});

describe('an unsupported protocol version', () => {
  it('by header, on a 2025 request: the error lists 2026-07-28 and the 2025 revisions', async () => {
    const r = await send('POST', { 'MCP-Protocol-Version': '2024-01-01' }, '{"jsonrpc":"2.0","id":7,"method":"tools/list"}');
    expect(r.status).toBe(400);
    expect(r.json.id).toBe(7);
    expect(r.json.error.data.supported).toEqual(expect.arrayContaining(VERSIONS));
    expect(r.json.error.data.requested).toBe('2024-01-01');
    for (const v of VERSIONS) expect(r.json.error.message).toContain(v);
  });

  it('in a 2026 envelope (header and body alike): the error names the 2025 revisions too, not only 2026-07-28', async () => {
    const r = await send('POST', { 'MCP-Protocol-Version': '2027-01-01', 'Mcp-Method': 'tools/list' }, JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'tools/list', params: { _meta: envelope('2027-01-01') } }));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ id: 'x', error: { code: -32022, data: { requested: '2027-01-01' } } });
    // data.supported is what server/discover lists (SEP-2575: the client retries in the same envelope); the 2025
    // revisions are named in the message and in data.legacyVersions.
    expect(r.json.error.data.supported).toEqual(['2026-07-28']);
    expect(r.json.error.data.legacyVersions).toEqual(expect.arrayContaining(VERSIONS.filter((v) => v !== '2026-07-28')));
    for (const v of VERSIONS) expect(r.json.error.message).toContain(v);
    const bodyOnly = await send('POST', { 'Mcp-Method': 'tools/list' }, JSON.stringify({ jsonrpc: '2.0', id: 'y', method: 'tools/list', params: { _meta: envelope('2027-01-01') } }));
    expect(bodyOnly.status).toBe(400);
    expect(bodyOnly.json.error.data.supported).toEqual(['2026-07-28']);
    expect(bodyOnly.json.error.data.legacyVersions).toEqual(expect.arrayContaining(VERSIONS.filter((v) => v !== '2026-07-28')));
  });

  it('initialize negotiates instead (2025 specification): an unknown version is answered with the newest 2025 revision', async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': t.account.apiKey },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"protocolVersion":"2025-11-25"');
  });
});
