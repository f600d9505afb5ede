import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS_BY_NAME } from '../../src/mcp/catalog.js';
import { FakeClock } from '../../src/platform/clock.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { body, mcpClient } from './helpers.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

const clock = new FakeClock(Date.UTC(2026, 10, 22, 9, 0, 0));
let t: TestServer;
let c: Client;

beforeAll(async () => {
  t = await startTestServer({ clock });
  c = await mcpClient(t.url, t.account.apiKey);
});
afterAll(async () => {
  await c.close();
  await t.close();
});

const rcsPayload = (a: TestAccount, over: Record<string, unknown> = {}) => ({
  phoneNumber: '+4915112340001',
  messageType: 'richCard',
  content: { title: 'Spring sale', description: 'Hi {{contact_first_name}}, 20% off today', media: { height: 'MEDIUM', contentInfo: { fileUrl: 'https://example.com/a.jpg', contentType: 'image/jpeg' } }, suggestions: [{ reply: { text: 'Yes please', postbackData: 'yes' } }] },
  sendernameId: a.senders.rcs,
  smsFallback: { message: '20% off today at Test Co', sendernameId: a.senders.sms },
  campaignName: 'spring',
  ...over,
});

/** A person logs in on the share page and approves (or rejects) — the only way to approve. */
async function decide(a: TestAccount, shareUrl: string, decision: 'approve' | 'reject' = 'approve') {
  const web = new WebClient(t.url);
  const path = new URL(shareUrl).pathname;
  const done = await web.login(a.email, a.password, a.totpSecret, path, clock.now());
  expect(done.location).toBe(path);
  const page = await web.get(path);
  expect(page.status).toBe(200);
  const res = await web.post(`${path}/${decision}`, { csrf: WebClient.hidden(page.text, 'csrf'), fingerprint: WebClient.hidden(page.text, 'fingerprint') });
  expect(res.status).toBe(303);
  clock.advance(31_000); // a new TOTP step for the next login of the same person
  return web;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: Boolean(r.isError), body: body(r) };
};

describe('validate → preview → approve → send', () => {
  it('runs the whole flow and the log shows the message', async () => {
    const v = await call(c, 'rcs_validate', { messageType: 'richCard', content: rcsPayload(t.account).content, smsFallback: { message: 'x' } });
    expect(v.body).toMatchObject({ valid: true, sms: { encoding: 'GSM-7', segments: 1 } });

    const p = await call(c, 'rcs_preview', rcsPayload(t.account));
    expect(p.isError).toBe(false);
    // The assistant sees what still waits for the person (issue #29): rcs_jobs with `previews`.
    const waiting = await call(c, 'rcs_jobs', { previews: 'waiting' });
    expect(waiting.isError).toBe(false);
    expect(waiting.body.data).toEqual([]);
    expect(waiting.body.previews.data[0]).toMatchObject({ previewId: p.body.preview_id, state: 'waiting', shareUrl: p.body.share_url, recipients: 1 });
    expect(p.body).toMatchObject({ approval_required: true, status: 'pending', send_with: 'rcs_send', recipients: { accepted: 1 }, creditsEstimated: 0.035 });
    expect(p.body.preview_id).toMatch(/^prv_/);
    expect(p.body.share_url).toMatch(new RegExp(`^${t.url}/preview/[A-Za-z0-9_-]{20,}$`));

    const early = await call(c, 'rcs_send', { preview_id: p.body.preview_id, payload: p.body.payload });
    expect(early.isError).toBe(true);
    expect(early.body.error).toMatchObject({ code: 'PREVIEW_NOT_APPROVED', share_url: p.body.share_url });
    expect(early.body.error.nextStep).toContain(p.body.share_url);

    await decide(t.account, p.body.share_url);
    const sent = await call(c, 'rcs_send', { preview_id: p.body.preview_id, payload: p.body.payload });
    expect(sent.isError).toBe(false);
    expect(sent.body).toMatchObject({ success: true, scheduled: false, method: 'RCS', fallbackUsed: false });

    // Repeating the call returns the first result; nothing is sent twice.
    const again = await call(c, 'rcs_send', { preview_id: p.body.preview_id, payload: p.body.payload });
    expect(again.body).toEqual(sent.body);
    const rows = await t.ctx.db.selectFrom('sim_messages').selectAll().where('message_id', '=', sent.body.messageRecordId).execute();
    expect(rows).toHaveLength(1);

    const log = await call(c, 'rcs_message_log', { messageId: sent.body.messageRecordId });
    expect(log.body.messages).toHaveLength(1);
    expect(log.body.messages[0]).toMatchObject({ id: sent.body.messageRecordId, campaignName: 'spring', source: 'MCP', previewId: p.body.preview_id, approvedBy: t.account.email });
    expect(log.body.messages[0].approvedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const sentList = await call(c, 'rcs_jobs', { previews: 'sent' });
    expect(sentList.body.previews.data.map((x: { previewId: string }) => x.previewId)).toContain(p.body.preview_id);
    expect((await call(c, 'rcs_jobs', { previews: 'pending' })).isError).toBe(true);

    // The recipient taps the chip on the (simulated) phone; the assistant sees it.
    const sim = t.ctx.carriers as unknown as { userTap(i: Record<string, unknown>): Promise<void> };
    await sim.userTap({ messageId: sent.body.messageRecordId, from: '+4915112340001', senderId: t.account.senders.rcs, type: 'reply', buttonText: 'Yes please', postbackData: 'yes' });
    const taps = await call(c, 'list_rcs_interactions', { campaign: 'spring' });
    expect(taps.isError).toBe(false);
    expect(taps.body.data).toEqual([expect.objectContaining({ type: 'button_click', buttonText: 'Yes please', postbackData: 'yes' })]);
    const conv = await call(c, 'rcs_conversation_status', { phoneNumber: '+4915112340001' });
    expect(conv.isError).toBe(false);
    expect(conv.body.hasActiveConversation).toBe(false);
  });

  it('refuses a payload that differs from the preview, naming the fields', async () => {
    const p = await call(c, 'rcs_preview', rcsPayload(t.account, { phoneNumber: '+4915112340002' }));
    await decide(t.account, p.body.share_url);
    const changed = { ...p.body.payload, phoneNumber: '+4915112340003', content: { ...p.body.payload.content, title: 'Other' } };
    const r = await call(c, 'rcs_send', { preview_id: p.body.preview_id, payload: changed });
    expect(r.isError).toBe(true);
    expect(r.body.error.code).toBe('PREVIEW_MISMATCH');
    expect(r.body.error.differingFields).toEqual(['content.title', 'phoneNumber']);
  });

  it('refuses unknown, malformed, rejected, expired and foreign previews', async () => {
    const payload = rcsPayload(t.account, { phoneNumber: '+4915112340004' });
    expect((await call(c, 'rcs_send', { preview_id: 'prv_01ARZ3NDEKTSV4RRFFQ69G5FAV', payload })).body.error.code).toBe('NOT_FOUND');
    expect((await call(c, 'rcs_send', { preview_id: 'nonsense' })).body.error.code).toBe('INVALID_ID');
    expect((await call(c, 'rcs_send', { payload })).body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path: 'preview_id' })] });
    // The payload's fields beside preview_id (the shape before issue #16) are named, not ignored.
    const flat = (await call(c, 'rcs_send', { ...payload, preview_id: 'prv_01ARZ3NDEKTSV4RRFFQ69G5FAV' })).body.error;
    expect(flat).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ code: 'unknown_field', message: expect.stringContaining('phoneNumber') })] });

    const rejected = await call(c, 'rcs_preview', payload);
    await decide(t.account, rejected.body.share_url, 'reject');
    expect((await call(c, 'rcs_send', { preview_id: rejected.body.preview_id, payload: rejected.body.payload })).body.error.code).toBe('PREVIEW_REJECTED');

    const expiring = await call(c, 'rcs_preview', rcsPayload(t.account, { phoneNumber: '+4915112340005' }));
    await decide(t.account, expiring.body.share_url);
    clock.advance(24 * 3_600_000 + 1);
    expect((await call(c, 'rcs_send', { preview_id: expiring.body.preview_id, payload: expiring.body.payload })).body.error.code).toBe('PREVIEW_EXPIRED');

    // Another account's preview id is simply not found, and its person cannot see the page.
    const other = await t.createAccount();
    const oc = await mcpClient(t.url, other.apiKey);
    const foreign = await call(oc, 'rcs_preview', rcsPayload(other, { phoneNumber: '+4915112340006' }));
    expect((await call(c, 'rcs_send', { preview_id: foreign.body.preview_id, payload: foreign.body.payload })).body.error.code).toBe('NOT_FOUND');
    const web = new WebClient(t.url);
    await web.login(t.account.email, t.account.password, t.account.totpSecret, '/console', clock.now());
    clock.advance(31_000);
    expect((await web.get(new URL(foreign.body.share_url).pathname)).status).toBe(404);
    await oc.close();
  });

  it('sends a batch only with a batch preview, and only once', async () => {
    const payload = { ...rcsPayload(t.account), phoneNumber: undefined, phoneNumbers: ['+4915112340011', '+4915112340012', '+4915112340012', 'bad'], batchSize: 10, delayMs: 0 };
    const p = await call(c, 'rcs_preview', payload);
    expect(p.body).toMatchObject({ kind: 'rcs_batch', send_with: 'rcs_send_batch', recipients: { accepted: 2, duplicates: 1 } });
    expect(p.body.recipients.rejected).toEqual([expect.objectContaining({ phoneNumber: 'bad', code: 'INVALID_PHONE' })]);
    await decide(t.account, p.body.share_url);
    const wrongTool = await call(c, 'rcs_send', { preview_id: p.body.preview_id, payload: p.body.payload });
    expect(wrongTool.body.error.code).toBe('PREVIEW_MISMATCH');
    const sent = await call(c, 'rcs_send_batch', { preview_id: p.body.preview_id, payload: p.body.payload });
    expect(sent.body).toMatchObject({ success: true, accepted: 2 });
    expect((await call(c, 'rcs_send_batch', { preview_id: p.body.preview_id, payload: p.body.payload })).body.jobId).toBe(sent.body.jobId);
    expect((await call(c, 'rcs_batch_status', { jobId: sent.body.jobId })).body.job.jobId).toBe(sent.body.jobId);
  });

  it('sms_preview is idempotent and sms_send reports segments and encoding', async () => {
    const payload = { phoneNumber: '+4915112340021', message: 'Grüße {{contact_first_name}} 😀', sendernameId: t.account.senders.sms };
    const a = await call(c, 'sms_preview', payload);
    const b = await call(c, 'sms_preview', payload);
    expect(b.body.preview_id).toBe(a.body.preview_id);
    expect(a.body).toMatchObject({ kind: 'sms', smsEncoding: 'Unicode', smsSegments: 1 });
    expect(a.body.warnings[0].code).toBe('sms_unicode');
    await decide(t.account, a.body.share_url);
    const sent = await call(c, 'sms_send', { preview_id: a.body.preview_id, payload });
    expect(sent.body).toMatchObject({ success: true, smsSegments: 1, smsEncoding: 'Unicode' });
  });

  it('with approval switched off, a preview and a matching payload are still required', async () => {
    const a = await t.createAccount();
    await t.ctx.services.accounts.updateSettings(a.accountId, { approvalRequired: false });
    const ac = await mcpClient(t.url, a.apiKey);
    const p = await call(ac, 'rcs_preview', rcsPayload(a, { phoneNumber: '+4915112340031' }));
    expect(p.body.approval_required).toBe(false);
    expect((await call(ac, 'rcs_send', { preview_id: p.body.preview_id, payload: { ...p.body.payload, campaignName: 'x' } })).body.error.code).toBe('PREVIEW_MISMATCH');
    expect((await call(ac, 'rcs_send', { preview_id: p.body.preview_id, payload: p.body.payload })).body.success).toBe(true);
    await ac.close();
  });

  it('previews a template by id', async () => {
    const tpl = await t.ctx.services.templates.create(t.account.accountId, { name: 'Welcome', type: 'RCS', rcsMessageType: 'text', content: { text: 'Welcome to {{company_name}}' } });
    const id = tpl.template.id;
    const p = await call(c, 'rcs_preview', { templateId: id, sendernameId: t.account.senders.rcs, phoneNumber: '+4915112340041' });
    expect(p.body.error).toBeUndefined();
    expect(p.body.payload).toMatchObject({ messageType: 'text', content: { text: 'Welcome to {{company_name}}' } });
    expect(p.body.samples[0].text).toMatch(/^Welcome to Test Co/);
  });
});

describe('the endpoint', () => {
  it('answers 401 with a WWW-Authenticate challenge without credentials', async () => {
    const res = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('refuses a foreign Host or Origin (DNS rebinding)', async () => {
    const init = (headers: Record<string, string>) => ({ method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': t.account.apiKey, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    expect((await fetch(`${t.url}/mcp`, init({ Origin: 'https://evil.example' }))).status).toBe(403);
    expect((await fetch(`${t.url}/mcp`, init({}))).status).toBe(200);
    const http = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${t.url}/mcp`);
      const req = http.request({ host: u.hostname, port: u.port, path: '/mcp', method: 'POST', headers: { ...init({}).headers, Host: 'attacker.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(init({}).body);
    });
    expect(status).toBe(403);
  });

  it('serves toolset subsets and a read-only subset', async () => {
    const sub = await mcpClient(t.url, t.account.apiKey, '?toolsets=contacts,guides');
    const names = (await sub.listTools()).tools.map((x) => x.name);
    expect(names).toContain('list_contacts');
    expect(names).toContain('rcs_workflow_guide');
    expect(names).not.toContain('rcs_send');
    // A tool outside the served set is unknown to this connection: JSON-RPC -32602 (the SDK's
    // answer since /mcp runs on @modelcontextprotocol/server 2.x; it was a NOT_FOUND tool error).
    await expect(sub.callTool({ name: 'rcs_jobs', arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('rcs_jobs') });
    await sub.close();
    const ro = await mcpClient(t.url, t.account.apiKey, '?readonly=1');
    const roTools = (await ro.listTools()).tools;
    expect(roTools.length).toBeGreaterThan(10);
    expect(roTools.every((x) => x.annotations?.readOnlyHint === true)).toBe(true);
    await ro.close();
  });

  it('tells a key without the permission which one it lacks', async () => {
    const key = await t.createKey(t.account.accountId, ['contacts:read']);
    const limited = await mcpClient(t.url, key);
    // tools/list shows only what the key may call; a call to another tool names the missing permission.
    const listed = (await limited.listTools()).tools;
    expect(listed.length).toBeGreaterThan(0);
    // tools/list does not repeat each tool's permissions (_meta); the catalog has them.
    expect(listed.every((x) => TOOLS_BY_NAME.get(x.name)!.permissions.every((p) => p === 'contacts:read'))).toBe(true);
    expect(listed.map((x) => x.name)).not.toContain('rcs_preview');
    const r = await call(limited, 'rcs_preview', rcsPayload(t.account));
    expect(r.isError).toBe(true);
    expect(r.body.error).toMatchObject({ code: 'FORBIDDEN', requiredPermissions: ['messages:write'] });
    expect(r.body.error.message).toContain('messages:write');
    await limited.close();
  });

  it('reports tool errors with a code, message and next step, never a stack', async () => {
    const r = await call(c, 'rcs_preview', { ...rcsPayload(t.account), content: { title: 'x'.repeat(201) } });
    expect(r.isError).toBe(true);
    expect(r.body.error).toMatchObject({ code: 'VALIDATION_ERROR', nextStep: expect.any(String) });
    expect(JSON.stringify(r.body)).not.toMatch(/\.ts:\d+/);
  });
});

describe('unsubscribe chips (spec §2.3, issue #28)', () => {
  it('rcs_preview corrects a chip’s stopKeyword to the sender’s trigger, says so, and stores what will be sent; the same payload echoed sends it', async () => {
    const content = { text: 'News', suggestions: [{ action: { type: 'unsubscribe', text: 'Unsubscribe', unsubscribeAction: { stopKeyword: 'HALT' } } }] };
    const payload = { phoneNumber: '+4915112340077', messageType: 'text', content, sendernameId: t.account.senders.rcs };
    const p = await call(c, 'rcs_preview', payload);
    expect(p.isError).toBe(false);
    expect(p.body.warnings).toContainEqual({
      path: 'content.suggestions[0].action.unsubscribeAction.stopKeyword',
      code: 'stop_keyword_corrected',
      message: "The unsubscribe chip sends HALT, but this sender's opt-out word is STOP: corrected to STOP.",
    });
    const row = await t.ctx.db.selectFrom('previews').select('payload').where('id', '=', p.body.preview_id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.payload).content.suggestions[0].action.unsubscribeAction.stopKeyword).toBe('STOP');
    await decide(t.account, p.body.share_url);
    const sent = await call(c, 'rcs_send', { preview_id: p.body.preview_id, payload });
    expect(sent.isError, JSON.stringify(sent.body)).toBe(false);
    const msg = await t.ctx.db.selectFrom('messages').select('content').where('id', '=', sent.body.messageRecordId).executeTakeFirstOrThrow();
    expect(JSON.parse(msg.content!).suggestions[0].action.unsubscribeAction.stopKeyword).toBe('STOP');
  });
});
