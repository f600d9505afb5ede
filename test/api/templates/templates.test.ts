import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/platform/ids.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

const BASE = '/api/v1/templates';
const GROUPS = `${BASE}/groups`;

let t: TestServer;
let other: TestAccount;

beforeAll(async () => {
  t = await startTestServer();
  other = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

async function template(body: Record<string, unknown>, key?: string) {
  const r = await t.api('POST', BASE, body, key ? { key } : {});
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}
async function tgroup(name: string, key?: string) {
  const r = await t.api('POST', GROUPS, { name }, key ? { key } : {});
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}
const sms = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'SMS', content: `Hi {{contact_first_name}}, ${name}`, ...extra });
const rcs = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'RCS', rcsMessageType: 'text', content: { text: `Hello from ${name}` }, ...extra });

describe('create and get', () => {
  it('SMS template: string content, no parsedContent', async () => {
    const r = await t.api('POST', BASE, { name: ' Welcome ', type: 'SMS', content: 'Hi {{contact_first_name}}!' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      success: true,
      warnings: [],
      data: {
        id: expect.stringMatching(/^tpl_/),
        name: 'Welcome',
        type: 'SMS',
        content: 'Hi {{contact_first_name}}!',
        parsedContent: null,
        rcsMessageType: null,
        context: 'general',
        isDefault: false,
        templateGroupId: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    expect((await t.api('GET', `${BASE}/${r.body.data.id}`)).body).toEqual({ success: true, data: r.body.data });
  });

  it('RCS template: validated content, returned with parsedContent; warnings for unknown merge fields', async () => {
    const content = { title: 'Sale', description: 'Hi {{contact_first_name}} {{loyalty_tier}}', suggestions: [{ reply: { text: 'Yes' } }] };
    const r = await t.api('POST', BASE, { name: 'Card', type: 'RCS', rcsMessageType: 'richCard', content, context: 'event' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ type: 'RCS', rcsMessageType: 'richCard', context: 'event', parsedContent: content });
    expect(JSON.parse(r.body.data.content)).toEqual(content);
    expect(r.body.warnings).toEqual([expect.objectContaining({ path: 'content.description', code: 'unknown_merge_field' })]);
    // Once the custom field exists, the warning goes away.
    await t.api('POST', '/api/v1/contacts/fields', { name: 'Tier', tag: 'loyalty_tier' });
    const again = await t.api('POST', BASE, { name: 'Card 2', type: 'RCS', rcsMessageType: 'richCard', content });
    expect(again.body.warnings).toEqual([]);
    const smsWarn = await t.api('POST', BASE, { name: 'W', type: 'SMS', content: 'Hi {{nobody}} {{bad name}}' });
    expect(smsWarn.body.warnings.map((w: { code: string }) => w.code)).toEqual(['unknown_merge_field', 'malformed_placeholder']);
  });

  it('400 with the validator\'s errors as details for invalid RCS content', async () => {
    let r = await t.api('POST', BASE, { name: 'Bad', type: 'RCS', rcsMessageType: 'text', content: { text: 'x', suggestions: [{ reply: { text: 'x'.repeat(26) } }] } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    expect(r.body.error.details).toEqual([{ path: 'content.suggestions[0].reply.text', code: 'too_long', message: expect.any(String) }]);
    r = await t.api('POST', BASE, { name: 'Bad', type: 'RCS', rcsMessageType: 'richCard', content: { text: 'no title' } });
    expect(r.body.error.details.map((d: { code: string }) => d.code)).toContain('title_or_description_required');
    r = await t.api('POST', BASE, { name: 'Bad', type: 'RCS', rcsMessageType: 'textBasic', content: { text: 'x'.repeat(161) } });
    expect(r.body.error.details[0]).toMatchObject({ path: 'content.text', code: 'too_long' });
    expect((await t.api('POST', BASE, { name: 'ok', type: 'RCS', rcsMessageType: 'textBasic', content: { text: 'x'.repeat(160) } })).status).toBe(201);
  });

  it('type/content/rcsMessageType combinations and limits', async () => {
    expect((await t.api('POST', BASE, sms('n'.repeat(100)))).status).toBe(201);
    expect((await t.api('POST', BASE, { name: 'max', type: 'SMS', content: 'x'.repeat(1530) })).status).toBe(201);
    const cases: Array<[Record<string, unknown>, string]> = [
      [sms('n'.repeat(101)), 'name'],
      [{ name: 'long', type: 'SMS', content: 'x'.repeat(1531) }, 'content'],
      [{ name: 'empty', type: 'SMS', content: '  ' }, 'content'],
      [{ name: 'obj', type: 'SMS', content: { text: 'x' } }, 'content'],
      [{ name: 'sms+type', type: 'SMS', content: 'x', rcsMessageType: 'text' }, 'rcsMessageType'],
      [{ name: 'no type', type: 'RCS', content: { text: 'x' } }, 'rcsMessageType'],
      [{ name: 'str', type: 'RCS', rcsMessageType: 'text', content: 'x' }, 'content'],
      [{ name: 'enum', type: 'RCS', rcsMessageType: 'hologram', content: { text: 'x' } }, 'rcsMessageType'],
      [{ name: 'type', type: 'MMS', content: 'x' }, 'type'],
      [{ name: 'ctx', type: 'SMS', content: 'x', context: 'campaign' }, 'context'],
      [{ name: 'def', type: 'SMS', content: 'x', isDefault: 'yes' }, 'isDefault'],
      [{ name: 'tg', type: 'SMS', content: 'x', templateGroupId: 'tg_bad' }, 'templateGroupId'],
      [{ type: 'SMS', content: 'x' }, 'name'],
      [{ name: 'x', content: 'x' }, 'type'],
      [{ name: 'x', type: 'SMS' }, 'content'],
      [{ name: 'x', type: 'SMS', content: 'x', extra: 1 }, ''],
    ];
    for (const [body, path] of cases) {
      const r = await t.api('POST', BASE, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect(r.body.error.details.map((d: { path: string }) => d.path), JSON.stringify(body).slice(0, 80)).toContain(path);
    }
  });

  it('unknown or foreign templateGroupId is 404', async () => {
    const theirs = await tgroup('Their folder', other.apiKey);
    for (const id of [newId('tg'), theirs.id]) {
      const r = await t.api('POST', BASE, sms('x', { templateGroupId: id }));
      expect(r.status).toBe(404);
    }
  });
});

describe('isDefault', () => {
  it('one default per type and context', async () => {
    const acc = await t.createAccount();
    const a = await template(sms('A', { isDefault: true }), acc.apiKey);
    const b = await template(sms('B', { isDefault: true, context: 'flow' }), acc.apiKey);
    const c = await template(rcs('C', { isDefault: true }), acc.apiKey);
    const d = await template(sms('D', { isDefault: true }), acc.apiKey);
    const get = async (id: string) => (await t.api('GET', `${BASE}/${id}`, undefined, { key: acc.apiKey })).body.data.isDefault;
    expect([await get(a.id), await get(b.id), await get(c.id), await get(d.id)]).toEqual([false, true, true, true]);
    await t.api('PUT', `${BASE}/${a.id}`, { isDefault: true }, { key: acc.apiKey });
    expect([await get(a.id), await get(d.id)]).toEqual([true, false]);
    // Moving a default into another context takes the default there.
    await t.api('PUT', `${BASE}/${a.id}`, { context: 'flow' }, { key: acc.apiKey });
    expect([await get(a.id), await get(b.id)]).toEqual([true, false]);
  });
});

describe('update', () => {
  it('partial update keeps the other fields', async () => {
    const tpl = await template(sms('Partial'));
    const r = await t.api('PUT', `${BASE}/${tpl.id}`, { name: 'Renamed' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: tpl.id, name: 'Renamed', content: tpl.content, type: 'SMS' });
    expect(r.body.warnings).toEqual([]);
    const c = await t.api('PUT', `${BASE}/${tpl.id}`, { content: 'New text' });
    expect(c.body.data).toMatchObject({ name: 'Renamed', content: 'New text' });
  });

  it('a new rcsMessageType re-validates the stored content for that type', async () => {
    const tpl = await template({ name: 'Re-wrap', type: 'RCS', rcsMessageType: 'text', content: { text: 'Short', suggestions: [{ reply: { text: 'OK' } }] } });
    // textBasic allows no suggestions: refused, nothing changes.
    let r = await t.api('PUT', `${BASE}/${tpl.id}`, { rcsMessageType: 'textBasic' });
    expect(r.status).toBe(400);
    expect(r.body.error.details[0]).toMatchObject({ path: 'content.suggestions', code: 'not_allowed' });
    expect((await t.api('GET', `${BASE}/${tpl.id}`)).body.data.rcsMessageType).toBe('text');
    // With content that fits the new type it works.
    r = await t.api('PUT', `${BASE}/${tpl.id}`, { rcsMessageType: 'textBasic', content: { text: 'Short' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ rcsMessageType: 'textBasic', parsedContent: { text: 'Short' } });
    r = await t.api('PUT', `${BASE}/${tpl.id}`, { rcsMessageType: 'richCard' });
    expect(r.status).toBe(400);
    r = await t.api('PUT', `${BASE}/${tpl.id}`, { rcsMessageType: 'text' });
    expect(r.status).toBe(200);
    expect(r.body.data.rcsMessageType).toBe('text');
  });

  it('switching type needs content of the new kind', async () => {
    const tpl = await template(sms('Switch'));
    expect((await t.api('PUT', `${BASE}/${tpl.id}`, { type: 'RCS' })).status).toBe(400);
    expect((await t.api('PUT', `${BASE}/${tpl.id}`, { type: 'RCS', content: { text: 'x' } })).body.error.details[0].path).toBe('rcsMessageType');
    let r = await t.api('PUT', `${BASE}/${tpl.id}`, { type: 'RCS', rcsMessageType: 'text', content: { text: 'Now RCS' } });
    expect(r.body.data).toMatchObject({ type: 'RCS', rcsMessageType: 'text', parsedContent: { text: 'Now RCS' } });
    expect((await t.api('PUT', `${BASE}/${tpl.id}`, { content: 'a string' })).status).toBe(400);
    r = await t.api('PUT', `${BASE}/${tpl.id}`, { type: 'SMS', content: 'Back to SMS' });
    expect(r.body.data).toMatchObject({ type: 'SMS', rcsMessageType: null, parsedContent: null, content: 'Back to SMS' });
    expect((await t.api('PUT', `${BASE}/${tpl.id}`, { rcsMessageType: 'text' })).status).toBe(400);
  });

  it('400 empty body/malformed id, 404 unknown and foreign template or group', async () => {
    const tpl = await template(sms('Guarded'));
    const theirs = await template(sms('Theirs'), other.apiKey);
    const theirGroup = await tgroup('Theirs', other.apiKey);
    expect((await t.api('PUT', `${BASE}/${tpl.id}`, {})).status).toBe(400);
    expect((await t.api('PUT', `${BASE}/${tpl.id}`, { name: 'x'.repeat(101) })).status).toBe(400);
    expect((await t.api('PUT', `${BASE}/${tpl.id}`, { templateGroupId: theirGroup.id })).status).toBe(404);
    for (const [m, body] of [['GET', undefined], ['PUT', { name: 'x' }], ['DELETE', undefined]] as const) {
      expect((await t.api(m, `${BASE}/tpl_x`, body)).body.error.code).toBe('INVALID_ID');
      expect((await t.api(m, `${BASE}/${newId('tpl')}`, body)).status).toBe(404);
      expect((await t.api(m, `${BASE}/${theirs.id}`, body)).status).toBe(404);
    }
    expect((await t.api('GET', `${BASE}/${theirs.id}`, undefined, { key: other.apiKey })).body.data.name).toBe('Theirs');
  });

  it('delete removes permanently', async () => {
    const tpl = await template(sms('Gone'));
    expect((await t.api('DELETE', `${BASE}/${tpl.id}`)).body).toEqual({ success: true, data: { id: tpl.id, deleted: true } });
    expect((await t.api('GET', `${BASE}/${tpl.id}`)).status).toBe(404);
  });
});

describe('list', () => {
  let acc: TestAccount;
  let folder: { id: string };
  const list = async (q = '') => t.api('GET', `${BASE}${q ? `?${q}` : ''}`, undefined, { key: acc.apiKey });
  const names = async (q: string) => (await list(q)).body.data.map((x: { name: string }) => x.name);

  beforeAll(async () => {
    acc = await t.createAccount();
    folder = await tgroup('Folder', acc.apiKey);
    await template(sms('alpha'), acc.apiKey);
    await template(rcs('Bravo', { context: 'event', templateGroupId: folder.id }), acc.apiKey);
    await template(sms('charlie', { context: 'flow', templateGroupId: folder.id }), acc.apiKey);
    await template({ name: 'Delta card', type: 'RCS', rcsMessageType: 'richCard', content: { title: 'T' } }, acc.apiKey);
    await template(sms('echo 100%'), acc.apiKey);
  });

  it('page-based: {data, pagination: {page, limit, total, totalPages}}, newest first', async () => {
    const r = await list();
    expect(r.body.pagination).toEqual({ page: 1, limit: 20, total: 5, totalPages: 1 });
    expect(r.body.data.map((x: { name: string }) => x.name)).toEqual(['echo 100%', 'Delta card', 'charlie', 'Bravo', 'alpha']);
    const p2 = await list('limit=2&page=2');
    expect(p2.body.pagination).toEqual({ page: 2, limit: 2, total: 5, totalPages: 3 });
    expect(p2.body.data.map((x: { name: string }) => x.name)).toEqual(['charlie', 'Bravo']);
    expect((await list('limit=2&page=9')).body.data).toEqual([]);
    const walked: string[] = [];
    for (let page = 1; page <= 3; page++) walked.push(...(await names(`limit=2&page=${page}&sort=name`)));
    expect(walked).toEqual(['alpha', 'Bravo', 'charlie', 'Delta card', 'echo 100%']);
  });

  it('filters by type, rcsMessageType, context, group (id or none) and search', async () => {
    expect(await names('type=RCS')).toEqual(['Delta card', 'Bravo']);
    expect(await names('rcsMessageType=richCard')).toEqual(['Delta card']);
    expect(await names('context=flow')).toEqual(['charlie']);
    expect(await names(`templateGroupId=${folder.id}`)).toEqual(['charlie', 'Bravo']);
    expect(await names('templateGroupId=none')).toEqual(['echo 100%', 'Delta card', 'alpha']);
    expect(await names('search=ALPH')).toEqual(['alpha']);
    expect(await names('search=%25')).toEqual(['echo 100%']);
    expect(await names('sort=name&order=desc')).toEqual(['echo 100%', 'Delta card', 'charlie', 'Bravo', 'alpha']);
    expect((await list('type=SMS&context=general')).body.pagination.total).toBe(2);
  });

  it('refuses unknown values and out-of-range paging; foreign group is 404', async () => {
    for (const q of ['type=sms', 'type=MMS', 'context=campaign', 'rcsMessageType=hologram', 'sort=content', 'order=random', 'page=0', 'limit=0', 'limit=101', 'page=abc', 'templateGroupId=tg_bad', `search=${'x'.repeat(101)}`]) {
      const r = await list(q);
      expect(r.status, q).toBe(400);
    }
    expect((await list('limit=100')).status).toBe(200);
    const theirs = await tgroup('Not yours', other.apiKey);
    expect((await list(`templateGroupId=${theirs.id}`)).status).toBe(404);
    expect((await list(`templateGroupId=${newId('tg')}`)).status).toBe(404);
  });

  it('another account sees none of these templates', async () => {
    const r = await t.api('GET', `${BASE}?limit=100&search=bravo`, undefined, { key: other.apiKey });
    expect(r.body.data).toEqual([]);
  });
});

describe('template groups', () => {
  it('create, get, rename, list with templateCount and ungroupedTemplateCount, delete ungroups', async () => {
    const acc = await t.createAccount();
    const key = { key: acc.apiKey };
    const g = await tgroup(' Promotions ', acc.apiKey);
    expect(g).toEqual({ id: expect.stringMatching(/^tg_/), templateGroupId: g.id, name: 'Promotions', templateCount: 0, createdAt: expect.any(String), updatedAt: expect.any(String) });
    const a = await template(sms('a', { templateGroupId: g.id }), acc.apiKey);
    await template(sms('b'), acc.apiKey);
    await template(sms('c'), acc.apiKey);
    const other2 = await tgroup('Archive', acc.apiKey);
    let r = await t.api('GET', GROUPS, undefined, key);
    expect(r.status).toBe(200);
    expect(r.body.ungroupedTemplateCount).toBe(2);
    expect(r.body.data.map((x: { name: string; templateCount: number }) => [x.name, x.templateCount])).toEqual([['Archive', 0], ['Promotions', 1]]);
    expect(r.body.pagination).toMatchObject({ hasNext: false, count: 2 });
    expect((await t.api('GET', `${GROUPS}/${g.id}`, undefined, key)).body.data.templateCount).toBe(1);
    r = await t.api('PUT', `${GROUPS}/${g.id}`, { name: 'Promos' }, key);
    expect(r.body.data).toMatchObject({ name: 'Promos', templateCount: 1 });
    r = await t.api('DELETE', `${GROUPS}/${g.id}`, undefined, key);
    expect(r.body).toEqual({ success: true, data: { id: g.id, deleted: true, ungroupedTemplates: 1 } });
    expect((await t.api('GET', `${BASE}/${a.id}`, undefined, key)).body.data.templateGroupId).toBeNull();
    r = await t.api('GET', GROUPS, undefined, key);
    expect(r.body.ungroupedTemplateCount).toBe(3);
    expect(r.body.data.map((x: { id: string }) => x.id)).toEqual([other2.id]);
  });

  it('names: required, ≤ 100, unique per account ignoring case (409)', async () => {
    await tgroup('n'.repeat(100));
    await tgroup('Unique');
    for (const [body, status] of [
      [{ name: 'n'.repeat(101) }, 400],
      [{ name: '' }, 400],
      [{}, 400],
      [{ name: 3 }, 400],
      [{ name: 'x', extra: 1 }, 400],
      [{ name: 'UNIQUE' }, 409],
      [{ name: ' unique ' }, 409],
    ] as const) {
      const r = await t.api('POST', GROUPS, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
    }
    const g = await tgroup('Another');
    expect((await t.api('PUT', `${GROUPS}/${g.id}`, { name: 'unique' })).status).toBe(409);
    expect((await t.api('PUT', `${GROUPS}/${g.id}`, { name: 'n'.repeat(101) })).status).toBe(400);
    expect((await t.api('PUT', `${GROUPS}/${g.id}`, { name: 'ANOTHER' })).status).toBe(200);
    // Other accounts may reuse names.
    expect((await t.api('POST', GROUPS, { name: 'Unique' }, { key: other.apiKey })).status).toBe(201);
  });

  it('assign moves templates into one group; null ungroups; foreign/unknown templates reported', async () => {
    const g1 = await tgroup('Assign 1');
    const g2 = await tgroup('Assign 2');
    const a = await template(sms('assign a'));
    const b = await template(sms('assign b', { templateGroupId: g1.id }));
    const theirs = await template(sms('their template'), other.apiKey);
    let r = await t.api('POST', `${GROUPS}/assign`, { templateIds: [a.id, b.id, a.id, theirs.id], templateGroupId: g2.id });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, data: { templateGroupId: g2.id, requestedCount: 3, assignedCount: 2, notFoundIds: [theirs.id] } });
    expect((await t.api('GET', `${GROUPS}/${g1.id}`)).body.data.templateCount).toBe(0);
    expect((await t.api('GET', `${GROUPS}/${g2.id}`)).body.data.templateCount).toBe(2);
    r = await t.api('POST', `${GROUPS}/assign`, { templateIds: [b.id], templateGroupId: null });
    expect(r.body.data).toMatchObject({ templateGroupId: null, assignedCount: 1 });
    expect((await t.api('GET', `${BASE}/${b.id}`)).body.data.templateGroupId).toBeNull();
    expect((await t.api('GET', `${BASE}/${theirs.id}`, undefined, { key: other.apiKey })).body.data.templateGroupId).toBeNull();
    const theirGroup = await tgroup('Their group', other.apiKey);
    for (const id of [newId('tg'), theirGroup.id]) {
      expect((await t.api('POST', `${GROUPS}/assign`, { templateIds: [a.id], templateGroupId: id })).status).toBe(404);
    }
    for (const body of [{ templateIds: [a.id] }, { templateIds: [], templateGroupId: null }, { templateIds: ['tpl_x'], templateGroupId: null }, { templateIds: Array.from({ length: 1001 }, () => newId('tpl')), templateGroupId: null }]) {
      expect((await t.api('POST', `${GROUPS}/assign`, body)).status).toBe(400);
    }
    expect((await t.api('POST', `${GROUPS}/assign`, { templateIds: Array.from({ length: 1000 }, () => newId('tpl')), templateGroupId: null })).status).toBe(200);
  });

  it('400 malformed, 404 unknown and foreign group ids', async () => {
    const theirs = await tgroup('Foreign folder', other.apiKey);
    for (const [m, body] of [['GET', undefined], ['PUT', { name: 'Mine' }], ['DELETE', undefined]] as const) {
      expect((await t.api(m, `${GROUPS}/tg_x`, body)).body.error.code).toBe('INVALID_ID');
      expect((await t.api(m, `${GROUPS}/${newId('tg')}`, body)).status).toBe(404);
      expect((await t.api(m, `${GROUPS}/${theirs.id}`, body)).status).toBe(404);
    }
    expect((await t.api('GET', `${GROUPS}/${theirs.id}`, undefined, { key: other.apiKey })).body.data.name).toBe('Foreign folder');
    expect((await t.api('GET', `${GROUPS}?limit=200`)).body.data.map((g: { id: string }) => g.id)).not.toContain(theirs.id);
  });
});

describe('permissions', () => {
  it('templates:read for reads, templates:write for writes', async () => {
    const tpl = await template(sms('Perm'));
    const g = await tgroup('Perm group');
    const readOnly = await t.createKey(t.account.accountId, ['templates:read']);
    const none = await t.createKey(t.account.accountId, ['contacts:read']);
    for (const p of [BASE, `${BASE}/${tpl.id}`, GROUPS, `${GROUPS}/${g.id}`]) {
      const r = await t.api('GET', p, undefined, { key: none });
      expect(r.status, p).toBe(403);
      expect(r.body.error.requiredPermission).toBe('templates:read');
      expect((await t.api('GET', p, undefined, { key: readOnly })).status).toBe(200);
    }
    for (const [m, p, b] of [
      ['POST', BASE, sms('x')],
      ['PUT', `${BASE}/${tpl.id}`, { name: 'x' }],
      ['DELETE', `${BASE}/${tpl.id}`, undefined],
      ['POST', GROUPS, { name: 'x' }],
      ['PUT', `${GROUPS}/${g.id}`, { name: 'x' }],
      ['DELETE', `${GROUPS}/${g.id}`, undefined],
      ['POST', `${GROUPS}/assign`, { templateIds: [tpl.id], templateGroupId: null }],
    ] as const) {
      const r = await t.api(m, p, b, { key: readOnly });
      expect(r.status, `${m} ${p}`).toBe(403);
      expect(r.body.error.requiredPermission).toBe('templates:write');
    }
  });
});
