import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { body, mcpClient } from './helpers.js';

/**
 * Sends by preview_id (issue #16, spec §4.7 rule 2): the payload is optional; given, it must be
 * the previewed one; omitted, the previewed one is sent. Approval is switched off for this account
 * so the tests are about the payload (approval has its own tests in flow and approval-holds).
 */
let t: TestServer;
let a: TestAccount;
let c: Client;
beforeAll(async () => {
  t = await startTestServer();
  a = await t.createAccount();
  await t.ctx.services.accounts.updateSettings(a.accountId, { approvalRequired: false });
  c = await mcpClient(t.url, a.apiKey);
});
afterAll(async () => {
  await c.close();
  await t.close();
});

async function call(name: string, args: Record<string, unknown>) {
  const r = await c.callTool({ name, arguments: args });
  return { isError: r.isError === true, body: body(r) };
}

describe('sends by preview_id', () => {
  it('rcs_send sends the previewed payload without it, and a repeat with the payload returns the first result', async () => {
    const p = await call('rcs_preview', { phoneNumber: '+4915112347001', messageType: 'text', content: { text: 'Hi {{contact_first_name}}' }, sendernameId: a.senders.rcs });
    expect(p.isError).toBe(false);
    expect(p.body.nextStep).toContain('preview_id');
    const sent = await call('rcs_send', { preview_id: p.body.preview_id });
    expect(sent.isError, JSON.stringify(sent.body)).toBe(false);
    expect(sent.body.messageRecordId).toMatch(/^msg_/);
    const again = await call('rcs_send', { preview_id: p.body.preview_id, payload: p.body.payload });
    expect(again.body.messageRecordId).toBe(sent.body.messageRecordId);
    const log = await call('rcs_message_content', { messageId: sent.body.messageRecordId });
    expect(JSON.stringify(log.body)).toContain('Hi ');
  });

  it('refuses a payload that is not the previewed one, naming the fields, and sends nothing', async () => {
    const payload = { phoneNumber: '+4915112347002', message: 'Hello {{contact_first_name}}', sendernameId: a.senders.sms };
    const p = await call('sms_preview', payload);
    const changed = await call('sms_send', { preview_id: p.body.preview_id, payload: { ...payload, message: 'Other' } });
    expect(changed.isError).toBe(true);
    expect(changed.body.error).toMatchObject({ code: 'PREVIEW_MISMATCH', differingFields: ['message'] });
    expect(changed.body.error.nextStep).toContain('only the preview_id');
    const wrongTool = await call('rcs_send', { preview_id: p.body.preview_id });
    expect(wrongTool.body.error.code).toBe('PREVIEW_MISMATCH');
    expect(wrongTool.body.error.nextStep).toContain('sms_send');
    const log = await call('rcs_message_log', { phoneNumber: '+4915112347002' });
    expect(log.body.messages).toEqual([]);
    const sent = await call('sms_send', { preview_id: p.body.preview_id });
    expect(sent.isError, JSON.stringify(sent.body)).toBe(false);
    expect(sent.body).toMatchObject({ success: true, smsEncoding: 'GSM-7', smsSegments: 1 });
  });

  it('takes the payload as an object only, and names preview_id when it is missing', async () => {
    expect((await call('rcs_send_batch', { preview_id: 'prv_01ARZ3NDEKTSV4RRFFQ69G5FAV', payload: 'x' })).body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path: 'payload' })] });
    expect((await call('sms_send', {})).body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path: 'preview_id', code: 'required' })] });
    expect((await call('rcs_send', { preview_id: 'prv_01ARZ3NDEKTSV4RRFFQ69G5FAV' })).body.error).toMatchObject({ code: 'NOT_FOUND', nextStep: expect.stringContaining('rcs_preview') });
  });
});

describe('preview results warn about empty merge values', () => {
  it('sms_preview names the field and how many recipients have no value', async () => {
    const created = await call('create_contact', { phone: '+4915112347003' });
    expect(created.isError).toBe(false);
    const p = await call('sms_preview', { phoneNumber: '+4915112347003', message: 'Hi {{contact_first_name}}, see you', sendernameId: a.senders.sms });
    expect(p.body.warnings).toContainEqual(expect.objectContaining({ path: 'merge.contact_first_name', code: 'empty_merge_value', message: expect.stringMatching(/contact_first_name.*no value/) }));
  });
});
