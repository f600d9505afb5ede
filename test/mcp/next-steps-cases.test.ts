import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ALL_PERMISSIONS } from '../../src/platform/permissions.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { body, mcpClient } from './helpers.js';

/**
 * The refusals an assistant once got with the wrong next step (issue #30): each names the tool to
 * call next, with its arguments, and no message holds a template placeholder.
 */
let t: TestServer;
let c: Client;
let assistantKey: string;
beforeAll(async () => {
  t = await startTestServer();
  assistantKey = (await t.ctx.services.apiKeys.create(t.account.accountId, 'Assistant', ALL_PERMISSIONS, { sendsNeedApproval: true })).key;
  c = await mcpClient(t.url, assistantKey);
});
afterAll(async () => {
  await c?.close();
  await t?.close();
});

const call = async (name: string, args: Record<string, unknown>) => {
  const r = await c.callTool({ name, arguments: args });
  return { isError: Boolean(r.isError), ...(body(r) as { error?: { code: string; message: string; nextStep: string } }) };
};

describe('next steps of the cases that misled assistants', () => {
  it('rcs_send_batch given the message instead of a preview_id names rcs_preview', async () => {
    const r = await call('rcs_send_batch', { phoneNumbers: ['+4915123450001'], messageType: 'text', content: { text: 'Hi' }, sendernameId: t.account.senders.rcs });
    expect(r.error?.code).toBe('VALIDATION_ERROR');
    expect(r.error?.nextStep).toContain('call rcs_preview with the message');
    expect(r.error?.nextStep).toContain('"preview_id"');
    const s = await call('sms_send', { phoneNumber: '+4915123450001', message: 'Hi', sendernameId: t.account.senders.sms });
    expect(s.error?.nextStep).toContain('call sms_preview with the message');
  });

  it('rcs_preview with groupId says how to send to a group', async () => {
    const r = await call('rcs_preview', { groupId: 'grp_01ARZ3NDEKTSV4RRFFQ69G5FAV', messageType: 'text', content: { text: 'Hi' }, sendernameId: t.account.senders.rcs });
    expect(r.error?.code).toBe('VALIDATION_ERROR');
    expect(r.error?.nextStep).toContain('get_group with {"groupId"');
    expect(r.error?.nextStep).toContain('phoneNumbers');
  });

  it('an SMS sender given as the RCS sender: the message says so and names no REST route', async () => {
    const r = await call('rcs_preview', { phoneNumber: '+4915123450001', messageType: 'text', content: { text: 'Hi' }, sendernameId: t.account.senders.sms });
    expect(r.error?.message).toContain('is an SMS sender; sendernameId takes an RCS sender');
    expect(JSON.stringify(r.error)).not.toMatch(/\/api\/|GET \//);
    expect(r.error?.nextStep).toContain('list_sendernames');
  });

  it('INVALID_ID of preview_id talks about preview_id only', async () => {
    const r = await call('rcs_send', { preview_id: 'prv_nope' });
    expect(r.error?.code).toBe('INVALID_ID');
    expect(r.error?.nextStep).toContain('preview_id');
    expect(r.error?.nextStep).not.toContain('templateId');
  });

  it('no message holds a template placeholder', async () => {
    const r = await call('rcs_preview', { phoneNumber: '+4915123450001', messageType: 'text', content: { text: 'Hi', suggestions: [{ reply: { text: 'x'.repeat(26), postbackData: 'a' } }] }, sendernameId: t.account.senders.rcs });
    expect(JSON.stringify(r.error)).not.toContain('$field');
    expect(r.error?.message).toContain('text must be at most 25 characters');
    const rest = await t.api('POST', '/api/v1/templates', { name: 'Too long chip', type: 'RCS', rcsMessageType: 'text', content: { text: 'Hi', suggestions: [{ reply: { text: 'x'.repeat(26), postbackData: 'a' } }] } });
    expect(JSON.stringify(rest.body)).not.toContain('$field');
  });
});

describe('tool results stay small', () => {
  it('rcs_timezones pages its zones (each page far below 16 KB) and every zone is reachable', async () => {
    const first = await c.callTool({ name: 'rcs_timezones', arguments: {} });
    expect(JSON.stringify(first.content).length).toBeLessThan(16_384);
    const page = body(first) as { timezones: { timeZone: string }[]; count: number; nextOffset: number | null };
    expect(page.count).toBeGreaterThan(300);
    const seen = [...page.timezones.map((z) => z.timeZone)];
    let next = page.nextOffset;
    while (next !== null) {
      const r = body(await c.callTool({ name: 'rcs_timezones', arguments: { offset: next } })) as typeof page;
      seen.push(...r.timezones.map((z) => z.timeZone));
      next = r.nextOffset;
    }
    expect(new Set(seen).size).toBe(page.count);
    const berlin = body(await c.callTool({ name: 'rcs_timezones', arguments: { search: 'berlin' } })) as typeof page;
    expect(berlin).toMatchObject({ count: 1, nextOffset: null, timezones: [expect.objectContaining({ timeZone: 'Europe/Berlin' })] });
  });
});
