import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from '../../../src/platform/permissions.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { WebClient } from '../../helpers/web-client.js';
import { body, mcpClient } from '../../mcp/helpers.js';

/**
 * The worst first (issue #42). An assistant key writes the first names of 10,000 contacts, each its
 * own; two of them can hurt a recipient: "Call 0900 5551234" (recipient 7,000, which sat on page 140
 * of 202 and outside the warnings) and "paypal。com/login" (a link without a scheme, with an
 * ideographic full stop). Both head the preview's warnings, by value, on REST and MCP; the values
 * listed by REST and on the share page start with them; the page's head names the worst one.
 */
const N = 10_000;
const PHONE_AT = 7_000;
const LINK_AT = 9_000;
const CALL = 'Call 0900 5551234';
const LINK = 'paypal\u3002com/login';
const phoneOf = (i: number) => `+491517${String(i).padStart(6, '0')}5`;
const nameOf = (i: number) => (i === PHONE_AT ? CALL : i === LINK_AT ? LINK : `Name${i}`);

let t: TestServer;
let assistantKey: string;
const phones = Array.from({ length: N }, (_, i) => phoneOf(i + 1));

beforeAll(async () => {
  t = await startTestServer();
  assistantKey = (await t.ctx.services.apiKeys.create(t.account.accountId, 'Assistant', ALL_PERMISSIONS, { sendsNeedApproval: true })).key;
  // The assistant writes every name, through the same door an assistant uses.
  for (let start = 1; start <= N; start += 1000) {
    const contacts = Array.from({ length: 1000 }, (_, k) => ({ phone: phoneOf(start + k), firstName: nameOf(start + k) }));
    const r = await t.api('POST', '/api/v1/contacts/bulk', { contacts }, { key: assistantKey });
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
  }
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const risky = (warnings: { code: string; message: string }[]) => warnings.filter((w) => w.code === 'risky_merge_value').map((w) => w.message);

function expectWorstFirst(warnings: { code: string; message: string }[]) {
  const msgs = risky(warnings);
  expect(msgs[0]).toContain(`"${LINK}"`);
  expect(msgs[0]).toContain('paypal.com is written');
  expect(msgs[0]).toContain(phoneOf(LINK_AT));
  expect(msgs[1]).toContain(`"${CALL}"`);
  expect(msgs[1]).toContain('phone number');
  expect(msgs[1]).toContain(phoneOf(PHONE_AT));
  // Every other name is flagged only as the assistant's, after them.
  expect(msgs[2]).toContain('written by key "Assistant"');
}

describe('10,000 names an assistant wrote, two of them dangerous', () => {
  it('REST: both head the warnings and the values, and the share page shows them first', async () => {
    const res = await t.api('POST', '/api/rcs/previews/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Hi {{contact_first_name}}' }, sendernameId: t.account.senders.rcs }, { key: assistantKey });
    expect(res.status, JSON.stringify(res.body).slice(0, 1000)).toBe(201);
    const p = res.body.data;
    expectWorstFirst(p.warnings);
    const field = p.mergeValues.fields.find((f: { name: string }) => f.name === 'contact_first_name');
    expect(field.distinct).toBe(N);
    expect(field.flaggedValues).toBe(N);
    expect(field.values.slice(0, 2)).toEqual([
      { value: LINK, recipients: 1, risks: ['lookalike_host', 'contains_link', 'written_by_assistant'] },
      { value: CALL, recipients: 1, risks: ['contains_phone', 'written_by_assistant'] },
    ]);

    const listed = await t.api('GET', `/api/rcs/previews/${p.preview_id}/merge-values?field=contact_first_name&limit=50`, undefined, { key: assistantKey });
    expect(listed.status).toBe(200);
    expect(listed.body.pagination.total).toBe(N);
    expect(listed.body.data.slice(0, 2).map((v: { value: string; firstRecipients: string[] }) => [v.value, v.firstRecipients])).toEqual([
      [LINK, [phoneOf(LINK_AT)]],
      [CALL, [phoneOf(PHONE_AT)]],
    ]);

    // The share page: its head names the worst value, its table starts with both.
    const path = new URL(p.share_url).pathname;
    const web = new WebClient(t.url);
    await web.login(t.account.email, t.account.password, t.account.totpSecret, path, Date.now());
    const page = await web.get(path);
    expect(page.status).toBe(200);
    const head = page.text.slice(0, page.text.indexOf('data-testid="approve"'));
    expect(head).toContain(LINK);
    expect(head).toContain('look-alike link');
    const table = page.text.slice(page.text.indexOf('data-testid="merge-table"'));
    const first = table.indexOf(LINK);
    const second = table.indexOf(CALL);
    expect(first).toBeGreaterThan(-1);
    expect(second).toBeGreaterThan(first);
    expect(table.indexOf('Name1<')).toBeGreaterThan(second);
  }, 120_000);

  it('MCP: rcs_preview names both first in its warnings', async () => {
    const c = await mcpClient(t.url, assistantKey);
    try {
      const r = await c.callTool({ name: 'rcs_preview', arguments: { phoneNumbers: phones, messageType: 'text', content: { text: 'Hello {{contact_first_name}}' }, sendernameId: t.account.senders.rcs } });
      expect(r.isError, JSON.stringify(r).slice(0, 1000)).not.toBe(true);
      const p = body(r);
      expectWorstFirst(p.warnings);
    } finally {
      await c.close();
    }
  }, 120_000);
});
