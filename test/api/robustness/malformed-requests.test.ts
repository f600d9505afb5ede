import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * Inputs that once answered 500 (issue #30): each is the caller's mistake and gets a 4xx in the
 * project's error shape (a JSON-RPC error on /mcp), never a 5xx.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function raw(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<Raw> {
  const u = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers: { ...(body !== undefined && { 'Content-Length': String(Buffer.byteLength(body)) }), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const restError = (r: Raw) => (JSON.parse(r.text) as { success: boolean; error: { code: string } }).error.code;
const rpcError = (r: Raw) => (JSON.parse(r.text) as { jsonrpc: string; error: { code: number } }).error.code;

describe('malformed requests get a 4xx, never a 500', () => {
  it('a bad percent-escape in a path (with and without a key)', async () => {
    for (const path of ['/u/%FF', '/f/%ZZ', '/api/v1/contacts/%ZZ', '/preview/%E0%A4%A']) {
      const r = await raw('GET', path, { 'X-API-Key': t.account.apiKey, Accept: 'application/json' });
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(r.status, path).toBeLessThan(500);
    }
  });

  it('a form body with more than 1,000 parameters', async () => {
    const body = Array.from({ length: 1500 }, (_, i) => `p${i}=x`).join('&');
    for (const path of ['/login', '/f/some-form', '/console/settings']) {
      const r = await raw('POST', path, { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body);
      expect(r.status, path).toBe(413);
      expect(restError(r)).toBe('PAYLOAD_TOO_LARGE');
    }
  });

  it('Content-Encoding gzip on a body that is not gzip; an unknown encoding', async () => {
    const r = await raw('POST', '/api/rcs/validate', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'X-API-Key': t.account.apiKey }, '{"messageType":"text"}');
    expect(r.status).toBe(400);
    expect(restError(r)).toBe('VALIDATION_ERROR');
    expect(JSON.parse(r.text).error.details[0].code).toBe('invalid_encoding');
    const br = await raw('POST', '/api/rcs/validate', { 'Content-Type': 'application/json', 'Content-Encoding': 'x-unknown', 'X-API-Key': t.account.apiKey }, '{}');
    expect(br.status).toBe(415);
    // A real gzip body is read.
    const ok = await raw('POST', '/api/rcs/validate', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'X-API-Key': t.account.apiKey }, gzipSync(JSON.stringify({ messageType: 'text', content: { text: 'hi' } })));
    expect(ok.status).toBe(200);
    // And on /mcp: a JSON-RPC parse error.
    const mcp = await raw('POST', '/mcp', { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Content-Encoding': 'gzip', 'X-API-Key': t.account.apiKey }, '{"jsonrpc":"2.0"}');
    expect(mcp.status).toBe(400);
    expect(rpcError(mcp)).toBe(-32700);
  });

  it('JSON nested 100,000 deep, on /mcp and on REST', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const deepObject = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rcs_validate","arguments":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}}`;
    for (const body of [deep, deepObject]) {
      const mcp = await raw('POST', '/mcp', { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': t.account.apiKey }, body);
      expect(mcp.status).toBeLessThan(500);
      expect(mcp.status).toBeGreaterThanOrEqual(200);
      const rest = await raw('POST', '/api/rcs/validate', { 'Content-Type': 'application/json', 'X-API-Key': t.account.apiKey }, body);
      expect(rest.status).toBeGreaterThanOrEqual(400);
      expect(rest.status).toBeLessThan(500);
    }
  });

  it('JSON-RPC: valid JSON that is not a request is -32600; an oversize body is a JSON-RPC error', async () => {
    for (const body of ['42', 'null', '"str"', 'true']) {
      const r = await raw('POST', '/mcp', { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': t.account.apiKey }, body);
      expect(r.status, body).toBe(400);
      expect(rpcError(r), body).toBe(-32600);
    }
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'rcs_validate', arguments: { pad: 'x'.repeat(3 * 1024 * 1024) } } });
    const r = await raw('POST', '/mcp', { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': t.account.apiKey }, big);
    expect(r.status).toBe(413);
    expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });
});

describe('what browsers ask for', () => {
  it('/favicon.ico is answered without a 404', async () => {
    const r = await raw('GET', '/favicon.ico');
    expect(r.status).toBe(204);
  });
});
