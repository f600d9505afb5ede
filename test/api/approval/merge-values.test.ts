import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { ALL_PERMISSIONS } from '../../../src/platform/permissions.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { WebClient } from '../../helpers/web-client.js';
import { decideOnSharePage } from './helpers.js';
import { body, mcpClient } from '../../mcp/helpers.js';

/**
 * The approver sees every merged value (issue #27): an assistant key may write contacts, so what it
 * writes into recipient 12 of a 12-recipient batch must be listed, flagged and named in the REST
 * preview, on the share page and in the warnings — not hidden behind five samples.
 */
const clock = new FakeClock(Date.now());
let t: TestServer;
/** Every permission, sends need approval: what an assistant holds. */
let assistantKey: string;

let seq = 0;
const phone = () => `+49151124${41000 + ++seq}`;
const BAD = 'URGENT card blocked call +4990012345 now';

async function contacts(n: number, name = (i: number) => `Person${i}`): Promise<string[]> {
  const phones: string[] = [];
  for (let i = 1; i <= n; i++) {
    const p = phone();
    const res = await t.api('POST', '/api/v1/contacts', { phone: p, firstName: name(i) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    phones.push(p);
  }
  return phones;
}

async function contactId(p: string): Promise<string> {
  const res = await t.api('GET', `/api/v1/contacts/${encodeURIComponent(p)}`);
  return res.body.data?.id ?? res.body.id;
}

beforeAll(async () => {
  t = await startTestServer({ clock });
  assistantKey = (await t.ctx.services.apiKeys.create(t.account.accountId, 'Assistant', ALL_PERMISSIONS, { sendsNeedApproval: true })).key;
});
afterAll(async () => {
  await t?.close();
});

describe('every merged value of a batch preview', () => {
  it('the hidden 12th recipient is listed, flagged and named in the REST preview and its warnings', async () => {
    const phones = await contacts(12);
    const id12 = await contactId(phones[11]!);
    const upd = await t.api('PUT', `/api/v1/contacts/${id12}`, { firstName: BAD }, { key: assistantKey });
    expect(upd.status, JSON.stringify(upd.body)).toBe(200);

    const res = await t.api('POST', '/api/rcs/previews/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Hello {{contact_first_name}}, see you at 9' }, sendernameId: t.account.senders.rcs }, { key: assistantKey });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const p = res.body.data;
    // Five samples, as before: recipient 12 is not among them.
    expect(p.samples.map((s: { phoneNumber: string }) => s.phoneNumber)).not.toContain(phones[11]);
    const field = p.mergeValues.fields.find((f: { name: string }) => f.name === 'contact_first_name');
    expect(field).toMatchObject({ distinct: 12, flaggedValues: 1, more: 2 });
    // Riskiest first: the value with a phone number heads the list.
    expect(field.values[0]).toEqual({ value: BAD, recipients: 1, risks: ['contains_phone', 'unusual_length', 'written_by_assistant'] });
    const warning = p.warnings.find((w: { code: string }) => w.code === 'risky_merge_value');
    expect(warning.path).toBe('merge.contact_first_name');
    expect(warning.message).toContain(BAD);
    expect(warning.message).toContain(phones[11]);
    expect(warning.message).toContain('phone number');
    expect(warning.message).toContain('written by key "Assistant" less than a minute before this preview');

    // Every value through REST, paged; flagged only; another tenant and bad queries are refused.
    const all = await t.api('GET', `/api/rcs/previews/${p.preview_id}/merge-values?limit=5`, undefined, { key: assistantKey });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.pagination).toEqual({ page: 1, limit: 5, total: 12, totalPages: 3 });
    expect(all.body.data[0]).toMatchObject({ field: 'contact_first_name', value: BAD, recipients: 1, firstRecipients: [phones[11]] });
    const last = await t.api('GET', `/api/rcs/previews/${p.preview_id}/merge-values?limit=5&page=3`, undefined, { key: assistantKey });
    expect(last.body.data).toHaveLength(2);
    const flagged = await t.api('GET', `/api/rcs/previews/${p.preview_id}/merge-values?flagged=true`, undefined, { key: assistantKey });
    expect(flagged.body.data.map((v: { value: string }) => v.value)).toEqual([BAD]);
    const found = await t.api('GET', `/api/rcs/previews/${p.preview_id}/merge-values?q=person7`, undefined, { key: assistantKey });
    expect(found.body.data.map((v: { value: string }) => v.value)).toEqual(['Person7']);
    expect((await t.api('GET', `/api/rcs/previews/${p.preview_id}/merge-values?limit=201`, undefined, { key: assistantKey })).status).toBe(400);
    expect((await t.api('GET', `/api/rcs/previews/${p.preview_id}/merge-values?flagged=maybe`, undefined, { key: assistantKey })).status).toBe(400);
    const other = await t.createAccount();
    expect((await t.api('GET', `/api/rcs/previews/${p.preview_id}/merge-values`, undefined, { key: other.apiKey })).status).toBe(404);
    expect((await t.api('GET', '/api/rcs/previews/prv_%ZZ/merge-values', undefined, { key: assistantKey })).status).toBe(400);
  });

  it('a value an assistant wrote is flagged even when it looks harmless; a person rewriting it clears the flag', async () => {
    const phones = await contacts(3);
    const id2 = await contactId(phones[1]!);
    expect((await t.api('PUT', `/api/v1/contacts/${id2}`, { firstName: 'Bob' }, { key: assistantKey })).status).toBe(200);
    clock.advance(3 * 60_000);
    const preview = async () => (await t.api('POST', '/api/rcs/previews/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Dear {{contact_first_name}}' }, sendernameId: t.account.senders.rcs }, { key: assistantKey })).body.data;
    const first = await preview();
    const bob = first.mergeValues.fields[0].values[0];
    expect(bob).toEqual({ value: 'Bob', recipients: 1, risks: ['written_by_assistant'] });
    expect(first.warnings.find((w: { code: string }) => w.code === 'risky_merge_value').message).toContain('written by key "Assistant" 3 minutes before this preview');
    // The automation key (a person's own integration) writes the same name again: no longer the assistant's.
    expect((await t.api('PUT', `/api/v1/contacts/${id2}`, { firstName: 'Bobby' })).status).toBe(200);
    const second = await preview();
    expect(second.mergeValues.fields[0].flaggedValues).toBe(0);
  });

  it('every value is reachable on the share page: listed, searchable, and any recipient’s whole message shown', async () => {
    const phones = await contacts(30, (i) => (i === 27 ? 'Visit www.example-prize.test/claim' : `Name${i}`));
    const res = await t.api('POST', '/api/rcs/previews/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Hi {{contact_first_name}}' }, sendernameId: t.account.senders.rcs }, { key: assistantKey });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const path = new URL(res.body.data.share_url).pathname;
    const web = new WebClient(t.url);
    await web.login(t.account.email, t.account.password, t.account.totpSecret, path, clock.now());
    clock.advance(31_000);
    const page = await web.get(path);
    expect(page.status).toBe(200);
    // The first screen shows the risky value first.
    const risky = page.text.indexOf('www.example-prize.test/claim');
    expect(risky).toBeGreaterThan(-1);
    expect(page.text.indexOf('Name1<')).toBeGreaterThan(risky);
    // Search finds any value; the recipient's message is shown whole.
    const found = await web.get(`${path}?q=Name29`);
    expect(found.text).toContain('Name29');
    expect(found.text).not.toContain('Name28<');
    const one = await web.get(`${path}?phone=${encodeURIComponent(phones[28]!)}`);
    expect(one.status).toBe(200);
    expect(one.text).toContain('Hi Name29');
    // Paging reaches the last values.
    const second = await web.get(`${path}?page=2`);
    expect(second.status).toBe(200);
  });
});

describe('the MCP door', () => {
  it('rcs_preview lists the values and flags a look-alike link and a reversed file name in the merged values', async () => {
    const phones = await contacts(4, (i) => (i === 2 ? 'Visit \u0430pple.com/login' : i === 3 ? 'file \u202Eexe.nacs' : `Kim${i}`));
    const c = await mcpClient(t.url, assistantKey);
    try {
      const r = await c.callTool({ name: 'rcs_preview', arguments: { phoneNumbers: phones, messageType: 'text', content: { text: 'Hi {{contact_first_name}}' }, sendernameId: t.account.senders.rcs } });
      expect(r.isError).not.toBe(true);
      const p = body(r);
      const values = p.mergeValues.fields[0].values as { value: string; risks: string[] }[];
      // Worst first (issue #42): a link to a look-alike host can do more to a recipient than a reversed name.
      expect(values[0]).toMatchObject({ value: 'Visit \u0430pple.com/login', risks: ['lookalike_host', 'contains_link', 'mixed_scripts', 'unusual_length'] });
      expect(values[1]).toMatchObject({ value: 'file ⟦U+202E⟧exe.nacs', risks: ['bidi_control'] });
      const messages = (p.warnings as { code: string; message: string }[]).filter((w) => w.code === 'risky_merge_value').map((w) => w.message);
      expect(messages.join('\n')).toContain('xn--pple-43d.com (shown as \u0430pple.com)');
      expect(messages.join('\n')).toContain('⟦U+202E⟧');
    } finally {
      await c.close();
    }
  });
});

describe('what a person approved is what is sent', () => {
  it('a custom unsubscribe URL changed after approval refuses the send with PREVIEW_STALE', async () => {
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { unsubscribeUrl: 'https://example.com/optout' });
    const [p1] = await contacts(1);
    const res = await t.api('POST', '/api/rcs/previews/send', { phoneNumber: p1, messageType: 'text', content: { text: 'Offer! Stop: {{unsubscribe_link}}' }, sendernameId: t.account.senders.rcs }, { key: assistantKey });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await decideOnSharePage(t, t.account, res.body.data.share_url, clock.now());
    clock.advance(31_000);
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { unsubscribeUrl: 'https://example.com/elsewhere' });
    const sent = await t.api('POST', `/api/rcs/previews/${res.body.data.preview_id}/send`, undefined, { key: assistantKey });
    expect(sent.status, JSON.stringify(sent.body)).toBe(409);
    expect(sent.body.error.code).toBe('PREVIEW_STALE');
    expect(sent.body.error.message).toContain('unsubscribe_link');
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { unsubscribeUrl: null });
  });

  it('a company profile value changed after approval refuses the send with PREVIEW_STALE', async () => {
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { companyProfile: { company_name: 'Demo Co' } });
    const [p1] = await contacts(1);
    const res = await t.api('POST', '/api/rcs/previews/send', { phoneNumber: p1, messageType: 'text', content: { text: 'From {{company_name}}' }, sendernameId: t.account.senders.rcs }, { key: assistantKey });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await decideOnSharePage(t, t.account, res.body.data.share_url, clock.now());
    clock.advance(31_000);
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { companyProfile: { company_name: 'Other Co' } });
    const sent = await t.api('POST', `/api/rcs/previews/${res.body.data.preview_id}/send`, undefined, { key: assistantKey });
    expect(sent.body.error?.code).toBe('PREVIEW_STALE');
  });
});
