import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/platform/ids.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

const BASE = '/api/v1/contacts';
const FIELDS = `${BASE}/fields`;
const phone = (i: number) => `+49151${String(50000000 + i)}`;

let t: TestServer;
let other: TestAccount;
let seq = 0;

beforeAll(async () => {
  t = await startTestServer();
  other = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

async function field(name: string, tag: string, key?: string) {
  const r = await t.api('POST', FIELDS, { name, tag }, key ? { key } : {});
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}
async function contact(key?: string) {
  const r = await t.api('POST', BASE, { phone: phone(++seq) }, key ? { key } : {});
  expect(r.status).toBe(201);
  return r.body.data;
}

describe('custom field definitions', () => {
  it('creates, gets, lists, updates and deletes', async () => {
    const f = await field(' Favourite colour ', 'fav_colour');
    expect(f).toEqual({
      id: expect.stringMatching(/^fld_/),
      name: 'Favourite colour',
      tag: 'fav_colour',
      placeholder: '{{fav_colour}}',
      usageCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await t.api('GET', `${FIELDS}/${f.id}`)).body).toEqual({ success: true, data: f });
    const list = await t.api('GET', FIELDS);
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(f.id);
    expect(list.body.pagination).toMatchObject({ hasNext: false, nextCursor: null });
    const up = await t.api('PUT', `${FIELDS}/${f.id}`, { name: 'Colour', tag: 'colour' });
    expect(up.body.data).toMatchObject({ id: f.id, name: 'Colour', tag: 'colour', placeholder: '{{colour}}' });
    const del = await t.api('DELETE', `${FIELDS}/${f.id}`);
    expect(del.body).toEqual({ success: true, data: { id: f.id, deleted: true, deletedValues: 0 } });
    expect((await t.api('GET', `${FIELDS}/${f.id}`)).status).toBe(404);
  });

  it('tags: letters, digits, underscore; ≤ 50; unique ignoring case (409); never a built-in merge field', async () => {
    await field('n', 't'.repeat(50));
    await field('Digits first', '2fa_code');
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ name: 'n', tag: 't'.repeat(51) }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: 'has space' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: 'dash-ed' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: '{{x}}' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: 'émoji' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: '' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n' }, 400, 'VALIDATION_ERROR'],
      [{ tag: 'no_name' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'x'.repeat(101), tag: 'long_name' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: 5 }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: 'ok_tag', extra: 1 }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: 'contact_first_name' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: 'TODAY' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: 'Unsubscribe_Link' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: 'company_name' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'n', tag: 'T'.repeat(50) }, 409, 'CONFLICT'],
    ];
    for (const [body, status, code] of cases) {
      const r = await t.api('POST', FIELDS, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.error.code).toBe(code);
    }
    const reserved = await t.api('POST', FIELDS, { name: 'n', tag: 'contact_phone' });
    expect(reserved.body.error.details[0]).toMatchObject({ path: 'tag', code: 'reserved' });
    expect((await t.api('POST', FIELDS, { name: 'x'.repeat(100), tag: 'name_100' })).status).toBe(201);
    // Another account may use the same tag.
    expect((await t.api('POST', FIELDS, { name: 'n', tag: 't'.repeat(50) }, { key: other.apiKey })).status).toBe(201);
  });

  it('update refuses a taken or reserved tag and an empty body', async () => {
    const a = await field('A', 'upd_a');
    await field('B', 'upd_b');
    expect((await t.api('PUT', `${FIELDS}/${a.id}`, { tag: 'UPD_B' })).status).toBe(409);
    expect((await t.api('PUT', `${FIELDS}/${a.id}`, { tag: 'today' })).status).toBe(400);
    expect((await t.api('PUT', `${FIELDS}/${a.id}`, {})).status).toBe(400);
    expect((await t.api('PUT', `${FIELDS}/${a.id}`, { tag: 'Upd_A' })).body.data.tag).toBe('Upd_A');
  });

  it('delete refuses FIELD_IN_USE while values exist unless force=true', async () => {
    const f = await field('Used', 'used_field');
    const c1 = await contact();
    const c2 = await contact();
    for (const c of [c1, c2]) await t.api('PUT', `${BASE}/${c.id}/fields/${f.id}`, { value: 'v' });
    expect((await t.api('GET', `${FIELDS}/${f.id}`)).body.data.usageCount).toBe(2);
    const r = await t.api('DELETE', `${FIELDS}/${f.id}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'FIELD_IN_USE', usageCount: 2 });
    expect((await t.api('DELETE', `${FIELDS}/${f.id}?force=false`)).status).toBe(400);
    expect((await t.api('DELETE', `${FIELDS}/${f.id}?force=yes`)).status).toBe(400);
    const forced = await t.api('DELETE', `${FIELDS}/${f.id}?force=true`);
    expect(forced.body.data).toEqual({ id: f.id, deleted: true, deletedValues: 2 });
    expect((await t.api('GET', `${BASE}/${c1.id}/fields`)).body.data.customFields).toEqual([]);
  });

  it('lists with cursor pagination, oldest first', async () => {
    const acc = await t.createAccount();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await field(`F${i}`, `f${i}`, acc.apiKey)).id);
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const r = await t.api('GET', `${FIELDS}?limit=2${cursor}`, undefined, { key: acc.apiKey });
      seen.push(...r.body.data.map((f: { id: string }) => f.id));
      if (!r.body.pagination.hasNext) break;
      cursor = `&cursor=${r.body.pagination.nextCursor}`;
    }
    expect(seen).toEqual(ids);
    expect((await t.api('GET', `${FIELDS}?limit=201`)).status).toBe(400);
    expect((await t.api('GET', `${FIELDS}?cursor=zzz`)).body.error.code).toBe('INVALID_CURSOR');
  });

  it('400 malformed ids, 404 unknown and foreign ids', async () => {
    const theirs = await field('Theirs', 'theirs', other.apiKey);
    for (const [m, body] of [['GET', undefined], ['PUT', { name: 'x' }], ['DELETE', undefined]] as const) {
      expect((await t.api(m, `${FIELDS}/fld_bad`, body)).body.error.code).toBe('INVALID_ID');
      expect((await t.api(m, `${FIELDS}/${newId('fld')}`, body)).status).toBe(404);
      expect((await t.api(m, `${FIELDS}/${theirs.id}`, body)).status).toBe(404);
    }
    expect((await t.api('GET', `${FIELDS}/${theirs.id}`, undefined, { key: other.apiKey })).body.data.name).toBe('Theirs');
    const mine = (await t.api('GET', `${FIELDS}?limit=200`)).body.data.map((f: { id: string }) => f.id);
    expect(mine).not.toContain(theirs.id);
  });
});

describe('per-contact values', () => {
  it('get all, bulk set by fieldId or tag, set one, delete one; null deletes', async () => {
    const city = await field('City', 'v_city');
    const tier = await field('Tier', 'v_tier');
    const c = await contact();
    expect((await t.api('GET', `${BASE}/${c.id}/fields`)).body).toEqual({ success: true, data: { contactId: c.id, customFields: [] } });
    let r = await t.api('PUT', `${BASE}/${c.id}/fields`, { customFields: [{ fieldId: city.id, value: 'Berlin' }, { tag: 'V_TIER', value: 'gold' }] });
    expect(r.status).toBe(200);
    expect(r.body.data.customFields).toEqual([
      { fieldId: city.id, tag: 'v_city', name: 'City', value: 'Berlin' },
      { fieldId: tier.id, tag: 'v_tier', name: 'Tier', value: 'gold' },
    ]);
    r = await t.api('PUT', `${BASE}/${c.id}/fields`, { customFields: [{ tag: 'v_city', value: null }] });
    expect(r.body.data.customFields.map((v: { tag: string }) => v.tag)).toEqual(['v_tier']);
    r = await t.api('PUT', `${BASE}/${c.id}/fields/${city.id}`, { value: 'Paris' });
    expect(r.body).toEqual({ success: true, data: { contactId: c.id, fieldId: city.id, tag: 'v_city', name: 'City', value: 'Paris' } });
    r = await t.api('PUT', `${BASE}/${c.id}/fields/${city.id}`, { value: null });
    expect(r.body.data.value).toBeNull();
    expect((await t.api('GET', `${BASE}/${c.id}?include=customFields`)).body.data.customFields.map((v: { tag: string }) => v.tag)).toEqual(['v_tier']);
    r = await t.api('DELETE', `${BASE}/${c.id}/fields/${tier.id}`);
    expect(r.body).toEqual({ success: true, data: { contactId: c.id, fieldId: tier.id, deleted: true } });
    r = await t.api('DELETE', `${BASE}/${c.id}/fields/${tier.id}`);
    expect(r.body.data.deleted).toBe(false);
  });

  it('value length ≤ 1000; body shape enforced', async () => {
    const f = await field('Long', 'v_long');
    const c = await contact();
    expect((await t.api('PUT', `${BASE}/${c.id}/fields/${f.id}`, { value: 'x'.repeat(1000) })).status).toBe(200);
    for (const [path, body] of [
      [`${BASE}/${c.id}/fields/${f.id}`, { value: 'x'.repeat(1001) }],
      [`${BASE}/${c.id}/fields/${f.id}`, { value: 5 }],
      [`${BASE}/${c.id}/fields/${f.id}`, {}],
      [`${BASE}/${c.id}/fields`, { customFields: [] }],
      [`${BASE}/${c.id}/fields`, { customFields: [{ value: 'no ref' }] }],
      [`${BASE}/${c.id}/fields`, { customFields: [{ fieldId: f.id, tag: 'v_long', value: 'both' }] }],
      [`${BASE}/${c.id}/fields`, { customFields: [{ fieldId: 'fld_bad', value: 'x' }] }],
      [`${BASE}/${c.id}/fields`, [{ fieldId: f.id, value: 'x' }]],
    ] as const) {
      const r = await t.api('PUT', path, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('unknown or foreign contact/field is 404, malformed 400; nothing changes for the owner', async () => {
    const mine = await field('Mine', 'v_mine');
    const theirField = await field('Their', 'v_their', other.apiKey);
    const c = await contact();
    const theirContact = await contact(other.apiKey);
    await t.api('PUT', `${BASE}/${theirContact.id}/fields/${theirField.id}`, { value: 'secret' }, { key: other.apiKey });
    const attempts: Array<[string, string, unknown]> = [
      ['GET', `${BASE}/${theirContact.id}/fields`, undefined],
      ['PUT', `${BASE}/${theirContact.id}/fields`, { customFields: [{ fieldId: mine.id, value: 'x' }] }],
      ['PUT', `${BASE}/${theirContact.id}/fields/${mine.id}`, { value: 'x' }],
      ['DELETE', `${BASE}/${theirContact.id}/fields/${theirField.id}`, undefined],
      ['PUT', `${BASE}/${c.id}/fields/${theirField.id}`, { value: 'x' }],
      ['DELETE', `${BASE}/${c.id}/fields/${theirField.id}`, undefined],
      ['PUT', `${BASE}/${c.id}/fields`, { customFields: [{ fieldId: theirField.id, value: 'x' }] }],
      ['PUT', `${BASE}/${c.id}/fields`, { customFields: [{ tag: 'v_their', value: 'x' }] }],
      ['GET', `${BASE}/${newId('ct')}/fields`, undefined],
      ['PUT', `${BASE}/${c.id}/fields/${newId('fld')}`, { value: 'x' }],
    ];
    for (const [m, p, b] of attempts) {
      const r = await t.api(m, p, b);
      expect(r.status, `${m} ${p}`).toBe(404);
    }
    expect((await t.api('GET', `${BASE}/ct_x/fields`)).body.error.code).toBe('INVALID_ID');
    expect((await t.api('PUT', `${BASE}/${c.id}/fields/fld_x`, { value: 'x' })).body.error.code).toBe('INVALID_ID');
    const theirs = await t.api('GET', `${BASE}/${theirContact.id}/fields`, undefined, { key: other.apiKey });
    expect(theirs.body.data.customFields).toEqual([{ fieldId: theirField.id, tag: 'v_their', name: 'Their', value: 'secret' }]);
  });
});

describe('permissions', () => {
  it('definitions and values need custom-fields:read / custom-fields:write', async () => {
    const f = await field('Perm', 'perm');
    const c = await contact();
    const contactsOnly = await t.createKey(t.account.accountId, ['contacts:read', 'contacts:write']);
    const readOnly = await t.createKey(t.account.accountId, ['custom-fields:read']);
    for (const [m, p, b] of [
      ['GET', FIELDS, undefined],
      ['GET', `${FIELDS}/${f.id}`, undefined],
      ['GET', `${BASE}/${c.id}/fields`, undefined],
    ] as const) {
      const r = await t.api(m, p, b, { key: contactsOnly });
      expect(r.status, p).toBe(403);
      expect(r.body.error.requiredPermission).toBe('custom-fields:read');
      expect((await t.api(m, p, b, { key: readOnly })).status).toBe(200);
    }
    for (const [m, p, b] of [
      ['POST', FIELDS, { name: 'x', tag: 'perm_x' }],
      ['PUT', `${FIELDS}/${f.id}`, { name: 'y' }],
      ['DELETE', `${FIELDS}/${f.id}`, undefined],
      ['PUT', `${BASE}/${c.id}/fields`, { customFields: [{ fieldId: f.id, value: 'x' }] }],
      ['PUT', `${BASE}/${c.id}/fields/${f.id}`, { value: 'x' }],
      ['DELETE', `${BASE}/${c.id}/fields/${f.id}`, undefined],
    ] as const) {
      const r = await t.api(m, p, b, { key: readOnly });
      expect(r.status, `${m} ${p}`).toBe(403);
      expect(r.body.error.requiredPermission).toBe('custom-fields:write');
    }
  });
});
