import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { body, mcpClient } from '../../mcp/helpers.js';

/**
 * Issue #42: an SMS preview of "Hi {{frist_name}}" previewed clean and then sent "Hi , …". SMS previews (REST and
 * MCP) now warn about unknown merge fields as RCS previews do, with the same rule as SMS templates: built-ins and the
 * account's custom-field tags are known, anything else is named.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  const f = await t.api('POST', '/api/v1/contacts/fields', { name: 'Loyalty tier', tag: 'loyalty_tier' });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

const sms = (message: string, n: number) => ({ phoneNumber: `+49151234580${String(n).padStart(2, '0')}`, message, sendernameId: t.account.senders.sms });
const unknownOf = (ws: { code: string; path: string; message: string }[]) => ws.filter((w) => w.code === 'unknown_merge_field');

describe('SMS previews warn about unknown merge fields', () => {
  it('"Hi {{frist_name}}" is warned about on POST /previews/send-sms and sms_preview; built-ins and custom tags are not', async () => {
    const mcp = await mcpClient(t.url, t.account.apiKey);
    try {
      const cases = [
        ['Hi {{frist_name}}, your order is ready', ['frist_name']],
        ['Hi {{contact_first_name}}, your tier: {{loyalty_tier}}', []],
        ['Hi {{contact_first_name}} {{ladt_name}} ({{loyalty_level}})', ['ladt_name', 'loyalty_level']],
      ] as const;
      let n = 0;
      for (const [message, names] of cases) {
        const rest = await t.api('POST', '/api/rcs/previews/send-sms', sms(message, ++n));
        expect(rest.status, JSON.stringify(rest.body)).toBe(201);
        const tool = body(await mcp.callTool({ name: 'sms_preview', arguments: sms(message, ++n) }));
        for (const warnings of [rest.body.data.warnings, tool.warnings]) {
          const unknown = unknownOf(warnings);
          expect(unknown.map((w) => w.message.match(/\{\{(\w+)\}\}/)?.[1]), message).toEqual(names);
          for (const w of unknown) {
            expect(w.path).toBe('message');
            expect(w.message).toContain('becomes empty when sent');
          }
        }
        // An SMS template of the same text is checked by the same rule, word for word.
        const tpl = await t.api('POST', '/api/v1/templates', { name: `sms ${n}`, type: 'SMS', content: message, context: 'general' });
        expect(tpl.status, JSON.stringify(tpl.body)).toBe(201);
        const tplWarnings = unknownOf(tpl.body.warnings ?? tpl.body.data?.warnings ?? []);
        expect(tplWarnings.map((w) => w.message)).toEqual(unknownOf(tool.warnings).map((w) => w.message));
      }
    } finally {
      await mcp.close();
    }
  });

  it('a malformed placeholder is named too', async () => {
    const rest = await t.api('POST', '/api/rcs/previews/send-sms', sms('Hi {{first name}}', 90));
    expect(rest.status).toBe(201);
    expect(rest.body.data.warnings.map((w: { code: string }) => w.code)).toContain('malformed_placeholder');
  });
});
