import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/platform/ids.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

const BASE = '/api/v1/groups';
const CONTACTS = '/api/v1/contacts';
const phone = (i: number) => `+49151${String(60000000 + i)}`;

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

async function group(body: Record<string, unknown>, key?: string) {
  const r = await t.api('POST', BASE, body, key ? { key } : {});
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}
async function contact(extra: Record<string, unknown> = {}, key?: string) {
  const r = await t.api('POST', CONTACTS, { phone: phone(++seq), ...extra }, key ? { key } : {});
  expect(r.status).toBe(201);
  return r.body.data;
}

describe('group CRUD', () => {
  it('creates, gets, updates and deletes (contacts remain and lose the reference)', async () => {
    const g = await group({ name: ' Newsletter ', description: 'Monthly' });
    expect(g).toEqual({ id: expect.stringMatching(/^grp_/), name: 'Newsletter', description: 'Monthly', contactCount: 0, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect((await t.api('GET', `${BASE}/${g.id}`)).body).toEqual({ success: true, data: g });
    const c = await contact({ groups: [g.id] });
    let r = await t.api('PUT', `${BASE}/${g.id}`, { description: null });
    expect(r.body.data).toMatchObject({ name: 'Newsletter', description: null, contactCount: 1 });
    r = await t.api('PUT', `${BASE}/${g.id}`, { name: 'Renamed' });
    expect(r.body.data).toMatchObject({ name: 'Renamed', contactCount: 1 });
    expect((await t.api('GET', `${CONTACTS}/${c.id}`)).body.data.groups).toEqual([{ id: g.id, name: 'Renamed' }]);
    r = await t.api('DELETE', `${BASE}/${g.id}`);
    expect(r.body).toEqual({ success: true, data: { id: g.id, deleted: true, removedMemberships: 1 } });
    expect((await t.api('GET', `${BASE}/${g.id}`)).status).toBe(404);
    expect((await t.api('GET', `${CONTACTS}/${c.id}`)).body.data.groups).toEqual([]);
  });

  it('validates name (required, ≤ 100) and description (≤ 500)', async () => {
    await group({ name: 'n'.repeat(100), description: 'd'.repeat(500) });
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'n'.repeat(101) }, { name: 'x', description: 'd'.repeat(501) }, { name: 5 }, { name: 'x', color: 'red' }]) {
      const r = await t.api('POST', BASE, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    const g = await group({ name: 'ok' });
    for (const body of [{}, { name: 'n'.repeat(101) }, { description: 'd'.repeat(501) }, { contactIds: [] }]) {
      expect((await t.api('PUT', `${BASE}/${g.id}`, body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('lists newest first with contact counts, cursor-paginated', async () => {
    const acc = await t.createAccount();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await group({ name: `G${i}` }, acc.apiKey)).id);
    await contact({ groups: [ids[1], ids[3]] }, acc.apiKey);
    await contact({ groups: [ids[3]] }, acc.apiKey);
    const all = await t.api('GET', BASE, undefined, { key: acc.apiKey });
    expect(all.body.data.map((g: { id: string }) => g.id)).toEqual([...ids].reverse());
    expect(all.body.data.map((g: { contactCount: number }) => g.contactCount)).toEqual([0, 2, 0, 1, 0]);
    expect(all.body.pagination).toEqual({ nextCursor: null, hasNext: false, limit: 100, count: 5 });
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const r = await t.api('GET', `${BASE}?limit=2${cursor}`, undefined, { key: acc.apiKey });
      seen.push(...r.body.data.map((g: { id: string }) => g.id));
      await group({ name: 'added during the walk' }, acc.apiKey);
      if (!r.body.pagination.hasNext) break;
      cursor = `&cursor=${r.body.pagination.nextCursor}`;
    }
    expect(seen).toEqual([...ids].reverse());
    for (const q of ['limit=0', 'limit=201', 'cursor=%%%']) expect((await t.api('GET', `${BASE}?${q}`)).status, q).toBe(400);
  });

  it('400 malformed, 404 unknown and foreign on every id route', async () => {
    const theirs = await group({ name: 'Theirs' }, other.apiKey);
    const theirContact = await contact({ groups: [theirs.id] }, other.apiKey);
    const routes: Array<[string, string, unknown]> = [
      ['GET', '', undefined],
      ['PUT', '', { name: 'Mine now' }],
      ['DELETE', '', undefined],
      ['POST', '/contacts', { contactIds: [theirContact.id] }],
      ['DELETE', '/contacts', { contactIds: [theirContact.id] }],
    ];
    for (const [m, suffix, body] of routes) {
      expect((await t.api(m, `${BASE}/grp_x${suffix}`, body)).body.error.code, `${m} ${suffix}`).toBe('INVALID_ID');
      expect((await t.api(m, `${BASE}/${newId('grp')}${suffix}`, body)).status, `${m} ${suffix}`).toBe(404);
      expect((await t.api(m, `${BASE}/${theirs.id}${suffix}`, body)).status, `${m} ${suffix}`).toBe(404);
    }
    const still = await t.api('GET', `${BASE}/${theirs.id}?includeContacts=true`, undefined, { key: other.apiKey });
    expect(still.body.data).toMatchObject({ name: 'Theirs', contactCount: 1 });
    expect(still.body.data.contacts.map((c: { id: string }) => c.id)).toEqual([theirContact.id]);
    expect((await t.api('GET', `${BASE}?limit=200`)).body.data.map((g: { id: string }) => g.id)).not.toContain(theirs.id);
  });
});

describe('membership', () => {
  it('adds and removes with duplicates ignored and unknown/foreign ids reported', async () => {
    const g = await group({ name: 'Members' });
    const a = await contact({ firstName: 'Ada', lastName: 'L', email: 'ada@example.org' });
    const b = await contact({ firstName: 'Bob' });
    const theirs = await contact({}, other.apiKey);
    const unknown = newId('ct');
    let r = await t.api('POST', `${BASE}/${g.id}/contacts`, { contactIds: [a.id, a.id, b.id, theirs.id, unknown] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, data: { groupId: g.id, requestedCount: 4, addedCount: 2, alreadyMemberCount: 0, notFoundIds: [theirs.id, unknown], contactCount: 2 } });
    r = await t.api('POST', `${BASE}/${g.id}/contacts`, { contactIds: [a.id] });
    expect(r.body.data).toMatchObject({ addedCount: 0, alreadyMemberCount: 1, contactCount: 2 });

    const detail = await t.api('GET', `${BASE}/${g.id}?includeContacts=true`);
    expect(detail.body.data.contacts).toEqual([
      { id: a.id, name: 'Ada L', firstName: 'Ada', lastName: 'L', phone: a.phone, email: 'ada@example.org' },
      { id: b.id, name: 'Bob', firstName: 'Bob', lastName: null, phone: b.phone, email: null },
    ]);
    expect(detail.body.data.contactsPagination).toEqual({ limit: 50, offset: 0, count: 2, total: 2, hasMore: false });
    const page = await t.api('GET', `${BASE}/${g.id}?includeContacts=true&limit=1&offset=1`);
    expect(page.body.data.contacts.map((c: { id: string }) => c.id)).toEqual([b.id]);
    expect(page.body.data.contactsPagination).toEqual({ limit: 1, offset: 1, count: 1, total: 2, hasMore: false });
    expect((await t.api('GET', `${BASE}/${g.id}?includeContacts=true&limit=1`)).body.data.contactsPagination.hasMore).toBe(true);
    expect((await t.api('GET', `${BASE}/${g.id}`)).body.data.contacts).toBeUndefined();

    r = await t.api('DELETE', `${BASE}/${g.id}/contacts`, { contactIds: [a.id, theirs.id, a.id] });
    expect(r.body).toEqual({ success: true, data: { groupId: g.id, requestedCount: 2, removedCount: 1, notMemberCount: 0, notFoundIds: [theirs.id], contactCount: 1 } });
    r = await t.api('DELETE', `${BASE}/${g.id}/contacts`, { contactIds: [a.id] });
    expect(r.body.data).toMatchObject({ removedCount: 0, notMemberCount: 1 });
    expect((await t.api('GET', `${CONTACTS}/${a.id}`)).status).toBe(200);
    // Their contact was never touched.
    expect((await t.api('GET', `${CONTACTS}/${theirs.id}`, undefined, { key: other.apiKey })).body.data.groups).toEqual([]);
  });

  it('contact.groups and the group\'s members are the same relation in both directions', async () => {
    const g1 = await group({ name: 'Alpha' });
    const g2 = await group({ name: 'Beta' });
    const cs = [await contact(), await contact(), await contact()];
    await t.api('POST', `${BASE}/${g1.id}/contacts`, { contactIds: cs.map((c) => c.id) });
    await t.api('PUT', `${CONTACTS}/${cs[0].id}`, { groups: [g2.id] });
    await t.api('DELETE', `${BASE}/${g1.id}/contacts`, { contactIds: [cs[1].id] });
    await t.api('POST', CONTACTS, { phone: phone(++seq), groups: [g1.id, g2.id] });
    for (const g of [g1, g2]) {
      const detail = (await t.api('GET', `${BASE}/${g.id}?includeContacts=true&limit=200`)).body.data;
      const members = new Set(detail.contacts.map((c: { id: string }) => c.id));
      expect(detail.contactCount).toBe(members.size);
      const listed = (await t.api('GET', `${CONTACTS}?group=${g.id}&limit=200`)).body.data;
      expect(new Set(listed.map((c: { id: string }) => c.id))).toEqual(members);
      for (const c of listed) expect(c.groups.map((x: { id: string }) => x.id)).toContain(g.id);
    }
    const c0 = (await t.api('GET', `${CONTACTS}/${cs[0].id}`)).body.data;
    expect(c0.groups).toEqual([{ id: g2.id, name: 'Beta' }]);
  });

  it('up to 10,000 ids per call; 10,001, empty, malformed and wrong types are 400', async () => {
    const g = await group({ name: 'Big' });
    const c = await contact();
    const ids = [c.id, ...Array.from({ length: 9_999 }, () => newId('ct'))];
    const r = await t.api('POST', `${BASE}/${g.id}/contacts`, { contactIds: ids });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ requestedCount: 10_000, addedCount: 1, contactCount: 1 });
    expect(r.body.data.notFoundIds).toHaveLength(9_999);
    const rm = await t.api('DELETE', `${BASE}/${g.id}/contacts`, { contactIds: ids });
    expect(rm.body.data).toMatchObject({ removedCount: 1, contactCount: 0 });
    for (const body of [{ contactIds: [...ids, newId('ct')] }, { contactIds: [] }, {}, { contactIds: ['ct_bad'] }, { contactIds: c.id }, { contactIds: [c.id], extra: 1 }]) {
      for (const m of ['POST', 'DELETE']) {
        const res = await t.api(m, `${BASE}/${g.id}/contacts`, body);
        expect(res.status, `${m} ${JSON.stringify(body).slice(0, 60)}`).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
      }
    }
  });

  it('includeContacts/limit/offset are validated', async () => {
    const g = await group({ name: 'Q' });
    for (const q of ['includeContacts=yes', 'limit=0', 'limit=201', 'offset=-1', 'offset=abc']) {
      expect((await t.api('GET', `${BASE}/${g.id}?${q}`)).status, q).toBe(400);
    }
    expect((await t.api('GET', `${BASE}/${g.id}?includeContacts=true&limit=200&offset=0`)).status).toBe(200);
  });
});

describe('permissions', () => {
  it('groups:read for reads, groups:write for writes', async () => {
    const g = await group({ name: 'Perm' });
    const readOnly = await t.createKey(t.account.accountId, ['groups:read', 'contacts:read', 'contacts:write']);
    const none = await t.createKey(t.account.accountId, ['contacts:read']);
    for (const p of [BASE, `${BASE}/${g.id}`]) {
      const r = await t.api('GET', p, undefined, { key: none });
      expect(r.status).toBe(403);
      expect(r.body.error.requiredPermission).toBe('groups:read');
      expect((await t.api('GET', p, undefined, { key: readOnly })).status).toBe(200);
    }
    for (const [m, p, b] of [
      ['POST', BASE, { name: 'x' }],
      ['PUT', `${BASE}/${g.id}`, { name: 'x' }],
      ['DELETE', `${BASE}/${g.id}`, undefined],
      ['POST', `${BASE}/${g.id}/contacts`, { contactIds: [newId('ct')] }],
      ['DELETE', `${BASE}/${g.id}/contacts`, { contactIds: [newId('ct')] }],
    ] as const) {
      const r = await t.api(m, p, b, { key: readOnly });
      expect(r.status, `${m} ${p}`).toBe(403);
      expect(r.body.error.requiredPermission).toBe('groups:write');
    }
  });
});
