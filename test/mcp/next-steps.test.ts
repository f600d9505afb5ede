import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { TOOLSETS, type ToolDef } from '../../tools/types.js';
import { servedTools, TOOLS_BY_NAME, type ToolFilter } from '../../src/mcp/catalog.js';
import { codesOf, nextStepFor, toolError, toolsNamedIn } from '../../src/mcp/tool-errors.js';
import { AppError, ERROR_STATUS, type ErrorCode } from '../../src/platform/errors.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { body, mcpClient } from './helpers.js';

const tool = (name: string): ToolDef => TOOLS_BY_NAME.get(name)!;
const ALL: ToolFilter = { toolsets: null, readOnly: false };
const only = (...sets: Array<(typeof TOOLSETS)[number]>): ToolFilter => ({ toolsets: new Set(sets), readOnly: false });
/** Every connection shape that changes which tools a sentence may name. */
const FILTERS: Array<[string, ToolFilter]> = [
  ['all tools', ALL],
  ['read-only', { toolsets: null, readOnly: true }],
  ...TOOLSETS.map((s) => [`toolsets=${s}`, only(s)] as [string, ToolFilter]),
  ['toolsets=messaging,sms', only('messaging', 'sms')],
  ['toolsets=contacts,groups', only('contacts', 'groups')],
];
const step = (code: ErrorCode, name: string, filter: ToolFilter = ALL, detailCode?: string) => nextStepFor(code, tool(name), servedTools(filter), undefined, detailCode);

describe('nextStep per tool and code', () => {
  it('declares only real error codes, and every tool can return the common ones', () => {
    for (const t of ALL_TOOLS) {
      for (const code of codesOf(t)) expect(Object.keys(ERROR_STATUS), `${t.name} ${code}`).toContain(code);
      expect(codesOf(t)).toEqual(expect.arrayContaining(['VALIDATION_ERROR', 'FORBIDDEN', 'INTERNAL']));
    }
  });

  it.each(FILTERS)('names only tools the connection serves and never a REST route (%s)', (_label, filter) => {
    const served = servedTools(filter);
    let checked = 0;
    for (const t of served.values()) {
      for (const code of codesOf(t)) {
        const text = nextStepFor(code, t, served);
        expect(text.length, `${t.name} ${code}`).toBeGreaterThan(20);
        for (const named of toolsNamedIn(text)) expect(served.has(named), `${t.name} ${code} names ${named}: ${text}`).toBe(true);
        expect(text, `${t.name} ${code}`).not.toMatch(/\/api\/|\b(GET|POST|PUT|DELETE) \//);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(served.size);
  });

  it('points NOT_FOUND at the list tool of what was not found', () => {
    expect(step('NOT_FOUND', 'get_contact')).toContain('list_contacts');
    expect(step('NOT_FOUND', 'delete_contact')).toContain('list_contacts');
    expect(step('NOT_FOUND', 'rcs_batch_status')).toContain('rcs_jobs');
    expect(step('NOT_FOUND', 'rcs_batch_cancel')).toContain('rcs_jobs');
    expect(step('NOT_FOUND', 'rcs_message_content')).toContain('rcs_message_log');
    expect(step('NOT_FOUND', 'get_group')).toContain('list_groups');
    expect(step('NOT_FOUND', 'get_template')).toContain('list_templates');
    expect(step('NOT_FOUND', 'delete_template_group')).toContain('list_template_groups');
    expect(step('NOT_FOUND', 'delete_custom_field')).toContain('list_custom_fields');
    expect(step('NOT_FOUND', 'rcs_send')).toContain('rcs_preview');
    expect(step('NOT_FOUND', 'sms_send')).toContain('sms_preview');
    // A contact tool whose NOT_FOUND is a group: the group list, not the contact list.
    expect(step('NOT_FOUND', 'create_contact')).toContain('list_groups');
    expect(step('NOT_FOUND', 'create_contact')).not.toContain('list_contacts');
  });

  it('sends VALIDATION_ERROR to rcs_validate only where content is drafted', () => {
    const content = new Set(['rcs_preview', 'create_template', 'update_template']);
    for (const t of ALL_TOOLS) {
      const text = step('VALIDATION_ERROR', t.name);
      if (content.has(t.name)) expect(text, t.name).toContain('rcs_validate');
      else expect(text, t.name).not.toContain('rcs_validate');
    }
    expect(step('VALIDATION_ERROR', 'create_group')).toMatch(/details/);
  });

  it('points sender errors at list_sendernames, and falls back to a sentence without it where it is not served', () => {
    for (const name of ['rcs_preview', 'rcs_send', 'sms_preview', 'sms_send']) {
      expect(step('SENDER_NOT_APPROVED', name), name).toContain('list_sendernames');
      expect(step('SENDER_NOT_ALLOWED', name), name).toContain('list_sendernames');
      expect(step('VALIDATION_ERROR', name, ALL, 'unknown_sender'), name).toContain('list_sendernames');
    }
    const smsOnly = step('SENDER_NOT_APPROVED', 'sms_send', only('sms'));
    expect(smsOnly).not.toContain('list_sendernames');
    expect(smsOnly).toMatch(/APPROVED sender/);
  });

  it('gives CONFLICT and country errors the remedy of the tool that raised them', () => {
    expect(step('CONFLICT', 'create_contact')).toMatch(/get_contact.*update_contact/);
    expect(step('CONFLICT', 'create_group')).toContain('list_groups');
    expect(step('CONFLICT', 'create_custom_field')).toContain('list_custom_fields');
    expect(step('CONFLICT', 'rcs_send')).toMatch(/same preview_id/);
    expect(step('CONFLICT', 'rcs_send')).not.toMatch(/already exists/);
    expect(step('COUNTRY_NOT_SUPPORTED', 'rcs_preview')).toContain('smsFallback');
    expect(step('COUNTRY_NOT_SUPPORTED', 'create_contact')).not.toContain('smsFallback');
    expect(step('COUNTRY_NOT_SUPPORTED', 'create_contact')).toMatch(/nothing was saved/);
    expect(step('PREVIEW_EXPIRED', 'rcs_send')).toContain('rcs_preview');
    expect(step('PREVIEW_EXPIRED', 'sms_send')).toContain('sms_preview');
    expect(step('PREVIEW_EXPIRED', 'sms_send')).not.toContain('rcs_preview');
  });

  it("keeps the error's own sentence (the share URL) unless it names a tool the connection lacks", () => {
    const err = new AppError('NOT_FOUND', 'Preview not found', { extra: { nextStep: 'Call rcs_preview or sms_preview first and use the preview_id it returns.' } });
    const both = body(toolError(err, { tool: tool('rcs_send'), served: servedTools(only('messaging', 'sms')) })).error;
    expect(both.nextStep).toContain('sms_preview');
    const messaging = body(toolError(err, { tool: tool('rcs_send'), served: servedTools(only('messaging')) })).error;
    expect(messaging.nextStep).toContain('rcs_preview');
    expect(messaging.nextStep).not.toContain('sms_preview');
    const url = new AppError('PREVIEW_NOT_APPROVED', 'not approved', { extra: { nextStep: 'Ask the user to open https://x/preview/abc and approve, then call rcs_send again with the same preview_id.' } });
    expect(body(toolError(url, { tool: tool('rcs_send'), served: servedTools(ALL) })).error.nextStep).toContain('https://x/preview/abc');
  });
});

describe('nextStep in real tool errors', () => {
  let t: TestServer;
  let c: Client;
  let contactsOnly: Client;
  beforeAll(async () => {
    t = await startTestServer();
    c = await mcpClient(t.url, t.account.apiKey);
    contactsOnly = await mcpClient(t.url, t.account.apiKey, '?toolsets=contacts');
  });
  afterAll(async () => {
    await c.close();
    await contactsOnly.close();
    await t.close();
  });
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args });
    expect(r.isError, `${name} ${JSON.stringify(r)}`).toBe(true);
    const e = body(r).error;
    expect(codesOf(tool(name)), `${name} declares ${e.code}`).toContain(e.code);
    return e as { code: string; nextStep: string };
  };

  it('answers each tool and code with its own next step', async () => {
    expect(await call(c, 'get_contact', { id: 'ct_01ARZ3NDEKTSV4RRFFQ69G5FAV' })).toMatchObject({ code: 'NOT_FOUND', nextStep: expect.stringContaining('list_contacts') });
    expect(await call(c, 'rcs_batch_status', { jobId: 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV' })).toMatchObject({ code: 'NOT_FOUND', nextStep: expect.stringContaining('rcs_jobs') });
    const group = await call(c, 'create_group', {});
    expect(group.code).toBe('VALIDATION_ERROR');
    expect(group.nextStep).not.toContain('rcs_validate');
    const sender = await call(c, 'rcs_preview', { phoneNumber: '+4915112345678', messageType: 'text', content: { text: 'Hi' }, sendernameId: 'snd_01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    expect(sender.nextStep).toContain('list_sendernames');
    expect(sender.nextStep).not.toMatch(/\/api\//);
    await c.callTool({ name: 'create_contact', arguments: { phone: '+4915112345001' } });
    expect(await call(c, 'create_contact', { phone: '+4915112345001' })).toMatchObject({ code: 'CONFLICT', nextStep: expect.stringMatching(/get_contact.*update_contact/) });
    // On a connection serving only the contacts toolset, a group that is not found names no group tool.
    const noGroups = await call(contactsOnly, 'create_contact', { phone: '+4915112345002', groups: ['grp_01ARZ3NDEKTSV4RRFFQ69G5FAV'] });
    expect(noGroups.code).toBe('NOT_FOUND');
    expect(toolsNamedIn(noGroups.nextStep)).toEqual([]);
  });
});
