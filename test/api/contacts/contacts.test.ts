import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/platform/ids.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

const BASE = '/api/v1/contacts';
/** Valid German mobile numbers: +49 151 2xxxxxxx. */
const phone = (i: number) => `+49151${String(20000000 + i)}`;
const digits = (i: number) => phone(i).slice(1);

let t: TestServer;
let other: TestAccount;
let seq = 0;
const nextPhone = () => phone(++seq);

async function create(body: Record<string, unknown>, key?: string) {
  const r = await t.api('POST', BASE, body, key ? { key } : {});
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

beforeAll(async () => {
  t = await startTestServer();
  other = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('POST /contacts', () => {
  it('creates a contact with normalised phone, country and empty relations', async () => {
    const r = await t.api('POST', BASE, { phone: '+49 151 1234-5678', firstName: ' Ada ', lastName: 'Lovelace', email: 'ada@example.org' });
    expect(r.status).toBe(201);
    expect(r.body.success).toBe(true);
    expect(r.body.data).toEqual({
      id: expect.stringMatching(/^ct_[0-9A-Z]{26}$/),
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '4915112345678',
      country: 'DE',
      email: 'ada@example.org',
      disabled: false,
      disabledReason: null,
      disabledAt: null,
      groups: [],
      customFields: [],
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
  });

  it('409 for the same number in any accepted form, naming the existing contact', async () => {
    const c = await create({ phone: nextPhone() });
    for (const form of [`+${c.phone}`, `00${c.phone}`, c.phone]) {
      const r = await t.api('POST', BASE, { phone: form });
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('CONFLICT');
      expect(r.body.error.existingContactId).toBe(c.id);
    }
  });

  it('400 COUNTRY_NOT_SUPPORTED for a country outside the price list, and nothing is stored', async () => {
    const r = await t.api('POST', BASE, { phone: '+819012345678', firstName: 'Taro' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('COUNTRY_NOT_SUPPORTED');
    expect(r.body.error.country).toBe('JP');
    const lookup = await t.api('GET', `${BASE}/+819012345678`);
    expect(lookup.status).toBe(404);
    const count = await t.api('GET', `${BASE}/count?search=taro`);
    expect(count.body.count).toBe(0);
  });

  it('a country removed from the price list is refused', async () => {
    const acc = await t.createAccount();
    await t.ctx.services.accounts.setPrice(acc.accountId, 'FR', null);
    const r = await t.api('POST', BASE, { phone: '+33612345678' }, { key: acc.apiKey });
    expect(r.body.error.code).toBe('COUNTRY_NOT_SUPPORTED');
    const ok = await t.api('POST', BASE, { phone: '+33612345678' }, { key: t.account.apiKey });
    expect(ok.status).toBe(201);
  });

  it('enforces name, email and phone limits at the boundary', async () => {
    const n100 = 'x'.repeat(100);
    const ok = await t.api('POST', BASE, { phone: nextPhone(), firstName: n100, lastName: n100 });
    expect(ok.status).toBe(201);
    for (const [body, path] of [
      [{ phone: nextPhone(), firstName: 'x'.repeat(101) }, 'firstName'],
      [{ phone: nextPhone(), lastName: 'x'.repeat(101) }, 'lastName'],
      [{ phone: nextPhone(), email: 'not-an-email' }, 'email'],
      [{ phone: nextPhone(), email: 'a@b' }, 'email'],
      [{ phone: '12345' }, 'phone'],
      [{ phone: '+491511234567890123456' }, 'phone'],
      [{ phone: '015112345678' }, 'phone'],
      [{ phone: 'call me' }, 'phone'],
      [{}, 'phone'],
      [{ phone: 4915112345678 }, 'phone'],
      [{ phone: nextPhone(), firstName: 7 }, 'firstName'],
      [{ phone: nextPhone(), groups: 'grp_x' }, 'groups'],
      [{ phone: nextPhone(), groups: ['grp_bad'] }, 'groups[0]'],
      [{ phone: nextPhone(), nickname: 'x' }, ''],
    ] as const) {
      const r = await t.api('POST', BASE, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect(r.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });

  it('accepts empty strings as "not set" and a 6-digit minimum is counted on digits', async () => {
    const c = await create({ phone: nextPhone(), firstName: '', email: '  ' });
    expect(c.firstName).toBeNull();
    expect(c.email).toBeNull();
  });

  it('400 for broken JSON and for a missing body', async () => {
    const r = await t.api('POST', BASE, undefined, { rawBody: '{"phone":' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_JSON');
    const none = await t.api('POST', BASE);
    expect(none.status).toBe(400);
  });

  it('adds groups and custom fields; unknown or foreign ones are 404 and nothing is stored', async () => {
    const g = (await t.api('POST', '/api/v1/groups', { name: 'VIP' })).body.data;
    const f = (await t.api('POST', `${BASE}/fields`, { name: 'City', tag: 'city' })).body.data;
    const c = await create({ phone: nextPhone(), groups: [g.id, g.id], customFields: [{ fieldId: f.id, value: 'Berlin' }, { tag: 'CITY', value: 'Hamburg' }] });
    expect(c.groups).toEqual([{ id: g.id, name: 'VIP' }]);
    expect(c.customFields).toEqual([{ fieldId: f.id, tag: 'city', name: 'City', value: 'Hamburg' }]);

    const foreignGroup = (await t.api('POST', '/api/v1/groups', { name: 'Theirs' }, { key: other.apiKey })).body.data;
    const p = nextPhone();
    for (const body of [
      { phone: p, groups: [newId('grp')] },
      { phone: p, groups: [foreignGroup.id] },
      { phone: p, customFields: [{ fieldId: newId('fld'), value: 'x' }] },
      { phone: p, customFields: [{ tag: 'nope', value: 'x' }] },
    ]) {
      const r = await t.api('POST', BASE, body);
      expect(r.status, JSON.stringify(body)).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
    }
    expect((await t.api('GET', `${BASE}/${p}`)).status).toBe(404);
  });
});

describe('GET /contacts/{id}', () => {
  it('finds a contact by id and by phone with +, 00 or bare digits', async () => {
    const c = await create({ phone: nextPhone(), firstName: 'Grace' });
    for (const key of [c.id, `+${c.phone}`, `00${c.phone}`, c.phone, encodeURIComponent(`+${c.phone}`)]) {
      const r = await t.api('GET', `${BASE}/${key}`);
      expect(r.status, key).toBe(200);
      expect(r.body).toEqual({ success: true, data: { ...c, customFields: undefined } });
      expect(r.body.data.customFields).toBeUndefined();
    }
  });

  it('include=customFields embeds values; other include values are 400', async () => {
    const c = await create({ phone: nextPhone() });
    const r = await t.api('GET', `${BASE}/${c.id}?include=customFields`);
    expect(r.body.data.customFields).toEqual([]);
    expect((await t.api('GET', `${BASE}/${c.id}?include=everything`)).status).toBe(400);
  });

  it('400 for malformed ids, 404 for unknown and foreign ids and numbers', async () => {
    expect((await t.api('GET', `${BASE}/ct_123`)).body.error.code).toBe('INVALID_ID');
    expect((await t.api('GET', `${BASE}/hello`)).status).toBe(400);
    expect((await t.api('GET', `${BASE}/${newId('ct')}`)).status).toBe(404);
    expect((await t.api('GET', `${BASE}/${phone(99999)}`)).status).toBe(404);
    expect((await t.api('GET', `${BASE}/12345`)).status).toBe(404);
    const theirs = await create({ phone: nextPhone() }, other.apiKey);
    const r = await t.api('GET', `${BASE}/${theirs.id}`);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('NOT_FOUND');
    expect((await t.api('GET', `${BASE}/+${theirs.phone}`)).status).toBe(404);
  });
});

describe('GET /contacts (list)', () => {
  let acc: TestAccount;
  const api = (path: string) => t.api('GET', path, undefined, { key: acc.apiKey });

  beforeAll(async () => {
    acc = await t.createAccount();
    const people = [
      { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@Example.org' },
      { firstName: 'Grace', lastName: 'Hopper', email: 'grace@navy.mil' },
      { firstName: 'Émile', lastName: 'Zola', email: null },
      { firstName: null, lastName: 'Turing', email: 'alan@example.org' },
      { firstName: '100%', lastName: 'Under_score', email: null },
    ];
    for (const [i, p] of people.entries()) await create({ phone: phone(500 + i), ...p }, acc.apiKey);
  });

  it('returns {data, pagination} newest first by default', async () => {
    const r = await api(BASE);
    expect(r.status).toBe(200);
    expect(r.body.pagination).toEqual({ nextCursor: null, hasNext: false, limit: 50, count: 5 });
    expect(r.body.data.map((c: { lastName: string }) => c.lastName)).toEqual(['Under_score', 'Turing', 'Zola', 'Hopper', 'Lovelace']);
  });

  it('searches case-insensitively over first name, last name, full name, phone and email', async () => {
    const names = async (q: string) => (await api(`${BASE}?search=${encodeURIComponent(q)}`)).body.data.map((c: { lastName: string }) => c.lastName).sort();
    expect(await names('ADA')).toEqual(['Lovelace']);
    expect(await names('hopper')).toEqual(['Hopper']);
    expect(await names('ada lovelace')).toEqual(['Lovelace']);
    expect(await names('example.ORG')).toEqual(['Lovelace', 'Turing']);
    expect(await names('émile')).toEqual(['Zola']);
    expect(await names(`+${digits(502)}`)).toEqual(['Zola']);
    expect(await names('+49 151')).toHaveLength(5);
    expect(await names('%')).toEqual(['Under_score']);
    expect(await names('u_d')).toEqual([]);
    expect(await names('under_')).toEqual(['Under_score']);
    expect((await api(`${BASE}?search=${'x'.repeat(101)}`)).status).toBe(400);
  });

  it('phone is an exact lookup returning 0 or 1 and bypassing pagination', async () => {
    for (const form of [`+${digits(501)}`, `00${digits(501)}`, digits(501)]) {
      const r = await api(`${BASE}?phone=${encodeURIComponent(form)}&limit=1&disabled=true`);
      expect(r.status).toBe(200);
      expect(r.body.data).toHaveLength(1);
      expect(r.body.data[0].lastName).toBe('Hopper');
      expect(r.body.pagination).toEqual({ nextCursor: null, hasNext: false, limit: 1, count: 1 });
    }
    expect((await api(`${BASE}?phone=${phone(9999)}`)).body.data).toEqual([]);
    const bad = await api(`${BASE}?phone=015112345678`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('phone');
  });

  it('sorts by the allowed keys and refuses others', async () => {
    const order = async (q: string) => (await api(`${BASE}?${q}`)).body.data.map((c: { lastName: string }) => c.lastName);
    expect(await order('sort=lastName')).toEqual(['Hopper', 'Lovelace', 'Turing', 'Under_score', 'Zola']);
    expect(await order('sort=lastName&order=desc')).toEqual(['Zola', 'Under_score', 'Turing', 'Lovelace', 'Hopper']);
    expect(await order('sort=firstName')).toEqual(['Turing', 'Under_score', 'Lovelace', 'Hopper', 'Zola']);
    expect(await order('sort=createdAt&order=asc')).toEqual(['Lovelace', 'Hopper', 'Zola', 'Turing', 'Under_score']);
    expect(await order('sort=phone')).toEqual(['Lovelace', 'Hopper', 'Zola', 'Turing', 'Under_score']);
    expect((await order('sort=email')).slice(-3)).toEqual(['Lovelace', 'Turing', 'Hopper']);
    for (const q of ['sort=name', 'sort=id', 'order=up', 'sort=createdAt;drop', 'limit=0', 'limit=201', 'limit=abc', 'disabled=yes', 'include=groups']) {
      const r = await api(`${BASE}?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await api(`${BASE}?limit=200`)).status).toBe(200);
    expect((await api(`${BASE}?limit=1`)).body.data).toHaveLength(1);
  });

  it('filters by disabled and group; a malformed group is 400, unknown or foreign 404', async () => {
    const all = (await api(BASE)).body.data;
    await t.api('PATCH', `${BASE}/bulk/disable`, { contactIds: [all[0].id] }, { key: acc.apiKey });
    expect((await api(`${BASE}?disabled=true`)).body.data.map((c: { id: string }) => c.id)).toEqual([all[0].id]);
    expect((await api(`${BASE}?disabled=false`)).body.data).toHaveLength(4);
    const g = (await t.api('POST', '/api/v1/groups', { name: 'G' }, { key: acc.apiKey })).body.data;
    await t.api('POST', `/api/v1/groups/${g.id}/contacts`, { contactIds: [all[1].id, all[2].id] }, { key: acc.apiKey });
    expect((await api(`${BASE}?group=${g.id}`)).body.data.map((c: { id: string }) => c.id)).toEqual([all[1].id, all[2].id]);
    expect((await api(`${BASE}?group=${g.id}&disabled=true`)).body.data).toEqual([]);
    expect((await api(`${BASE}?group=grp_nope`)).status).toBe(400);
    expect((await api(`${BASE}?group=${newId('grp')}`)).status).toBe(404);
    const theirs = (await t.api('POST', '/api/v1/groups', { name: 'T' })).body.data;
    expect((await api(`${BASE}?group=${theirs.id}`)).status).toBe(404);

    const count = async (q: string) => (await api(`${BASE}/count${q}`)).body;
    expect(await count('')).toEqual({ success: true, count: 5 });
    expect((await count('?disabled=true')).count).toBe(1);
    expect((await count(`?group=${g.id}`)).count).toBe(2);
    expect((await count('?search=example.org')).count).toBe(2);
    expect((await api(`${BASE}/count?disabled=maybe`)).status).toBe(400);
    expect((await api(`${BASE}/count?group=${theirs.id}`)).status).toBe(404);
    await t.api('PATCH', `${BASE}/bulk/enable`, { contactIds: [all[0].id] }, { key: acc.apiKey });
  });

  it('400 INVALID_CURSOR for a garbage cursor or one made for another sort', async () => {
    const r = await api(`${BASE}?cursor=garbage`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_CURSOR');
    const first = await api(`${BASE}?limit=2`);
    const cursor = first.body.pagination.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    expect((await api(`${BASE}?limit=2&cursor=${cursor}`)).status).toBe(200);
    expect((await api(`${BASE}?limit=2&sort=lastName&cursor=${cursor}`)).body.error.code).toBe('INVALID_CURSOR');
    // A cursor of another tenant's walk is just a position: it never reveals their rows.
    const theirs = await t.api('GET', `${BASE}?limit=2&cursor=${cursor}`, undefined, { key: other.apiKey });
    expect(theirs.status).toBe(200);
    const mine = new Set((await api(`${BASE}?limit=200`)).body.data.map((c: { id: string }) => c.id));
    for (const c of theirs.body.data) expect(mine.has(c.id)).toBe(false);
  });
});

describe('pagination walk while contacts are added', () => {
  it('visits every existing contact exactly once in several orders', async () => {
    const acc = await t.createAccount();
    const ids: string[] = [];
    for (let i = 0; i < 37; i++) ids.push((await create({ phone: phone(1000 + i), firstName: `P${i % 5}`, lastName: i % 3 ? null : 'Same' }, acc.apiKey)).id);
    let added = 0;
    for (const q of ['', 'sort=createdAt&order=asc', 'sort=firstName', 'sort=lastName&order=desc', 'sort=phone&order=desc']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 100; page++) {
        // Someone else keeps adding contacts while the pages are read.
        const [r]: [{ status: number; body: any }, unknown, unknown] = await Promise.all([
          t.api('GET', `${BASE}?limit=6&${q}${cursor ? `&cursor=${cursor}` : ''}`, undefined, { key: acc.apiKey }),
          create({ phone: phone(2000 + added++), firstName: 'P2', lastName: 'Same' }, acc.apiKey),
          create({ phone: phone(2000 + added++), firstName: 'A', lastName: null }, acc.apiKey),
        ]);
        expect(r.status).toBe(200);
        seen.push(...r.body.data.map((c: { id: string }) => c.id));
        if (!r.body.pagination.hasNext) break;
        cursor = r.body.pagination.nextCursor;
      }
      expect(new Set(seen).size, q).toBe(seen.length);
      for (const id of ids) expect(seen, q).toContain(id);
    }
  });
});

describe('PUT /contacts/{id}', () => {
  it('updates only the given fields', async () => {
    const c = await create({ phone: nextPhone(), firstName: 'Old', lastName: 'Name', email: 'old@example.org' });
    const r = await t.api('PUT', `${BASE}/${c.id}`, { firstName: 'New', email: null });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: c.id, firstName: 'New', lastName: 'Name', email: null, phone: c.phone });
    expect(r.body.data.customFields).toEqual([]);
    expect((await t.api('GET', `${BASE}?search=new%20name`)).body.data.map((x: { id: string }) => x.id)).toEqual([c.id]);
  });

  it('changes the phone with the same rules as create (409, COUNTRY_NOT_SUPPORTED, format)', async () => {
    const a = await create({ phone: nextPhone() });
    const b = await create({ phone: nextPhone() });
    const newPhone = nextPhone();
    const r = await t.api('PUT', `${BASE}/${a.id}`, { phone: newPhone });
    expect(r.body.data.phone).toBe(newPhone.slice(1));
    expect((await t.api('PUT', `${BASE}/${a.id}`, { phone: `00${b.phone}` })).status).toBe(409);
    expect((await t.api('PUT', `${BASE}/${a.id}`, { phone: newPhone })).status).toBe(200);
    expect((await t.api('PUT', `${BASE}/${a.id}`, { phone: '+5511912345678' })).body.error.code).toBe('COUNTRY_NOT_SUPPORTED');
    expect((await t.api('PUT', `${BASE}/${a.id}`, { phone: '123' })).status).toBe(400);
  });

  it('replaces groups, sets custom fields, disables and enables', async () => {
    const g1 = (await t.api('POST', '/api/v1/groups', { name: 'One' })).body.data;
    const g2 = (await t.api('POST', '/api/v1/groups', { name: 'Two' })).body.data;
    await t.api('POST', `${BASE}/fields`, { name: 'Tier', tag: 'tier' });
    const c = await create({ phone: nextPhone(), groups: [g1.id] });
    let r = await t.api('PUT', `${BASE}/${c.id}`, { groups: [g2.id], customFields: [{ tag: 'tier', value: 'gold' }], disabled: true });
    expect(r.status).toBe(200);
    expect(r.body.data.groups).toEqual([{ id: g2.id, name: 'Two' }]);
    expect(r.body.data.customFields.map((v: { value: string }) => v.value)).toEqual(['gold']);
    expect(r.body.data.disabled).toBe(true);
    expect(r.body.data.disabledAt).toEqual(expect.any(String));
    expect((await t.api('GET', `/api/v1/groups/${g1.id}`)).body.data.contactCount).toBe(0);
    r = await t.api('PUT', `${BASE}/${c.id}`, { groups: [], customFields: [{ tag: 'tier', value: null }], disabled: false });
    expect(r.body.data).toMatchObject({ groups: [], customFields: [], disabled: false, disabledAt: null });
  });

  it('400 for an empty or invalid body, malformed id; 404 unknown and foreign', async () => {
    const c = await create({ phone: nextPhone() });
    expect((await t.api('PUT', `${BASE}/${c.id}`, {})).status).toBe(400);
    expect((await t.api('PUT', `${BASE}/${c.id}`, { firstName: 'x'.repeat(101) })).status).toBe(400);
    expect((await t.api('PUT', `${BASE}/${c.id}`, { disabled: 'yes' })).status).toBe(400);
    expect((await t.api('PUT', `${BASE}/${c.id}`, { id: 'ct_x' })).status).toBe(400);
    expect((await t.api('PUT', `${BASE}/${c.id}`, { groups: [newId('grp')] })).status).toBe(404);
    expect((await t.api('PUT', `${BASE}/nope`, { firstName: 'x' })).body.error.code).toBe('INVALID_ID');
    expect((await t.api('PUT', `${BASE}/${newId('ct')}`, { firstName: 'x' })).status).toBe(404);
    const theirs = await create({ phone: nextPhone(), firstName: 'Theirs' }, other.apiKey);
    expect((await t.api('PUT', `${BASE}/${theirs.id}`, { firstName: 'Mine' })).status).toBe(404);
    expect((await t.api('GET', `${BASE}/${theirs.id}`, undefined, { key: other.apiKey })).body.data.firstName).toBe('Theirs');
  });
});

describe('DELETE /contacts/{id}', () => {
  it('deletes the contact, its memberships and field values', async () => {
    const g = (await t.api('POST', '/api/v1/groups', { name: 'Doomed members' })).body.data;
    const f = (await t.api('POST', `${BASE}/fields`, { name: 'Pet', tag: 'pet' })).body.data;
    const c = await create({ phone: nextPhone(), groups: [g.id], customFields: [{ fieldId: f.id, value: 'cat' }] });
    expect((await t.api('GET', `${BASE}/fields/${f.id}`)).body.data.usageCount).toBe(1);
    const r = await t.api('DELETE', `${BASE}/${c.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, data: { id: c.id, deleted: true, cancelledMessages: 0 } });
    expect((await t.api('GET', `${BASE}/${c.id}`)).status).toBe(404);
    expect((await t.api('GET', `/api/v1/groups/${g.id}`)).body.data.contactCount).toBe(0);
    expect((await t.api('GET', `${BASE}/fields/${f.id}`)).body.data.usageCount).toBe(0);
    expect((await t.api('DELETE', `${BASE}/${c.id}`)).status).toBe(404);
    // The phone is free again.
    expect((await t.api('POST', BASE, { phone: `+${c.phone}` })).status).toBe(201);
  });

  it('400 malformed, 404 unknown and foreign (their contact survives)', async () => {
    expect((await t.api('DELETE', `${BASE}/abc`)).status).toBe(400);
    expect((await t.api('DELETE', `${BASE}/${newId('ct')}`)).status).toBe(404);
    const theirs = await create({ phone: nextPhone() }, other.apiKey);
    expect((await t.api('DELETE', `${BASE}/${theirs.id}`)).status).toBe(404);
    expect((await t.api('GET', `${BASE}/${theirs.id}`, undefined, { key: other.apiKey })).status).toBe(200);
  });
});

describe('permissions and tenancy', () => {
  it('401 without a key; 403 naming the permission', async () => {
    expect((await t.api('GET', BASE, undefined, { key: null })).status).toBe(401);
    const readOnly = await t.createKey(t.account.accountId, ['contacts:read']);
    const none = await t.createKey(t.account.accountId, ['groups:read']);
    const w = await t.api('POST', BASE, { phone: nextPhone() }, { key: readOnly });
    expect(w.status).toBe(403);
    expect(w.body.error).toMatchObject({ code: 'FORBIDDEN', requiredPermission: 'contacts:write' });
    expect((await t.api('GET', BASE, undefined, { key: readOnly })).status).toBe(200);
    for (const [m, p, b] of [
      ['GET', BASE, undefined],
      ['GET', `${BASE}/count`, undefined],
      ['GET', `${BASE}/${newId('ct')}`, undefined],
    ] as const) {
      const r = await t.api(m, p, b, { key: none });
      expect(r.status, p).toBe(403);
      expect(r.body.error.requiredPermission).toBe('contacts:read');
    }
    for (const [m, p, b] of [
      ['PUT', `${BASE}/${newId('ct')}`, { firstName: 'x' }],
      ['DELETE', `${BASE}/${newId('ct')}`, undefined],
      ['POST', `${BASE}/bulk`, { contacts: [{ phone: nextPhone() }] }],
      ['PATCH', `${BASE}/bulk/disable`, { contactIds: [newId('ct')] }],
      ['PATCH', `${BASE}/bulk/enable`, { contactIds: [newId('ct')] }],
    ] as const) {
      const r = await t.api(m, p, b, { key: readOnly });
      expect(r.status, `${m} ${p}`).toBe(403);
      expect(r.body.error.requiredPermission).toBe('contacts:write');
    }
  });

  it('another account never sees the first one\'s contacts; phones are unique per account only', async () => {
    const mine = await create({ phone: nextPhone(), firstName: 'Secret' });
    const list = await t.api('GET', `${BASE}?limit=200&search=secret`, undefined, { key: other.apiKey });
    expect(list.body.data).toEqual([]);
    expect((await t.api('GET', `${BASE}?phone=%2B${mine.phone}`, undefined, { key: other.apiKey })).body.data).toEqual([]);
    expect((await t.api('GET', `${BASE}/count?search=secret`, undefined, { key: other.apiKey })).body.count).toBe(0);
    const theirs = await t.api('POST', BASE, { phone: `+${mine.phone}`, firstName: 'Theirs' }, { key: other.apiKey });
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.id).not.toBe(mine.id);
    expect((await t.api('GET', `${BASE}/${mine.id}`)).body.data.firstName).toBe('Secret');
  });
});
