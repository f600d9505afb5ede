import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { WebClient } from '../../helpers/web-client.js';
import { body, mcpClient } from '../../mcp/helpers.js';

/**
 * Previews, /validate and the share page agree on every warning (issue #30): an existing
 * custom-field tag is a known placeholder everywhere; an unknown one is warned about everywhere.
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

const payload = (text: string) => ({ phoneNumber: '+4915123457001', messageType: 'text', content: { text }, sendernameId: t.account.senders.rcs, smsFallback: { message: text, sendernameId: t.account.senders.sms } });
const codes = (ws: { code: string }[]) => ws.map((w) => w.code).sort();

describe('one source of content warnings', () => {
  it('a known custom-field tag is not warned about on /validate, the REST preview, rcs_preview and the share page; an unknown one is, on each', async () => {
    const web = new WebClient(t.url);
    await web.login(t.account.email, t.account.password, t.account.totpSecret);
    const mcp = await mcpClient(t.url, t.account.apiKey);
    try {
      for (const [text, unknown] of [
        ['Your tier: {{loyalty_tier}}', false],
        ['Your tier: {{loyalty_level}}', true],
      ] as const) {
        const v = await t.api('POST', '/api/rcs/validate', { messageType: 'text', content: { text }, smsFallback: { message: text } });
        const rest = await t.api('POST', '/api/rcs/previews/send', payload(text));
        expect(rest.status, JSON.stringify(rest.body)).toBe(201);
        const tool = body(await mcp.callTool({ name: 'rcs_preview', arguments: payload(text) }));
        const validated = codes(v.body.warnings).filter((c) => c === 'unknown_merge_field');
        expect(validated.length > 0, text).toBe(unknown);
        expect(codes(rest.body.data.warnings).filter((c) => c === 'unknown_merge_field'), text).toEqual(validated);
        expect(codes(tool.warnings).filter((c) => c === 'unknown_merge_field'), text).toEqual(validated);
        const page = await web.get(new URL(rest.body.data.share_url).pathname);
        expect(page.status).toBe(200);
        expect(page.text.includes('is neither a built-in merge field nor a custom field'), text).toBe(unknown);
      }
    } finally {
      await mcp.close();
    }
  });
});
