import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Client } from '@modelcontextprotocol/client';
import { FakeClock } from '../../src/platform/clock.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { body, mcpClient, mcpClient2026 } from './helpers.js';

/**
 * validate → preview → person approves → send, on both protocol lines against the same /mcp:
 * a 2026-07-28 client (@modelcontextprotocol/client 2.x, pinned) gets the approval as an
 * input_required URL elicitation of the share page and retries by itself; a 2026 client without
 * URL elicitation and a 2025 client (the 1.x SDK Client) get PREVIEW_NOT_APPROVED with the share URL.
 * Every structured result is checked against the tool's listed outputSchema here as well.
 */
const clock = new FakeClock(Date.UTC(2026, 10, 22, 9, 0, 0));
let t: TestServer;
const ajv = new Ajv2020({ strict: false });
const outputChecks = new Map<string, (v: unknown) => boolean>();

beforeAll(async () => {
  t = await startTestServer({ clock });
  const c = await mcpClient2026(t.url, t.account.apiKey);
  for (const tool of (await c.listTools()).tools) outputChecks.set(tool.name, ajv.compile(tool.outputSchema ?? {}));
  await c.close();
});
afterAll(async () => {
  await t.close();
});

const rcsPayload = (a: TestAccount, phoneNumber: string) => ({
  phoneNumber,
  messageType: 'richCard',
  content: { title: 'Spring sale', description: 'Hi {{contact_first_name}}, 20% off today', suggestions: [{ reply: { text: 'Yes please', postbackData: 'yes' } }] },
  sendernameId: a.senders.rcs,
  smsFallback: { message: '20% off today at Test Co', sendernameId: a.senders.sms },
});

/** A person logs in on the share page and approves: the only way to approve. */
async function approve(a: TestAccount, shareUrl: string) {
  const web = new WebClient(t.url);
  const path = new URL(shareUrl).pathname;
  await web.login(a.email, a.password, a.totpSecret, path, clock.now());
  const page = await web.get(path);
  expect(page.status).toBe(200);
  const res = await web.post(`${path}/approve`, { csrf: WebClient.hidden(page.text, 'csrf') });
  expect(res.status).toBe(303);
  clock.advance(31_000);
}

async function call(c: { callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown> }, name: string, args: Record<string, unknown>) {
  const r = (await c.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: unknown };
  if (!r.isError) expect(outputChecks.get(name)?.(r.structuredContent), `${name} result matches its outputSchema`).toBe(true);
  return { isError: Boolean(r.isError), body: body(r) };
}

describe('2026-07-28 client with URL elicitation', () => {
  it('validate → preview → the person approves through the elicited share page → send, once', async () => {
    const opened: string[] = [];
    let sharePage = '';
    const c: Client = await mcpClient2026(t.url, t.account.apiKey, {
      onUrl: async ({ url }) => {
        opened.push(url);
        // The client opens the page for the person (with their consent); they log in and approve.
        await approve(t.account, url);
        return { action: 'accept' };
      },
    });
    expect(c.getProtocolEra()).toBe('modern');

    const v = await call(c, 'rcs_validate', { messageType: 'richCard', content: rcsPayload(t.account, '+4915112349001').content, smsFallback: { message: 'x' } });
    expect(v.body.valid).toBe(true);

    const p = await call(c, 'rcs_preview', rcsPayload(t.account, '+4915112349001'));
    expect(p.body).toMatchObject({ approval_required: true, status: 'pending', send_with: 'rcs_send' });
    sharePage = p.body.share_url;

    const sent = await call(c, 'rcs_send', { preview_id: p.body.preview_id, payload: p.body.payload });
    expect(opened).toEqual([sharePage]);
    expect(sent.isError).toBe(false);
    expect(sent.body).toMatchObject({ success: true, method: 'RCS' });

    // The retry of an already sent preview answers the first result, with no new elicitation.
    const again = await call(c, 'rcs_send', { preview_id: p.body.preview_id, payload: p.body.payload });
    expect(again.body).toEqual(sent.body);
    expect(opened).toHaveLength(1);
    const rows = await t.ctx.db.selectFrom('sim_messages').selectAll().where('message_id', '=', sent.body.messageRecordId).execute();
    expect(rows).toHaveLength(1);
    await c.close();
  });

  it('sends nothing when the person does not approve: declined, or accepted without approving', async () => {
    const declined = await mcpClient2026(t.url, t.account.apiKey, { onUrl: async () => ({ action: 'decline' }) });
    const p = await call(declined, 'sms_preview', { phoneNumber: '+4915112349002', message: 'Hello', sendernameId: t.account.senders.sms });
    const r = await call(declined, 'sms_send', { preview_id: p.body.preview_id, payload: { phoneNumber: '+4915112349002', message: 'Hello', sendernameId: t.account.senders.sms } });
    expect(r.isError).toBe(true);
    expect(r.body.error).toMatchObject({ code: 'PREVIEW_NOT_APPROVED', share_url: p.body.share_url });
    // The person said no: the assistant is not told to ask them to approve again.
    expect(r.body.error.nextStep).toContain('declined to open the approval page');
    expect(r.body.error.nextStep).not.toMatch(/ask the user to (open|approve)/i);
    await declined.close();

    let rounds = 0;
    const idle = await mcpClient2026(t.url, t.account.apiKey, {
      onUrl: async () => {
        rounds++;
        return { action: 'accept' };
      },
    });
    const r2 = await call(idle, 'sms_send', { preview_id: p.body.preview_id, payload: { phoneNumber: '+4915112349002', message: 'Hello', sendernameId: t.account.senders.sms } });
    expect(r2.body.error.code).toBe('PREVIEW_NOT_APPROVED');
    expect(rounds).toBe(3);
    const row = await t.ctx.db.selectFrom('previews').select(['status', 'result']).where('id', '=', p.body.preview_id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'pending', result: null });
    await idle.close();
  });

  it('answers the input_required result on the wire with the share URL and a sealed request state', async () => {
    const p = body(await (await mcpClient(t.url, t.account.apiKey)).callTool({ name: 'sms_preview', arguments: { phoneNumber: '+4915112349003', message: 'Hi', sendernameId: t.account.senders.sms } }));
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'wire', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } };
    const params = { name: 'sms_send', arguments: { preview_id: p.preview_id, payload: { phoneNumber: '+4915112349003', message: 'Hi', sendernameId: t.account.senders.sms } }, _meta: meta };
    const post = async (extra: Record<string, unknown> = {}) => {
      const res = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': t.account.apiKey, 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'sms_send' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, ...extra } }),
      });
      return { status: res.status, json: (await res.json()) };
    };
    const first = await post();
    expect(first.status).toBe(200);
    expect(first.json.result).toMatchObject({ resultType: 'input_required', inputRequests: { approval: { method: 'elicitation/create', params: { mode: 'url', url: p.share_url } } } });
    expect(typeof first.json.result.requestState).toBe('string');
    // Tampered state is refused before any tool runs.
    const tampered = await post({ requestState: `${first.json.result.requestState}x`, inputResponses: { approval: { action: 'accept' } } });
    expect(tampered.json.error.code).toBe(-32602);
    // Another account cannot replay the state.
    const other = await t.createAccount();
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': other.apiKey, 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'sms_send' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, requestState: first.json.result.requestState, inputResponses: { approval: { action: 'accept' } } } }),
    });
    expect(((await res.json())).error.code).toBe(-32602);
  });
});

describe('clients that cannot be asked in the protocol', () => {
  it('a 2026 client without URL elicitation, and a 2025 client, get PREVIEW_NOT_APPROVED with the share URL, then send after approval', async () => {
    const modern = await mcpClient2026(t.url, t.account.apiKey);
    const legacy = await mcpClient(t.url, t.account.apiKey);
    expect(modern.getProtocolEra()).toBe('modern');
    for (const [i, c] of [modern, legacy].entries()) {
      const phone = `+491511234901${i}`;
      const v = await call(c, 'rcs_validate', { messageType: 'richCard', content: rcsPayload(t.account, phone).content });
      expect(v.body.valid).toBe(true);
      const p = await call(c, 'rcs_preview', rcsPayload(t.account, phone));
      const early = await call(c, 'rcs_send', { preview_id: p.body.preview_id, payload: p.body.payload });
      expect(early.isError).toBe(true);
      expect(early.body.error).toMatchObject({ code: 'PREVIEW_NOT_APPROVED', share_url: p.body.share_url });
      expect(early.body.error.nextStep).toContain(p.body.share_url);
      await approve(t.account, p.body.share_url);
      const sent = await call(c, 'rcs_send', { preview_id: p.body.preview_id, payload: p.body.payload });
      expect(sent.body).toMatchObject({ success: true });
      expect((await call(c, 'rcs_send', { preview_id: p.body.preview_id, payload: p.body.payload })).body).toEqual(sent.body);
    }
    await modern.close();
    await legacy.close();
  });
});
