import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { de, logRecord, messageRow, simRows, waitForStatus } from './messaging/util.js';
import { body as toolBody, mcpClient } from '../mcp/helpers.js';

/**
 * Text that reaches a carrier is what the client wrote, byte for byte, and what the log says was
 * sent: bodies that are not UTF-8 are refused (not patched with U+FFFD), and lone surrogates, NUL
 * and other control characters are refused with the path wherever they could end up in a message.
 */
let t: TestServer;
let acc: TestAccount;
let seq = 0;
const fresh = () => de(7000 + ++seq);

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

/** POST raw bytes as application/json. */
async function postBytes(path: string, bytes: Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': acc.apiKey, ...headers }, body: bytes });
  return { status: res.status, body: (await res.json()) };
}

/** JSON text of `prefix`, then raw `bad` bytes, then `suffix`. */
const withBytes = (prefix: string, bad: number[], suffix: string) => new Uint8Array([...Buffer.from(prefix, 'utf8'), ...bad, ...Buffer.from(suffix, 'utf8')]);

const rcs = (content: Record<string, unknown>, over: Record<string, unknown> = {}) => ({ phoneNumber: fresh(), messageType: 'text', content, sendernameId: acc.senders.rcs, ...over });

async function expectRefused(method: string, path: string, body: unknown, detailPath: string) {
  const r = await t.api(method, path, body, { key: acc.apiKey });
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.error.code).toBe('VALIDATION_ERROR');
  const detail = (r.body.error.details ?? []).find((d: any) => d.path === detailPath);
  expect(detail, `no detail for ${detailPath} in ${JSON.stringify(r.body.error.details)}`).toBeDefined();
  expect(detail.code).toBe('invalid_character');
  return r;
}

const countMessages = async () =>
  Number((await t.ctx.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', acc.accountId).executeTakeFirstOrThrow()).n);

describe('request bodies must be UTF-8', () => {
  const cases: Array<[string, number[]]> = [
    ['a lone continuation byte', [0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['an encoded surrogate (CESU-8)', [0xed, 0xa0, 0x80]],
    ['a byte that never occurs (0xff)', [0xff]],
  ];
  for (const [what, bad] of cases) {
    it(`REST: ${what} → 400 VALIDATION_ERROR, nothing sent`, async () => {
      const before = await countMessages();
      const phone = fresh();
      const r = await postBytes('/api/rcs/send', withBytes(`{"phoneNumber":"${phone}","messageType":"text","content":{"text":"Hi `, bad, `"},"sendernameId":"${acc.senders.rcs}"}`));
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', details: [{ code: 'invalid_utf8' }] } });
      expect(await countMessages()).toBe(before);
    });
  }

  it('SMS and contacts too (every JSON route shares the parser)', async () => {
    const sms = await postBytes('/api/rcs/send-sms', withBytes(`{"phoneNumber":"${fresh()}","message":"Hi `, [0xc3, 0x28], `","sendernameId":"${acc.senders.sms}"}`));
    expect(sms.status).toBe(400);
    expect(sms.body.error.code).toBe('VALIDATION_ERROR');
    const contact = await postBytes('/api/v1/contacts', withBytes(`{"phone":"${fresh()}","firstName":"J`, [0xe9], `r\u00f4me"}`));
    expect(contact.status).toBe(400);
    expect(contact.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('/mcp answers in the JSON-RPC shape (-32700 parse error)', async () => {
    const r = await postBytes(
      '/mcp',
      withBytes('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rcs_validate","arguments":{"messageType":"text","content":{"text":"x', [0xff, 0xfe], '"}}}}'),
      { Accept: 'application/json, text/event-stream' },
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, data: { code: 'VALIDATION_ERROR' } } });
    expect(r.body.error.message).toMatch(/UTF-8/);
  });

  it('valid multi-byte UTF-8 (4-byte emoji, combining marks) passes', async () => {
    const r = await postBytes('/api/rcs/validate', new TextEncoder().encode(JSON.stringify({ messageType: 'text', content: { text: 'Cafe\u0301 \u{1F469}\u200D\u{1F4BB} \u{1F1E9}\u{1F1EA}' } })));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.valid).toBe(true);
  });
});

describe('characters that must not reach a carrier', () => {
  const bad: Array<[string, string]> = [
    ['a lone high surrogate', 'a\ud800b'],
    ['a lone low surrogate', 'a\udc00b'],
    ['NUL', 'a\u0000b'],
    ['BEL', 'a\u0007b'],
    ['ESC', 'a\u001bb'],
    ['DEL', 'a\u007fb'],
    ['a C1 control (U+0085)', 'a\u0085b'],
  ];
  for (const [what, s] of bad) {
    it(`${what}: refused in RCS text, card title and description, chip text, fallback, SMS`, async () => {
      const before = await countMessages();
      await expectRefused('POST', '/api/rcs/send', rcs({ text: s }), 'content.text');
      await expectRefused('POST', '/api/rcs/send', rcs({ title: s, description: 'ok' }, { messageType: 'richCard' }), 'content.title');
      await expectRefused('POST', '/api/rcs/send', rcs({ title: 'ok', description: s }, { messageType: 'richCard' }), 'content.description');
      await expectRefused('POST', '/api/rcs/send', rcs({ text: 'ok', suggestions: [{ reply: { text: 'Yes' } }, { reply: { text: s, postbackData: 'x' } }] }), 'content.suggestions[1].reply.text');
      await expectRefused('POST', '/api/rcs/send', rcs({ text: 'ok', suggestions: [{ action: { type: 'openUrl', text: s, openUrlAction: { url: 'https://example.com' } } }] }), 'content.suggestions[0].action.text');
      await expectRefused('POST', '/api/rcs/send', rcs({ text: 'ok' }, { smsFallback: { message: s, sendernameId: acc.senders.sms } }), 'smsFallback.message');
      await expectRefused('POST', '/api/rcs/send-batch', { phoneNumbers: [fresh()], messageType: 'text', content: { text: s }, sendernameId: acc.senders.rcs }, 'content.text');
      await expectRefused('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: s, sendernameId: acc.senders.sms }, 'message');
      expect(await countMessages()).toBe(before);
    });
  }

  it('the validator, the sandbox and templates report it with the path', async () => {
    const v = await t.api('POST', '/api/rcs/validate', { messageType: 'text', content: { text: 'x\u0000' } }, { key: acc.apiKey });
    expect(v.status).toBe(200);
    expect(v.body.valid).toBe(false);
    expect(v.body.errors).toContainEqual(expect.objectContaining({ path: 'content.text', code: 'invalid_character' }));
    expect(v.body.errors[0].message).toContain('U+0000');

    const sandbox = await t.api('POST', '/api/rcs/sandbox/preview', { messageType: 'text', content: { text: 'x\ud800' } }, { key: acc.apiKey });
    expect(sandbox.status, JSON.stringify(sandbox.body)).toBe(400);
    expect(JSON.stringify(sandbox.body)).toContain('invalid_character');

    const smsTpl = await t.api('POST', '/api/v1/templates', { name: 'bell', type: 'SMS', content: 'Ring \u0007' }, { key: acc.apiKey });
    expect(smsTpl.status).toBe(400);
    expect(smsTpl.body.error.details).toContainEqual(expect.objectContaining({ path: 'content', code: 'invalid_character' }));
    const rcsTpl = await t.api('POST', '/api/v1/templates', { name: 'card', type: 'RCS', rcsMessageType: 'richCard', content: { title: 'T\u0000' } }, { key: acc.apiKey });
    expect(rcsTpl.status).toBe(400);
    expect(rcsTpl.body.error.details).toContainEqual(expect.objectContaining({ path: 'content.title', code: 'invalid_character' }));
  });

  it('MCP tools apply the same rule (validate, previews, SMS)', async () => {
    const c = await mcpClient(t.url, acc.apiKey);
    try {
      // rcs_validate answers every problem with the content in its result (issue #16: one shape), with the path.
      const v = await c.callTool({ name: 'rcs_validate', arguments: { messageType: 'text', content: { text: 'ok', suggestions: [{ reply: { text: 'Bell\u0007' } }] } } });
      expect(v.isError).toBeFalsy();
      expect(toolBody(v)).toMatchObject({ valid: false, errors: [expect.objectContaining({ path: 'content.suggestions[0].reply.text', code: 'invalid_character' })] });
      const sms = await c.callTool({ name: 'sms_preview', arguments: { phoneNumber: fresh(), message: 'x\ud800', sendernameId: acc.senders.sms } });
      expect(sms.isError).toBe(true);
      expect(JSON.stringify(toolBody(sms))).toMatch(/message.*invalid_character|invalid_character.*message/);
      const rcsPreview = await c.callTool({ name: 'rcs_preview', arguments: rcs({ text: 'a\u0000' }) });
      expect(rcsPreview.isError).toBe(true);
      expect(JSON.stringify(toolBody(rcsPreview))).toContain('content.text');
    } finally {
      await c.close();
    }
  });

  it('contacts and custom field values are refused at write time, so a merge can never produce them', async () => {
    await expectRefused('POST', '/api/v1/contacts', { phone: fresh(), firstName: 'Ann\u0000' }, 'firstName');
    await expectRefused('POST', '/api/v1/contacts', { phone: fresh(), lastName: 'x\ud800' }, 'lastName');
    const field = await t.api('POST', '/api/v1/contacts/fields', { name: 'Town', tag: 'town' }, { key: acc.apiKey });
    expect(field.status, JSON.stringify(field.body)).toBe(201);
    await expectRefused('POST', '/api/v1/contacts', { phone: fresh(), customFields: [{ tag: 'town', value: 'Bonn\u0007' }] }, 'customFields[0].value');
    const ok = await t.api('POST', '/api/v1/contacts', { phone: fresh(), firstName: 'Ann' }, { key: acc.apiKey });
    expect(ok.status).toBe(201);
    const id = ok.body.data?.id ?? ok.body.id ?? ok.body.contact?.id;
    expect(id).toMatch(/^ct_/);
    await expectRefused('PUT', `/api/v1/contacts/${id}`, { firstName: 'A\u0000' }, 'firstName');
    // Bulk rows fail one by one: the bad row is reported, the good one saved.
    const bulk = await t.api('POST', '/api/v1/contacts/bulk', { contacts: [{ phone: fresh(), firstName: 'Bad\u0000' }, { phone: fresh(), firstName: 'Good' }] }, { key: acc.apiKey });
    expect(bulk.body).toMatchObject({ created: 1, failed: 1, errors: [{ index: 0, code: 'VALIDATION_ERROR', error: expect.stringContaining('U+0000') }] });
  });

  it('NUL where no character rule applies (a name, a search) is never a server fault: stored on SQLite, a 400 on PostgreSQL', async () => {
    // PostgreSQL text cannot hold U+0000; SQLite can. Neither answers 500.
    const pg = t.ctx.database.dialect === 'postgres';
    const group = await t.api('POST', '/api/v1/groups', { name: 'Nul\u0000group' }, { key: acc.apiKey });
    const search = await t.api('GET', `/api/v1/contacts?search=${encodeURIComponent('a\u0000b')}`, undefined, { key: acc.apiKey });
    for (const r of [group, search]) {
      if (pg) expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', details: [{ code: 'invalid_character' }] } });
      if (pg) expect(r.body.error.message).toContain('U+0000');
    }
    expect(group.status).toBe(pg ? 400 : 201);
    expect(search.status).toBe(pg ? 400 : 200);
    const c = await mcpClient(t.url, acc.apiKey);
    try {
      const listed = await c.callTool({ name: 'list_contacts', arguments: { search: 'a\u0000b' } });
      expect(listed.isError ?? false).toBe(pg);
      if (pg) expect(JSON.stringify(toolBody(listed))).toContain('invalid_character');
    } finally {
      await c.close();
    }
  });

  it('contact data stored before the rule cannot slip into a message through a merge', async () => {
    const phone = fresh();
    const created = await t.api('POST', '/api/v1/contacts', { phone, firstName: 'Ann' }, { key: acc.apiKey });
    expect(created.status).toBe(201);
    // As an older version could have stored it. PostgreSQL text cannot hold NUL at all, so there
    // the legacy value carries another control character of the same rule.
    const legacy = t.ctx.database.dialect === 'postgres' ? 'Ann\u0007' : 'Ann\u0000';
    await t.ctx.db.updateTable('contacts').set({ first_name: legacy }).where('account_id', '=', acc.accountId).where('phone', '=', phone.slice(1)).execute();
    const before = await countMessages();
    await expectRefused('POST', '/api/rcs/send', { ...rcs({ text: 'Hi {{contact_first_name}}' }), phoneNumber: phone }, 'content.text');
    await expectRefused('POST', '/api/rcs/send', { ...rcs({ text: 'Hi' }, { smsFallback: { message: 'Hi {{contact_first_name}}', sendernameId: acc.senders.sms } }), phoneNumber: phone }, 'smsFallback.message');
    await expectRefused('POST', '/api/rcs/send-sms', { phoneNumber: phone, message: 'Hi {{contact_first_name}}', sendernameId: acc.senders.sms }, 'message');
    expect(await countMessages()).toBe(before);
  });

  it('tab, CR and LF are ordinary text', async () => {
    const r = await t.api('POST', '/api/rcs/send', rcs({ text: 'Line 1\r\nLine 2\n\tindented' }), { key: acc.apiKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const sms = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: 'a\tb\r\nc', sendernameId: acc.senders.sms }, { key: acc.apiKey });
    expect(sms.status, JSON.stringify(sms.body)).toBe(200);
    const c = await t.api('POST', '/api/v1/contacts', { phone: fresh(), firstName: 'Ann\tMarie' }, { key: acc.apiKey });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
  });
});

describe('the log stores exactly what was sent', () => {
  const text = 'Cafe\u0301 \u{1F469}\u200D\u{1F4BB} \u{1F1E9}\u{1F1EA} \u00e9\u0300\u0323 \u{1D54F} ok';

  it('RCS text with emoji, ZWJ sequences and combining marks: log, content and carrier agree', async () => {
    const r = await t.api('POST', '/api/rcs/send', rcs({ text }), { key: acc.apiKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id: string = r.body.messageRecordId;
    await waitForStatus(t, id, ['SENT', 'DELIVERED', 'READ'], acc.apiKey);
    const content = await t.api('GET', `/api/messages/${id}/content`, undefined, { key: acc.apiKey });
    expect(content.status).toBe(200);
    const sim = await simRows(t, id);
    expect(sim).toHaveLength(1);
    const carried = JSON.parse(sim[0]!.payload) as { content: { text: string } };
    expect(carried.content.text).toBe(text);
    expect(content.body.message.content.text).toBe(text);
    expect((await logRecord(t, id, acc.apiKey))!.content).toBe(text);
    const row = await messageRow(t, id);
    expect(JSON.parse(row!.content!).text).toBe(text);
  });

  it('SMS: the same', async () => {
    const r = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: text, sendernameId: acc.senders.sms }, { key: acc.apiKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id: string = r.body.messageId;
    await waitForStatus(t, id, ['SENT', 'DELIVERED', 'READ'], acc.apiKey);
    const content = await t.api('GET', `/api/messages/${id}/content`, undefined, { key: acc.apiKey });
    const sim = await simRows(t, id);
    expect((JSON.parse(sim[0]!.payload) as { text: string }).text).toBe(text);
    expect(content.body.message.text).toBe(text);
    expect(content.body.message.content).toBe(text);
    expect((await logRecord(t, id, acc.apiKey))!.content).toBe(text);
  });
});
