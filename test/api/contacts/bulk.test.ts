import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/platform/ids.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

const BASE = '/api/v1/contacts';
const phone = (i: number) => `+49151${String(30000000 + i)}`;

let t: TestServer;
let other: TestAccount;

beforeAll(async () => {
  t = await startTestServer();
  other = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

async function create(body: Record<string, unknown>, key?: string) {
  const r = await t.api('POST', BASE, body, key ? { key } : {});
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

describe('POST /contacts/bulk', () => {
  it('handles mixed valid, invalid, duplicate and foreign-country rows', async () => {
    const field = (await t.api('POST', `${BASE}/fields`, { name: 'Plan', tag: 'plan' })).body.data;
    const group = (await t.api('POST', '/api/v1/groups', { name: 'Imported' })).body.data;
    const existing = await create({ phone: phone(1), firstName: 'Existing' });
    const r = await t.api('POST', `${BASE}/bulk`, {
      groups: [group.id],
      contacts: [
        { phone: phone(2), firstName: 'Two', customFields: [{ tag: 'plan', value: 'pro' }] }, // 0 created
        { phone: `00${phone(3).slice(1)}`, lastName: 'Three', customFields: [{ fieldId: field.id, value: 'free' }] }, // 1 created
        { phone: 'not a number' }, // 2 failed
        { phone: '+819012345678', firstName: 'Taro' }, // 3 failed (JP)
        { phone: phone(1), firstName: 'Dup of existing' }, // 4 skipped
        { phone: phone(2).slice(1), firstName: 'Dup of row 0' }, // 5 skipped
        { phone: phone(4), firstName: 'x'.repeat(101) }, // 6 failed
        { phone: phone(5), email: 'nope' }, // 7 failed
        { phone: phone(6), customFields: [{ tag: 'unknown_tag', value: 'x' }] }, // 8 failed
        { phone: phone(7), firstName: 'x'.repeat(100), email: '' }, // 9 created
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, created: 3, updated: 0, failed: 5, skipped: 2 });
    expect(r.body.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [2, 'VALIDATION_ERROR'],
      [3, 'COUNTRY_NOT_SUPPORTED'],
      [4, 'DUPLICATE'],
      [5, 'DUPLICATE'],
      [6, 'VALIDATION_ERROR'],
      [7, 'VALIDATION_ERROR'],
      [8, 'NOT_FOUND'],
    ]);
    expect(r.body.errors[1]).toEqual({ index: 3, phone: '+819012345678', code: 'COUNTRY_NOT_SUPPORTED', error: expect.stringContaining('JP') });
    for (const e of r.body.errors) expect(e.error).toEqual(expect.any(String));

    const two = (await t.api('GET', `${BASE}/${phone(2)}?include=customFields`)).body.data;
    expect(two).toMatchObject({ firstName: 'Two', groups: [{ id: group.id, name: 'Imported' }], customFields: [{ tag: 'plan', value: 'pro' }] });
    expect((await t.api('GET', `${BASE}/${phone(3)}?include=customFields`)).body.data.customFields[0].value).toBe('free');
    expect((await t.api('GET', `${BASE}/+819012345678`)).status).toBe(404);
    expect((await t.api('GET', `${BASE}/${existing.id}`)).body.data).toMatchObject({ firstName: 'Existing', groups: [] });
    expect((await t.api('GET', `/api/v1/groups/${group.id}`)).body.data.contactCount).toBe(3);
  });

  it('upsert updates by phone with the non-empty values and adds groups to created and updated contacts', async () => {
    const group = (await t.api('POST', '/api/v1/groups', { name: 'Upserted' })).body.data;
    const a = await create({ phone: phone(100), firstName: 'Old', lastName: 'Keep', email: 'old@example.org' });
    const r = await t.api('POST', `${BASE}/bulk`, {
      upsert: true,
      groups: [group.id],
      contacts: [
        { phone: phone(100), firstName: 'New', lastName: '', email: null },
        { phone: phone(101), firstName: 'Fresh' },
        { phone: phone(100), firstName: 'Again' },
      ],
    });
    expect(r.body).toMatchObject({ created: 1, updated: 1, failed: 0, skipped: 1 });
    expect(r.body.errors).toEqual([{ index: 2, phone: phone(100), code: 'DUPLICATE', error: expect.stringContaining('row 0') }]);
    const updated = (await t.api('GET', `${BASE}/${a.id}`)).body.data;
    expect(updated).toMatchObject({ firstName: 'New', lastName: 'Keep', email: 'old@example.org', groups: [{ id: group.id, name: 'Upserted' }] });
  });

  it('limits: 1000 rows accepted, 1001 and 0 refused; wrong types are a 400 for the whole request', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ phone: phone(10_000 + i), firstName: `Bulk ${i}` }));
    const ok = await t.api('POST', `${BASE}/bulk`, { contacts: rows });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ created: 1000, failed: 0, skipped: 0, errors: [] });
    const again = await t.api('POST', `${BASE}/bulk`, { contacts: rows });
    expect(again.body).toMatchObject({ created: 0, skipped: 1000 });
    const tooMany = await t.api('POST', `${BASE}/bulk`, { contacts: [...rows, { phone: phone(20_000) }] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details[0]).toMatchObject({ path: 'contacts', code: 'too_long' });
    for (const body of [
      { contacts: [] },
      {},
      { contacts: 'x' },
      { contacts: [{ firstName: 'no phone' }] },
      { contacts: [{ phone: 123 }] },
      { contacts: [{ phone: phone(1), extra: true }] },
      { contacts: [{ phone: phone(1) }], upsert: 'yes' },
      { contacts: [{ phone: phone(1) }], groups: ['bad'] },
    ]) {
      const r = await t.api('POST', `${BASE}/bulk`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('an unknown or foreign group fails the whole request before anything is written', async () => {
    const theirs = (await t.api('POST', '/api/v1/groups', { name: 'Theirs' }, { key: other.apiKey })).body.data;
    for (const g of [newId('grp'), theirs.id]) {
      const r = await t.api('POST', `${BASE}/bulk`, { contacts: [{ phone: phone(300) }], groups: [g] });
      expect(r.status).toBe(404);
    }
    expect((await t.api('GET', `${BASE}/${phone(300)}`)).status).toBe(404);
  });

  it('rows go to the caller\'s account only', async () => {
    const r = await t.api('POST', `${BASE}/bulk`, { contacts: [{ phone: phone(400), firstName: 'Other' }] }, { key: other.apiKey });
    expect(r.body.created).toBe(1);
    expect((await t.api('GET', `${BASE}/${phone(400)}`)).status).toBe(404);
    // The same phone in this account is new here.
    expect((await t.api('POST', `${BASE}/bulk`, { contacts: [{ phone: phone(400) }] })).body.created).toBe(1);
  });
});

describe('PATCH /contacts/bulk/disable and /bulk/enable', () => {
  it('disables with a reason, reports counts and foreign/unknown ids, then enables', async () => {
    const a = await create({ phone: phone(500) });
    const b = await create({ phone: phone(501) });
    const theirs = await create({ phone: phone(502) }, other.apiKey);
    const unknown = newId('ct');
    const r = await t.api('PATCH', `${BASE}/bulk/disable`, { contactIds: [a.id, b.id, a.id, theirs.id, unknown], reason: 'Asked to stop' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      message: expect.any(String),
      disabledCount: 2,
      requestedCount: 4,
      cancelledMessages: 0,
      alreadyDisabledCount: 0,
      notFoundIds: [theirs.id, unknown],
    });
    const got = (await t.api('GET', `${BASE}/${a.id}`)).body.data;
    expect(got).toMatchObject({ disabled: true, disabledReason: 'Asked to stop', disabledAt: expect.any(String) });
    expect((await t.api('GET', `${BASE}/${theirs.id}`, undefined, { key: other.apiKey })).body.data.disabled).toBe(false);

    const again = await t.api('PATCH', `${BASE}/bulk/disable`, { contactIds: [a.id] });
    expect(again.body).toMatchObject({ disabledCount: 0, alreadyDisabledCount: 1 });

    const en = await t.api('PATCH', `${BASE}/bulk/enable`, { contactIds: [a.id, theirs.id] });
    expect(en.status).toBe(200);
    expect(en.body).toEqual({ success: true, message: expect.any(String), enabledCount: 1, requestedCount: 2, notDisabledCount: 0, notFoundIds: [theirs.id] });
    expect((await t.api('GET', `${BASE}/${a.id}`)).body.data).toMatchObject({ disabled: false, disabledReason: null, disabledAt: null });
    const none = await t.api('PATCH', `${BASE}/bulk/enable`, { contactIds: [a.id] });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('NO_VALID_CONTACTS');
  });

  it('400 NO_VALID_CONTACTS when no id is a contact of the account (including another tenant\'s)', async () => {
    const theirs = await create({ phone: phone(600) }, other.apiKey);
    for (const ids of [[newId('ct')], [theirs.id]]) {
      const r = await t.api('PATCH', `${BASE}/bulk/disable`, { contactIds: ids });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('NO_VALID_CONTACTS');
    }
    expect((await t.api('GET', `${BASE}/${theirs.id}`, undefined, { key: other.apiKey })).body.data.disabled).toBe(false);
  });

  it('reason up to 500 characters; ids up to 10,000; malformed ids and wrong types are 400', async () => {
    const a = await create({ phone: phone(700) });
    expect((await t.api('PATCH', `${BASE}/bulk/disable`, { contactIds: [a.id], reason: 'r'.repeat(500) })).status).toBe(200);
    const long = await t.api('PATCH', `${BASE}/bulk/disable`, { contactIds: [a.id], reason: 'r'.repeat(501) });
    expect(long.status).toBe(400);
    expect(long.body.error.details[0].path).toBe('reason');
    const many = Array.from({ length: 10_000 }, () => newId('ct'));
    const big = await t.api('PATCH', `${BASE}/bulk/enable`, { contactIds: [a.id, ...many.slice(1)] });
    expect(big.status).toBe(200);
    expect(big.body).toMatchObject({ enabledCount: 1, requestedCount: 10_000 });
    expect((await t.api('PATCH', `${BASE}/bulk/enable`, { contactIds: [...many, newId('ct')] })).status).toBe(400);
    for (const body of [{ contactIds: [] }, {}, { contactIds: ['ct_bad'] }, { contactIds: a.id }, { contactIds: [a.id], reason: 5 }]) {
      const r = await t.api('PATCH', `${BASE}/bulk/disable`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});
