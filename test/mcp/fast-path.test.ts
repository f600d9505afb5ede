import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpBodyError, mcpHandler } from '../../src/mcp/routes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The fast path (src/mcp/fast-path.ts) must answer exactly what the SDK answers: the same
 * requests go to /mcp (fast path on) and to a second mount of the same handler with the fast path
 * off, and the JSON-RPC answers must be identical, for both eras. The 2025 SDK answer is an SSE
 * event carrying the same JSON; the fast path answers the JSON itself.
 */
let t: TestServer;
let sdkOnly: http.Server;
let sdkUrl: string;

beforeAll(async () => {
  t = await startTestServer({ workers: false });
  const app = express();
  app.all('/mcp', express.json(), mcpHandler(t.ctx, { fastPath: false }), mcpBodyError);
  sdkOnly = http.createServer(app);
  await new Promise<void>((r) => sdkOnly.listen(0, '127.0.0.1', r));
  sdkUrl = `http://127.0.0.1:${(sdkOnly.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  sdkOnly.close();
  await t.close();
});

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'parity', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

async function send(url: string, body: Record<string, any>, modern: boolean, key = t.account.apiKey) {
  const name = body.params?.name;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': key, ...(modern && { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': String(name) }) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const json = text.startsWith('event:') ? text.split('\n').find((l) => l.startsWith('data: '))!.slice(6) : text;
  return { status: res.status, type: res.headers.get('content-type'), json };
}

const card = { messageType: 'richCard', content: { title: 'Sale', description: 'Hi {{contact_first_name}}', suggestions: [{ reply: { text: 'Yes', postbackData: 'yes' } }] } };

describe('the fast path answers as the SDK does', () => {
  const calls: Array<[string, Record<string, unknown> | undefined, Record<string, unknown>?]> = [
    ['list_sendernames', {}],
    ['list_sendernames', undefined],
    ['list_sendernames', { type: 'SMS' }],
    ['list_sendernames', { type: 'FAX' }],
    ['rcs_validate', card],
    ['rcs_validate', { ...card, content: { title: 'x'.repeat(300) } }],
    ['rcs_validate_schedule_time', { scheduleAt: '2030-01-01T10:00:00Z' }],
    ['rcs_send', { phoneNumber: '+4915112340001', preview_id: 'prv_01ARZ3NDEKTSV4RRFFQ69G5FAV' }],
    ['list_sendernames', {}, { progressToken: 'p1' }],
  ];
  for (const modern of [false, true]) {
    for (const [i, [name, args, meta]] of calls.entries()) {
      it(`${modern ? '2026-07-28' : '2025'}: ${name} #${i}`, async () => {
        const params = { name, ...(args !== undefined && { arguments: args }), ...((modern || meta) && { _meta: { ...(modern ? ENVELOPE : {}), ...meta } }) };
        const body = { jsonrpc: '2.0', id: i % 2 ? `s${i}` : i, method: 'tools/call', params };
        const fast = await send(`${t.url}/mcp`, body, modern);
        const sdk = await send(sdkUrl, body, modern);
        expect(fast.status).toBe(sdk.status);
        expect(fast.type).toMatch(/^application\/json/);
        expect(fast.json).toBe(sdk.json);
      });
    }
  }

  it('answers a key lacking the permission with the same FORBIDDEN result', async () => {
    const key = await t.createKey(t.account.accountId, ['contacts:read']);
    for (const modern of [false, true]) {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'rcs_preview', arguments: card, ...(modern && { _meta: ENVELOPE }) } };
      const fast = await send(`${t.url}/mcp`, body, modern, key);
      expect(fast.json).toBe((await send(sdkUrl, body, modern, key)).json);
      expect(fast.json).toContain('FORBIDDEN');
    }
  });
});
