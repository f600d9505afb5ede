import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TOOLS_BY_NAME } from '../../src/mcp/catalog.js';
import { fullOutputJsonSchema } from '../../src/mcp/tool-schemas.js';
import { FakeClock } from '../../src/platform/clock.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { body, mcpClient } from './helpers.js';

/**
 * Every tool, called through the SDK's own client (which checks structuredContent against the
 * tool's outputSchema and throws -32602 when it does not match), once with valid arguments and
 * once with invalid ones. Each success is also checked here against the listed outputSchema, so a
 * client that skips the check would still be caught.
 */
const clock = new FakeClock(Date.UTC(2026, 10, 22, 9, 0, 0));
let t: TestServer;
let c: Client;
let schemas: Map<string, Record<string, unknown>>;
const validator = new AjvJsonSchemaValidator();
const checkers = new Map<string, (v: unknown) => { valid: boolean; errorMessage?: string }>();
const fullChecks = new Map<string, (v: unknown) => { valid: boolean; errorMessage?: string }>();
const calledOk = new Set<string>();
const calledBad = new Set<string>();

beforeAll(async () => {
  t = await startTestServer({ clock });
  c = await mcpClient(t.url, t.account.apiKey);
  schemas = new Map((await c.listTools()).tools.map((x) => [x.name, x.outputSchema as Record<string, unknown>]));
});
afterAll(async () => {
  await c.close();
  await t.close();
});

async function decide(a: TestAccount, shareUrl: string) {
  const web = new WebClient(t.url);
  const path = new URL(shareUrl).pathname;
  await web.login(a.email, a.password, a.totpSecret, path, clock.now());
  const page = await web.get(path);
  const res = await web.post(`${path}/approve`, { csrf: WebClient.hidden(page.text, 'csrf'), fingerprint: WebClient.hidden(page.text, 'fingerprint') });
  expect(res.status).toBe(303);
  clock.advance(31_000);
}

/** A valid call: must succeed, and its structuredContent must match the tool's outputSchema. */
async function ok(name: string, args: Record<string, unknown>): Promise<any> {
  let r;
  try {
    r = await c.callTool({ name, arguments: args });
  } catch (err) {
    throw new Error(`${name}: the SDK client refused the result: ${(err as Error).message}`);
  }
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args).slice(0, 300)}: ${JSON.stringify(body(r))}`);
  const schema = schemas.get(name);
  expect(schema, `${name} has an outputSchema`).toBeDefined();
  let check = checkers.get(name);
  if (!check) checkers.set(name, (check = validator.getValidator(schema!) as never));
  const res = check(r.structuredContent);
  if (!res.valid) throw new Error(`${name}: structuredContent does not match the outputSchema: ${res.errorMessage}`);
  // The complete output schema the listed one outlines (nested records spelt out, required, closed).
  const full = fullChecks.get(name) ?? validator.getValidator(fullOutputJsonSchema(TOOLS_BY_NAME.get(name)!));
  fullChecks.set(name, full);
  const fullRes = full(r.structuredContent);
  if (!fullRes.valid) throw new Error(`${name}: structuredContent does not match the complete output schema: ${fullRes.errorMessage}`);
  // The registry's zod schema too: it carries refinements JSON Schema cannot express.
  const zod = TOOLS_BY_NAME.get(name)!.output.safeParse(r.structuredContent);
  if (!zod.success) throw new Error(`${name}: structuredContent does not match the zod output schema: ${zod.error.message}`);
  calledOk.add(name);
  return r.structuredContent;
}

/** An invalid call: a tool error naming a bad path (or a caller error code), never a protocol error. */
async function bad(name: string, args: Record<string, unknown>, code = 'VALIDATION_ERROR') {
  const r = await c.callTool({ name, arguments: args });
  expect(r.isError, `${name} with invalid arguments`).toBe(true);
  const e = body(r).error;
  expect(e.code, `${name}: ${e.message}`).toBe(code);
  if (code === 'VALIDATION_ERROR') expect(e.details?.[0]?.path, `${name} names the bad path`).toBeTypeOf('string');
  expect(JSON.stringify(e)).not.toMatch(/\.ts:\d+|ZodError|"expected"/);
  calledBad.add(name);
}

describe('every tool result matches its outputSchema', () => {
  it('calls every tool with valid and with invalid arguments', async () => {
    const a = t.account;
    const rcsContent = { title: 'Spring sale', description: 'Hi {{contact_first_name}}, 20% off today', suggestions: [{ reply: { text: 'Yes please', postbackData: 'yes' } }] };
    const fallback = { message: '20% off today at Test Co', sendernameId: a.senders.sms };

    // Status, guides, validation.
    await ok('rcs_health', {});
    await ok('rcs_limits', {});
    await ok('rcs_button_guidelines', {});
    await ok('rcs_timezones', { search: 'Berlin' });
    await ok('rcs_workflow_guide', {});
    await ok('rcs_workflow_guide', { task: 'batch' });
    await ok('rcs_api_reference', {});
    await ok('rcs_api_reference', { tool: 'rcs_send' });
    await ok('rcs_api_reference', { toolset: 'contacts' });
    await ok('list_sendernames', {});
    await ok('rcs_validate', { messageType: 'richCard', content: rcsContent });
    await ok('rcs_validate', { messageType: 'richCard', content: rcsContent, smsFallback: { message: 'x' } });
    await ok('rcs_validate', { messageType: 'text', content: { text: 'Grüße 😀' }, smsFallback: { message: 'Grüße 😀 '.repeat(20) } });
    await ok('rcs_validate', { messageType: 'richCard', content: {} });
    // One shape for invalid content (issue #16): wrong types, unknown fields and limits+1 are valid:false with paths, never a tool error.
    const badContent = await ok('rcs_validate', { messageType: 'text', content: { text: 'x'.repeat(3073), bogus: 1 }, smsFallback: { message: 'y'.repeat(1531) } });
    expect(badContent.valid).toBe(false);
    expect(badContent.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['content.text', 'content.bogus', 'smsFallback.message']));
    const wrongType = await ok('rcs_validate', { messageType: 'richCard', content: { title: 5, suggestions: 'no' } });
    expect(wrongType.valid).toBe(false);
    expect(wrongType.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['content.title', 'content.suggestions']));
    await ok('rcs_validate_schedule_time', { scheduleAt: '2026-12-01T10:00:00', timeZone: 'Europe/Berlin' });
    await ok('rcs_validate_schedule_time', { scheduleAt: '2026-03-29T02:30:00', timeZone: 'Europe/Berlin' });
    await ok('rcs_validate_schedule_time', { scheduleAt: '2026-10-25T02:30:00', timeZone: 'Europe/Berlin' });
    await ok('rcs_validate_schedule_time', { scheduleAt: '2020-01-01T00:00:00Z' });
    await ok('rcs_validate_schedule_time', { scheduleAt: '2026-12-01T10:00:00', timeZone: 'Mars/Base' });
    await ok('list_sendernames', { type: 'RCS' });

    // Address book.
    const field = await ok('create_custom_field', { name: 'Shoe size', tag: 'shoe_size' });
    await ok('list_custom_fields', {});
    const group = await ok('create_group', { name: 'VIP', description: 'best' });
    const groupId = group.data.id;
    const contact = await ok('create_contact', { phone: '+4915112349001', firstName: 'Ada', lastName: 'L', email: 'ada@example.com', groups: [groupId], customFields: [{ tag: 'shoe_size', value: '38' }] });
    const contactId = contact.data.id;
    const bulk = await ok('bulk_create_contacts', { contacts: [{ phone: '+4915112349002', firstName: 'Bo' }, { phone: 'bad' }], upsert: true });
    await ok('list_contacts', { include: 'customFields' });
    await ok('list_contacts', {});
    await ok('count_contacts', {});
    await ok('get_contact', { id: contactId });
    await ok('get_contact', { id: '+4915112349001', include: 'customFields' });
    await ok('update_contact', { id: contactId, firstName: 'Ada2' });
    await ok('set_contact_custom_fields', { contactId, customFields: [{ tag: 'shoe_size', value: '39' }] });
    await ok('list_groups', {});
    await ok('get_group', { id: groupId, includeContacts: true });
    await ok('update_group', { id: groupId, name: 'VIP2' });
    const other = await ok('create_contact', { phone: '+4915112349003' });
    const otherId = other.data.id;
    await ok('add_contacts_to_group', { groupId, contactIds: [otherId] });
    await ok('remove_contacts_from_group', { groupId, contactIds: [otherId] });
    await ok('bulk_disable_contacts', { contactIds: [otherId], reason: 'asked' });
    await ok('bulk_enable_contacts', { contactIds: [otherId] });
    expect(bulk).toBeDefined();

    // Templates.
    const tg = await ok('create_template_group', { name: 'Promos' });
    const tgId = tg.data.id;
    await ok('list_template_groups', {});
    await ok('update_template_group', { id: tgId, name: 'Promos2' });
    const tpl = await ok('create_template', { name: 'Welcome', type: 'RCS', rcsMessageType: 'text', content: { text: 'Welcome to {{company_name}}' } });
    const tplId = tpl.data.id;
    const smsTpl = await ok('create_template', { name: 'SMS hi', type: 'SMS', content: 'Hi {{contact_first_name}}' });
    await ok('list_templates', {});
    await ok('get_template', { id: tplId });
    await ok('update_template', { id: tplId, name: 'Welcome 2' });
    await ok('assign_templates_to_template_group', { templateIds: [tplId], templateGroupId: tgId });

    // Messaging: previews, approval, sends.
    const p = await ok('rcs_preview', { phoneNumber: '+4915112349001', messageType: 'richCard', content: rcsContent, sendernameId: a.senders.rcs, smsFallback: fallback, campaignName: 'spring' });
    await ok('rcs_preview', { templateId: tplId, sendernameId: a.senders.rcs, phoneNumber: '+4915112349004' });
    const scheduled = await ok('rcs_preview', { phoneNumber: '+4915112349001', contactId, messageType: 'text', content: { text: 'Hi' }, sendernameId: a.senders.rcs, scheduleAt: '2026-12-01T10:00:00', timeZone: 'Europe/Berlin' });
    await decide(a, p.share_url);
    const sent = await ok('rcs_send', { preview_id: p.preview_id });
    await ok('rcs_send', { preview_id: p.preview_id, payload: p.payload });
    const bp = await ok('rcs_preview', { phoneNumbers: ['+4915112349011', '+4915112349012', '+4915112349012', 'bad'], messageType: 'text', content: { text: 'Batch {{contact_first_name}}' }, sendernameId: a.senders.rcs, smsFallback: fallback, scheduleAt: '2026-12-01T10:00:00', timeZone: 'Europe/Berlin', batchSize: 10, delayMs: 0 });
    await decide(a, bp.share_url);
    const job = await ok('rcs_send_batch', { preview_id: bp.preview_id, payload: bp.payload });
    await ok('rcs_batch_status', { jobId: job.jobId });
    await ok('rcs_jobs', {});
    const cancelled = await ok('rcs_batch_cancel', { jobId: job.jobId });
    expect(cancelled).toMatchObject({ nothingLeftToCancel: false, cancelledMessages: 2 });
    expect(cancelled.message).toMatch(/^Cancelled 2 unsent messages/);
    // Cancelling again: nothing was left, and the answer says so instead of a bare 0.
    const again = await ok('rcs_batch_cancel', { jobId: job.jobId });
    expect(again).toMatchObject({ nothingLeftToCancel: true, cancelledMessages: 0, creditsRefunded: 0 });
    expect(again.message).toMatch(/^Nothing was left to cancel: the job is cancelled/);
    await ok('rcs_batch_status', { jobId: job.jobId });
    const sp = await ok('sms_preview', { phoneNumber: '+4915112349021', message: 'Grüße {{contact_first_name}} 😀', sendernameId: a.senders.sms, campaignName: 'sms1' });
    await decide(a, sp.share_url);
    await ok('sms_send', { preview_id: sp.preview_id, payload: { phoneNumber: '+4915112349021', message: 'Grüße {{contact_first_name}} 😀', sendernameId: a.senders.sms, campaignName: 'sms1' } });

    // The other shapes of a send result: scheduled, fallen back to SMS, a batch that runs now, a scheduled SMS.
    await decide(a, scheduled.share_url);
    await ok('rcs_send', { preview_id: scheduled.preview_id });
    const fb = await ok('rcs_preview', { phoneNumber: '+4915112349990', messageType: 'text', content: { text: 'Hi' }, sendernameId: a.senders.rcs, smsFallback: fallback });
    await decide(a, fb.share_url);
    const fell = await ok('rcs_send', { preview_id: fb.preview_id });
    expect(fell.fallbackUsed).toBe(true);
    const now = await ok('rcs_preview', { phoneNumbers: ['+4915112349031', '+4915112349032'], messageType: 'text', content: { text: 'Now' }, sendernameId: a.senders.rcs, batchSize: 10, delayMs: 0 });
    await decide(a, now.share_url);
    const nowJob = await ok('rcs_send_batch', { preview_id: now.preview_id });
    for (let i = 0; i < 20 && (await ok('rcs_batch_status', { jobId: nowJob.jobId })).job.status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 50));
    await ok('rcs_jobs', { status: 'completed' });
    const ssp = await ok('sms_preview', { phoneNumber: '+4915112349022', message: 'Later', sendernameId: a.senders.sms, scheduleAt: '2026-12-01T10:00:00', timeZone: 'Europe/Berlin' });
    await decide(a, ssp.share_url);
    await ok('sms_send', { preview_id: ssp.preview_id });
    await ok('rcs_message_content', { messageId: fell.messageRecordId });

    // Reading what was sent.
    await ok('rcs_message_log', {});
    await ok('rcs_message_log', { direction: 'outbound', limit: 2 });
    await ok('rcs_message_log', { messageId: sent.messageRecordId });
    await ok('rcs_message_content', { messageId: sent.messageRecordId });
    const sim = t.ctx.carriers as unknown as { userTap(i: Record<string, unknown>): Promise<void>; userReply(i: Record<string, unknown>): Promise<void> };
    await sim.userTap({ messageId: sent.messageRecordId, from: '+4915112349001', senderId: a.senders.rcs, type: 'reply', buttonText: 'Yes please', postbackData: 'yes' });
    await sim.userReply({ from: '+4915112349001', senderId: a.senders.rcs, channel: 'RCS', text: 'Thanks!' });
    const inbound = await ok('rcs_message_log', { direction: 'inbound' });
    expect(inbound.messages.length).toBeGreaterThan(0);
    await ok('rcs_message_content', { messageId: inbound.messages[0].id });
    await ok('list_rcs_interactions', {});
    await ok('rcs_conversation_status', { phoneNumber: '+4915112349001' });
    await ok('rcs_conversation_status', { phoneNumber: '+4915112349001', sendernameId: a.senders.rcs });

    // Deletions last.
    await ok('delete_template', { id: smsTpl.data.id });
    await ok('delete_template_group', { id: tgId });
    await ok('delete_custom_field', { id: field.data.id, force: true });
    await ok('delete_contact', { id: otherId });
    await ok('delete_group', { id: groupId });

    const listed = [...schemas.keys()].sort();
    expect([...calledOk].sort()).toEqual(listed);

    // Invalid arguments: each tool answers a tool error naming the path.
    // Tools without parameters ignore unknown keys; their invalid call is malformed params (below).
    const noParams = ['rcs_button_guidelines', 'rcs_health', 'rcs_limits'];
    const invalid: Record<string, Record<string, unknown>> = {
      rcs_send: { payload: {} },
      rcs_send_batch: { preview_id: 5 },
      rcs_validate: { messageType: 'nope', content: {} },
      rcs_validate_schedule_time: { scheduleAt: 5 },
      rcs_preview: { sendernameId: 5 },
      list_sendernames: { type: 'FAX' },
      sms_preview: { phoneNumber: '+4915112349021' },
      sms_send: { preview_id: 'prv_x', phoneNumber: '+4915112349021' },
      rcs_timezones: { search: 5 },
      rcs_conversation_status: {},
      rcs_batch_status: {},
      rcs_batch_cancel: {},
      rcs_jobs: { limit: 'x' },
      list_rcs_interactions: { limit: -1 },
      rcs_message_log: { limit: 'x' },
      rcs_message_content: {},
      list_contacts: { limit: 'x' },
      count_contacts: { disabled: 'maybe' },
      get_contact: {},
      create_contact: {},
      update_contact: {},
      delete_contact: {},
      bulk_create_contacts: {},
      bulk_disable_contacts: {},
      bulk_enable_contacts: {},
      list_groups: { limit: 'x' },
      get_group: {},
      create_group: {},
      update_group: {},
      delete_group: {},
      add_contacts_to_group: {},
      remove_contacts_from_group: {},
      list_custom_fields: { limit: 'x' },
      create_custom_field: {},
      delete_custom_field: {},
      set_contact_custom_fields: {},
      list_templates: { limit: 'x' },
      get_template: {},
      create_template: {},
      update_template: {},
      delete_template: {},
      list_template_groups: { limit: 'x' },
      create_template_group: {},
      update_template_group: {},
      delete_template_group: {},
      assign_templates_to_template_group: {},
      rcs_workflow_guide: { task: 5 },
      rcs_api_reference: { tool: 5 },
    };
    for (const name of listed.filter((n) => !noParams.includes(n))) {
      expect(invalid[name], `invalid arguments for ${name}`).toBeDefined();
      await bad(name, invalid[name]!);
    }
    for (const name of noParams) {
      const e = await rpcError({ name, arguments: ['not', 'an', 'object'] });
      expect(e.message, name).toContain('arguments');
      calledBad.add(name);
    }
    expect([...calledBad].sort()).toEqual(listed);
  }, 60_000);
});

/** A raw tools/call (the SDK client refuses to send malformed params itself); returns the JSON-RPC error. */
async function rpcError(params: unknown): Promise<{ code: number; message: string; data?: unknown }> {
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': t.account.apiKey, 'MCP-Protocol-Version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
  });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { id: number; error?: { code: number; message: string; data?: unknown } };
  expect(answer.id).toBe(7);
  expect(answer.error, JSON.stringify(answer)).toBeDefined();
  const e = answer.error!;
  // JSON-RPC "Invalid params", a short message naming the bad paths, no validation dump.
  expect(e.code, JSON.stringify(e)).toBe(-32602);
  expect(e.message.length, e.message).toBeLessThan(300);
  expect(JSON.stringify(e)).not.toMatch(/"expected"|"code":"invalid_type"|ZodError|\.ts:\d+/);
  return e;
}

describe('malformed tools/call params', () => {
  it('answers -32602 naming the bad paths, not -32603 with a validation dump', async () => {
    expect((await rpcError({ name: 'rcs_health', arguments: 'x' })).message).toContain('arguments');
    expect((await rpcError({ name: 5 })).message).toContain('name');
    expect((await rpcError({})).message).toContain('name');
    expect((await rpcError({ name: 'list_contacts', arguments: [1] })).message).toContain('arguments');
  });
});

describe('the server checks every result against its outputSchema', () => {
  it('turns a result its schema forbids into an INTERNAL tool error and logs it with the tool name', async () => {
    const validation = t.ctx.services.validation as unknown as { validate: (...a: unknown[]) => Promise<Record<string, unknown>> };
    const original = validation.validate;
    const logged = vi.spyOn(t.ctx.logger, 'error');
    validation.validate = async (...a: unknown[]) => ({ ...(await original.apply(validation, a)), internalNote: 'secret detail' });
    try {
      const r = await c.callTool({ name: 'rcs_validate', arguments: { messageType: 'text', content: { text: 'Hi' } } });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toBeUndefined();
      const e = body(r).error;
      expect(e.code).toBe('INTERNAL');
      expect(JSON.stringify(r)).not.toContain('internalNote');
      expect(JSON.stringify(r)).not.toContain('secret detail');
      const call = logged.mock.calls.find((x) => (x[0] as { tool?: string }).tool === 'rcs_validate');
      expect(call?.[0]).toMatchObject({ tool: 'rcs_validate', mismatch: expect.stringContaining('additional properties') });
    } finally {
      validation.validate = original;
      logged.mockRestore();
    }
    expect((await c.callTool({ name: 'rcs_validate', arguments: { messageType: 'text', content: { text: 'Hi' } } })).isError).toBeFalsy();
  });
});
