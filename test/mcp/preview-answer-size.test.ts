import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FakeClock } from '../../src/platform/clock.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { body, mcpClient } from './helpers.js';

/**
 * Issue #42: a preview of 10,000 recipients answered 172 KB of text on MCP (the payload repeated every number). The
 * answer now counts the recipients, names the first refused ones and says where the numbers are paged
 * (GET /api/rcs/previews/{id}/recipients); a batch's echoed payload may leave phoneNumbers out.
 */
const clock = new FakeClock(Date.UTC(2026, 10, 22, 9, 0, 0));
let t: TestServer;
let c: Client;

beforeAll(async () => {
  t = await startTestServer({ clock });
  c = await mcpClient(t.url, t.account.apiKey);
});
afterAll(async () => {
  await c?.close();
  await t?.close();
});

/** n distinct German mobile numbers; every 500th one is not a phone number at all (refused). */
const numbers = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ((from + i) % 500 === 499 ? `bad-${from + i}` : `+4915${String(200_000_000 + from + i)}`));
const batch = (phoneNumbers: string[]) => ({
  phoneNumbers,
  messageType: 'text',
  content: { text: 'Hi {{contact_first_name}}, 20% off today' },
  sendernameId: t.account.senders.rcs,
  smsFallback: { message: '20% off today', sendernameId: t.account.senders.sms },
  campaignName: 'size',
});

/** The text an MCP client reads: every text block of the result. */
const textBytes = (r: unknown) => ((r as { content: { type: string; text?: string }[] }).content).reduce((n, b) => n + Buffer.byteLength(b.text ?? '', 'utf8'), 0);

describe('a preview answer does not grow with the recipient list', () => {
  it('10,000 recipients answer a few KB on MCP and REST, the order of a 10-recipient preview; the numbers page on their own route', async () => {
    const small = await c.callTool({ name: 'rcs_preview', arguments: batch(numbers(10, 20_000)) });
    const big = await c.callTool({ name: 'rcs_preview', arguments: batch(numbers(10_000)) });
    expect(big.isError, JSON.stringify(big).slice(0, 500)).toBeFalsy();
    const b = body(big);
    expect(b.recipients).toMatchObject({ accepted: 9_980, rejectedCount: 20, phoneNumbers: 10_000, listedAt: `/api/rcs/previews/${b.preview_id}/recipients` });
    expect(b.recipients.rejected).toHaveLength(10);
    expect(b.payload.phoneNumbers).toBeUndefined();
    expect(b.nextStep).toContain(`GET /api/rcs/previews/${b.preview_id}/recipients`);
    const bigBytes = textBytes(big);
    const smallBytes = textBytes(small);
    expect(bigBytes).toBeLessThan(8 * 1024);
    // The same order as ten recipients: the ten refused numbers it names are the difference.
    expect(bigBytes).toBeLessThan(smallBytes * 2);
    expect(Buffer.byteLength(JSON.stringify(big.structuredContent))).toBeLessThan(8 * 1024);

    // REST: the same answer for the same preview, and POST /previews/send-batch answers as small.
    const got = await t.api('GET', `/api/rcs/previews/${b.preview_id}`);
    expect(got.status).toBe(200);
    expect(Buffer.byteLength(JSON.stringify(got.body))).toBeLessThan(8 * 1024);
    const rest = await t.api('POST', '/api/rcs/previews/send-batch', batch(numbers(10_000, 10_000)));
    expect(rest.status, JSON.stringify(rest.body).slice(0, 300)).toBe(201);
    expect(Buffer.byteLength(JSON.stringify(rest.body))).toBeLessThan(8 * 1024);

    // The numbers, a page at a time, in the payload's order; the refused ones with why.
    const page = await t.api('GET', `/api/rcs/previews/${b.preview_id}/recipients?page=3&limit=1000`);
    expect(page.status).toBe(200);
    expect(page.body.pagination).toMatchObject({ page: 3, limit: 1000, total: 10_000, totalPages: 10 });
    expect(page.body.data.map((r: { phoneNumber: string }) => r.phoneNumber)).toEqual(numbers(10_000).slice(2000, 3000));
    const refused = await t.api('GET', `/api/rcs/previews/${b.preview_id}/recipients?rejected=true&limit=100`);
    expect(refused.body.pagination.total).toBe(20);
    expect(refused.body.data[0]).toMatchObject({ phoneNumber: 'bad-499', code: expect.any(String), reason: expect.any(String) });
    expect((await t.api('GET', `/api/rcs/previews/${b.preview_id}/recipients?limit=1001`)).status).toBe(400);
    expect((await t.api('GET', `/api/rcs/previews/prv_01JZZZZZZZZZZZZZZZZZZZZZZZ/recipients`)).status).toBe(404);
  });

  it('the answered payload (without phoneNumbers) sends the previewed batch; a changed field is still refused', async () => {
    const p = body(await c.callTool({ name: 'rcs_preview', arguments: batch(numbers(10, 30_000)) }));
    expect(p.payload.phoneNumbers).toBeUndefined();
    const web = new WebClient(t.url);
    const path = new URL(p.share_url).pathname;
    await web.login(t.account.email, t.account.password, t.account.totpSecret, path, clock.now());
    const page = await web.get(path);
    const res = await web.post(`${path}/approve`, { csrf: WebClient.hidden(page.text, 'csrf'), fingerprint: WebClient.hidden(page.text, 'fingerprint') });
    expect(res.status).toBe(303);
    const changed = body(await c.callTool({ name: 'rcs_send_batch', arguments: { preview_id: p.preview_id, payload: { ...p.payload, campaignName: 'other' } } }));
    expect(changed.error.code).toBe('PREVIEW_MISMATCH');
    const fewer = body(await c.callTool({ name: 'rcs_send_batch', arguments: { preview_id: p.preview_id, payload: { ...p.payload, phoneNumbers: numbers(9, 30_000) } } }));
    expect(fewer.error.code).toBe('PREVIEW_MISMATCH');
    const sent = await c.callTool({ name: 'rcs_send_batch', arguments: { preview_id: p.preview_id, payload: p.payload } });
    expect(sent.isError, JSON.stringify(sent)).toBeFalsy();
    expect(body(sent).jobId).toMatch(/^job_/);
  });
});
