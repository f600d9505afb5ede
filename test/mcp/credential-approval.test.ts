import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import { DEFAULT_PERMISSIONS } from '../../src/platform/permissions.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decideOnSharePage, oauthToken } from '../api/approval/helpers.js';
import { body, mcpClient } from './helpers.js';

/**
 * On MCP, approval is required when the account says so OR the credential's sends need approval
 * (issue #15): at preview time (approval_required) and again at send time, so an assistant cannot
 * send an unapproved preview that an automation key made while the account's switch was off.
 */
const clock = new FakeClock(Date.UTC(2026, 10, 22, 9, 0, 0));
let t: TestServer;
let automation: Client;
let assistant: Client;
let boundKeyClient: Client;

const sms = (n: number) => ({ phoneNumber: `+49151123420${String(n).padStart(2, '0')}`, message: `Reminder ${n}`, sendernameId: t.account.senders.sms });
const call = async (client: Client, name: string, args: Record<string, unknown>) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: Boolean(r.isError), body: body(r) };
};
const messagesTo = async (phone: string) => (await t.ctx.db.selectFrom('messages').select('id').where('phone', '=', phone.slice(1)).execute()).length;

beforeAll(async () => {
  t = await startTestServer({ clock });
  await t.ctx.services.accounts.updateSettings(t.account.accountId, { approvalRequired: false });
  automation = await mcpClient(t.url, t.account.apiKey);
  const token = await oauthToken(t, t.account, clock, 'messages:read messages:write');
  clock.advance(31_000);
  assistant = await mcpClient(t.url, token, '', 'bearer');
  const bound = await t.ctx.services.apiKeys.create(t.account.accountId, 'assistant key', DEFAULT_PERMISSIONS, { sendsNeedApproval: true });
  boundKeyClient = await mcpClient(t.url, bound.key);
});
afterAll(async () => {
  await automation?.close();
  await assistant?.close();
  await boundKeyClient?.close();
  await t?.close();
});

describe('approval by credential on MCP (account approval switched off)', () => {
  it('an automation key previews without approval and sends, as §3.5 says', async () => {
    const p = await call(automation, 'sms_preview', sms(1));
    expect(p.body.approval_required).toBe(false);
    const s = await call(automation, 'sms_send', { preview_id: p.body.preview_id, payload: p.body.payload });
    expect(s.isError).toBe(false);
    expect(await messagesTo(sms(1).phoneNumber)).toBe(1);
  });

  it('an OAuth token cannot send an unapproved preview that an automation key created', async () => {
    const p = await call(automation, 'sms_preview', sms(2));
    expect(p.body.approval_required).toBe(false);
    const r = await call(assistant, 'sms_send', { preview_id: p.body.preview_id, payload: p.body.payload });
    expect(r.isError).toBe(true);
    expect(r.body.error.code).toBe('PREVIEW_NOT_APPROVED');
    expect(r.body.error.share_url).toBe(p.body.share_url);
    expect(await messagesTo(sms(2).phoneNumber)).toBe(0);

    // The same payload previewed by the assistant is not the automation key's preview handed back.
    const own = await call(assistant, 'sms_preview', sms(2));
    expect(own.body.preview_id).not.toBe(p.body.preview_id);
    expect(own.body.approval_required).toBe(true);

    // Once a person approved, the assistant may send it.
    await decideOnSharePage(t, t.account, p.body.share_url, clock.now());
    clock.advance(31_000);
    const sent = await call(assistant, 'sms_send', { preview_id: p.body.preview_id, payload: p.body.payload });
    expect(sent.isError).toBe(false);
    expect(await messagesTo(sms(2).phoneNumber)).toBe(1);
  });

  it('previews of an OAuth token or an approval-bound key require approval whatever the account says', async () => {
    for (const [who, client, n] of [
      ['oauth', assistant, 3],
      ['bound key', boundKeyClient, 4],
    ] as const) {
      const p = await call(client, 'sms_preview', sms(n));
      expect(p.body.approval_required, who).toBe(true);
      expect(p.body.nextStep).toContain(p.body.share_url);
      const r = await call(client, 'sms_send', { preview_id: p.body.preview_id, payload: p.body.payload });
      expect(r.body.error?.code, who).toBe('PREVIEW_NOT_APPROVED');
      // An automation key cannot send it either: the preview itself says it needs a person.
      expect((await call(automation, 'sms_send', { preview_id: p.body.preview_id, payload: p.body.payload })).body.error?.code, who).toBe('PREVIEW_NOT_APPROVED');
      expect(await messagesTo(sms(n).phoneNumber)).toBe(0);
    }
  });
});
