import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BULK_CONTACTS_MAX } from '../../src/contacts/limits.js';
import { GROUP_MEMBERSHIP_MAX_IDS } from '../../src/groups/limits.js';
import { newId } from '../../src/platform/ids.js';
import { TEMPLATE_ASSIGN_MAX_IDS, TEMPLATE_LIST_MAX_LIMIT } from '../../src/templates/schemas.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { body, mcpClient } from './helpers.js';
import { TEMPLATE_GROUP_NAME_MAX_LENGTH } from '../../src/templates/limits.js';

/**
 * The 30 address-book tools (spec §4.7) over real HTTP with the SDK client. The client checks every
 * structuredContent against the tool's outputSchema (it caches them on tools/list), so each
 * successful call below is also an output-schema check. REST comparisons use the same account.
 */

const CONTACTS = '/api/v1/contacts';
const GROUPS = '/api/v1/groups';
const TEMPLATES = '/api/v1/templates';

/** Valid German mobile numbers: +49 151 3xxxxxxx (other test files use other ranges; each has its own server). */
const phone = (i: number) => `+49151${String(30000000 + i)}`;
let seq = 0;
const nextPhone = () => phone(++seq);

const EXPECTED: Record<string, { toolset: string; permissions: string[]; kind: 'read' | 'write' | 'idem' | 'delete' }> = {
  list_contacts: { toolset: 'contacts', permissions: ['contacts:read'], kind: 'read' },
  count_contacts: { toolset: 'contacts', permissions: ['contacts:read'], kind: 'read' },
  get_contact: { toolset: 'contacts', permissions: ['contacts:read'], kind: 'read' },
  create_contact: { toolset: 'contacts', permissions: ['contacts:write'], kind: 'write' },
  update_contact: { toolset: 'contacts', permissions: ['contacts:write'], kind: 'idem' },
  delete_contact: { toolset: 'contacts', permissions: ['contacts:write'], kind: 'delete' },
  bulk_create_contacts: { toolset: 'contacts', permissions: ['contacts:write'], kind: 'write' },
  bulk_disable_contacts: { toolset: 'contacts', permissions: ['contacts:write'], kind: 'delete' },
  bulk_enable_contacts: { toolset: 'contacts', permissions: ['contacts:write'], kind: 'idem' },
  list_groups: { toolset: 'groups', permissions: ['groups:read'], kind: 'read' },
  get_group: { toolset: 'groups', permissions: ['groups:read'], kind: 'read' },
  create_group: { toolset: 'groups', permissions: ['groups:write'], kind: 'write' },
  update_group: { toolset: 'groups', permissions: ['groups:write'], kind: 'idem' },
  delete_group: { toolset: 'groups', permissions: ['groups:write'], kind: 'delete' },
  add_contacts_to_group: { toolset: 'groups', permissions: ['groups:write'], kind: 'idem' },
  remove_contacts_from_group: { toolset: 'groups', permissions: ['groups:write'], kind: 'delete' },
  list_custom_fields: { toolset: 'custom_fields', permissions: ['custom-fields:read'], kind: 'read' },
  create_custom_field: { toolset: 'custom_fields', permissions: ['custom-fields:write'], kind: 'write' },
  delete_custom_field: { toolset: 'custom_fields', permissions: ['custom-fields:write'], kind: 'delete' },
  set_contact_custom_fields: { toolset: 'custom_fields', permissions: ['custom-fields:write'], kind: 'idem' },
  list_templates: { toolset: 'templates', permissions: ['templates:read'], kind: 'read' },
  get_template: { toolset: 'templates', permissions: ['templates:read'], kind: 'read' },
  create_template: { toolset: 'templates', permissions: ['templates:write'], kind: 'write' },
  update_template: { toolset: 'templates', permissions: ['templates:write'], kind: 'idem' },
  delete_template: { toolset: 'templates', permissions: ['templates:write'], kind: 'delete' },
  list_template_groups: { toolset: 'template_groups', permissions: ['templates:read'], kind: 'read' },
  create_template_group: { toolset: 'template_groups', permissions: ['templates:write'], kind: 'write' },
  update_template_group: { toolset: 'template_groups', permissions: ['templates:write'], kind: 'idem' },
  delete_template_group: { toolset: 'template_groups', permissions: ['templates:write'], kind: 'delete' },
  assign_templates_to_template_group: { toolset: 'template_groups', permissions: ['templates:write'], kind: 'idem' },
};
/** As listed: the hints that differ from MCP's defaults, plus destructiveHint on every write (catalog.ts). */
const ANNOTATIONS = {
  read: { readOnlyHint: true, openWorldHint: false },
  write: { destructiveHint: false, openWorldHint: false },
  idem: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
  delete: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
};
const TOOLSETS = 'contacts,groups,custom_fields,templates,template_groups';

let t: TestServer;
let other: TestAccount;
let mcp: Client;
let otherMcp: Client;

/** A successful call: its structuredContent. */
async function call(name: string, args: Record<string, unknown> = {}, client: Client = mcp): Promise<any> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, `${name}: ${JSON.stringify(body(r))}`).toBeFalsy();
  expect(r.structuredContent).toEqual(JSON.parse((r.content as { text: string }[])[0]!.text));
  return r.structuredContent;
}
/** A failing call: the error object of the tool error. */
async function fail(name: string, args: Record<string, unknown> = {}, client: Client = mcp): Promise<any> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, `${name} should fail: ${JSON.stringify(r.structuredContent)}`).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  const err = body(r).error;
  expect(err.nextStep).toEqual(expect.any(String));
  return err;
}
async function rest(method: string, path: string, payload?: unknown): Promise<any> {
  const r = await t.api(method, path, payload);
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  return r.body;
}

beforeAll(async () => {
  t = await startTestServer({ workers: false });
  other = await t.createAccount();
  mcp = await mcpClient(t.url, t.account.apiKey);
  otherMcp = await mcpClient(t.url, other.apiKey);
  // Caches the output schemas: from here on the SDK client validates every structuredContent.
  await mcp.listTools();
  await otherMcp.listTools();
});
afterAll(async () => {
  await mcp?.close();
  await otherMcp?.close();
  await t?.close();
});

describe('tools/list', () => {
  it('lists the 30 address-book tools with toolset, permissions, annotations, titles and object schemas', async () => {
    const client = await mcpClient(t.url, t.account.apiKey, `?toolsets=${TOOLSETS}`);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(Object.keys(EXPECTED).sort());
      for (const tool of tools) {
        const want = EXPECTED[tool.name]!;
        // Toolset and permissions are on the definition (and in rcs_api_reference), not listed.
        const def = ALL_TOOLS.find((x) => x.name === tool.name)!;
        expect({ toolset: def.toolset, permissions: def.permissions }, tool.name).toEqual({ toolset: want.toolset, permissions: want.permissions });
        expect(tool._meta, tool.name).toBeUndefined();
        expect(tool.annotations, tool.name).toEqual(ANNOTATIONS[want.kind]);
        expect(tool.title, tool.name).toBeTruthy();
        expect(tool.description!.length, tool.name).toBeGreaterThan(60);
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect(tool.outputSchema?.type, tool.name).toBe('object');
        for (const k of ['oneOf', 'anyOf', 'allOf']) expect(tool.inputSchema, `${tool.name} ${k}`).not.toHaveProperty(k);
        // Strict inputs: a misspelt argument is an error, not silently dropped.
        expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      }
    } finally {
      await client.close();
    }
  });

  it('descriptions carry the limits from the constants', () => {
    const d = (name: string) => ALL_TOOLS.find((x) => x.name === name)!.description;
    expect(d('bulk_create_contacts')).toContain(`${BULK_CONTACTS_MAX} contacts`);
    expect(d('add_contacts_to_group')).toContain(GROUP_MEMBERSHIP_MAX_IDS.toLocaleString('en-US'));
    expect(d('get_contact')).toMatch(/id \(ct_…\) or by phone number/);
    expect(d('delete_custom_field')).toContain('force:true');
    expect(d('create_template_group')).toContain(String(TEMPLATE_GROUP_NAME_MAX_LENGTH));
  });

  it('read-only mode keeps exactly the read tools', async () => {
    const client = await mcpClient(t.url, t.account.apiKey, `?toolsets=${TOOLSETS}&readonly=1`);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(Object.keys(EXPECTED).filter((n) => EXPECTED[n]!.kind === 'read').sort());
    } finally {
      await client.close();
    }
  });
});

describe('permissions', () => {
  it('a key without address-book permissions gets FORBIDDEN naming the missing one on every tool', async () => {
    // A key needs at least one permission: give it one no address-book tool uses.
    const key = await t.createKey(t.account.accountId, ['messages:read']);
    const client = await mcpClient(t.url, key);
    try {
      for (const [name, want] of Object.entries(EXPECTED)) {
        const err = await fail(name, {}, client);
        expect(err.code, name).toBe('FORBIDDEN');
        expect(err.requiredPermissions, name).toEqual(want.permissions);
        expect(err.message, name).toContain(want.permissions[0]);
      }
    } finally {
      await client.close();
    }
  });

  it('contacts:read alone reads contacts but cannot write them or read groups', async () => {
    const key = await t.createKey(t.account.accountId, ['contacts:read']);
    const client = await mcpClient(t.url, key);
    try {
      expect((await call('count_contacts', {}, client)).success).toBe(true);
      const err = await fail('create_contact', { phone: nextPhone() }, client);
      expect(err).toMatchObject({ code: 'FORBIDDEN', requiredPermissions: ['contacts:write'] });
      expect(err.message).toContain('contacts:write');
      expect((await fail('list_groups', {}, client)).requiredPermissions).toEqual(['groups:read']);
    } finally {
      await client.close();
    }
  });
});

describe('contacts toolset', () => {
  it('create → list → get (id and phone) → count → update → delete, each equal to REST', async () => {
    const p = nextPhone();
    const created = await call('create_contact', { phone: p, firstName: ' Ada ', lastName: 'Lovelace', email: 'ada@example.org' });
    expect(created).toMatchObject({ success: true, data: { firstName: 'Ada', phone: p.slice(1), country: 'DE', disabled: false, groups: [], customFields: [] } });
    const id = created.data.id as string;
    expect(created).toEqual(await rest('GET', `${CONTACTS}/${id}?include=customFields`));

    const listed = await call('list_contacts', { search: 'lovelace', limit: 10 });
    expect(listed.data.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(listed).toEqual(await rest('GET', `${CONTACTS}?search=lovelace&limit=10`));
    expect(await call('list_contacts', { phone: p })).toEqual(await rest('GET', `${CONTACTS}?phone=${encodeURIComponent(p)}`));

    // get_contact is REST's contact plus its consent standing and latest events (issue #28).
    const byId = await call('get_contact', { id });
    const restContact = await rest('GET', `${CONTACTS}/${id}`);
    expect(byId).toEqual({ ...restContact, data: { ...restContact.data, consent: { optedOut: false, optedOutAt: null, underReview: false, reviewId: null, latest: [] } } });
    expect(await call('get_contact', { id: `00${p.slice(1)}` })).toEqual(byId);
    expect((await call('get_contact', { id, include: 'customFields' })).data.customFields).toEqual([]);

    expect(await call('count_contacts', { search: 'lovelace' })).toEqual({ success: true, count: 1 });
    expect(await call('count_contacts', { search: 'lovelace', disabled: true })).toEqual(await rest('GET', `${CONTACTS}/count?search=lovelace&disabled=true`));

    const updated = await call('update_contact', { id, lastName: 'King', disabled: true });
    expect(updated.data).toMatchObject({ id, firstName: 'Ada', lastName: 'King', disabled: true });
    expect(updated).toEqual(await rest('GET', `${CONTACTS}/${id}?include=customFields`));
    expect((await call('list_contacts', { search: 'ada', disabled: true })).data.map((c: { id: string }) => c.id)).toEqual([id]);
    expect((await call('list_contacts', { search: 'ada', disabled: false })).data).toEqual([]);

    expect(await call('delete_contact', { id })).toEqual({ success: true, data: { id, deleted: true, cancelledMessages: 0 } });
    expect((await fail('get_contact', { id })).code).toBe('NOT_FOUND');
    expect((await t.api('GET', `${CONTACTS}/${id}`)).status).toBe(404);
  });

  it('bulk create with upsert, then bulk disable and enable', async () => {
    const [a, b] = [nextPhone(), nextPhone()];
    const first = await call('bulk_create_contacts', { contacts: [{ phone: a, firstName: 'Bulk' }, { phone: b }, { phone: '+819012345678' }, { phone: a }] });
    expect(first).toMatchObject({ success: true, created: 2, updated: 0, failed: 1, skipped: 1 });
    expect(first.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [2, 'COUNTRY_NOT_SUPPORTED'],
      [3, 'DUPLICATE'],
    ]);
    const again = await call('bulk_create_contacts', { contacts: [{ phone: a, lastName: 'Upserted' }], upsert: true });
    expect(again).toMatchObject({ created: 0, updated: 1, failed: 0, skipped: 0, errors: [] });
    const ca = (await call('get_contact', { id: a })).data;
    const cb = (await call('get_contact', { id: b })).data;
    expect(ca).toMatchObject({ firstName: 'Bulk', lastName: 'Upserted' });

    const foreign = (await call('create_contact', { phone: nextPhone() }, otherMcp)).data.id;
    const disabled = await call('bulk_disable_contacts', { contactIds: [ca.id, cb.id, foreign], reason: 'asked to stop' });
    expect(disabled).toMatchObject({ success: true, disabledCount: 2, requestedCount: 3, notFoundIds: [foreign] });
    expect((await call('get_contact', { id: ca.id })).data).toMatchObject({ disabled: true, disabledReason: 'asked to stop' });
    expect(await call('bulk_enable_contacts', { contactIds: [ca.id, cb.id] })).toMatchObject({ success: true, enabledCount: 2, requestedCount: 2 });
    // Nothing left to enable: the service's NO_VALID_CONTACTS, with its next step.
    const none = await fail('bulk_enable_contacts', { contactIds: [ca.id] });
    expect(none.code).toBe('NO_VALID_CONTACTS');
    expect(none.nextStep).toContain('list_contacts');
    expect((await fail('bulk_disable_contacts', { contactIds: [foreign] })).code).toBe('NO_VALID_CONTACTS');
  });

  it('refuses bad input with tool errors carrying details', async () => {
    const tooMany = Array.from({ length: BULK_CONTACTS_MAX + 1 }, (_, i) => ({ phone: phone(900000 + i) }));
    const bulk = await fail('bulk_create_contacts', { contacts: tooMany });
    expect(bulk.code).toBe('VALIDATION_ERROR');
    expect(bulk.details[0]).toMatchObject({ path: 'contacts', code: 'too_long' });

    for (const id of ['ct_nope', 'hello', newId('grp')]) expect((await fail('get_contact', { id })).code, id).toBe('INVALID_ID');
    for (const name of ['update_contact', 'delete_contact']) {
      const err = await fail(name, { id: 'ct_123', ...(name === 'update_contact' ? { firstName: 'X' } : {}) });
      expect(err.code, name).toBe('INVALID_ID');
      expect(err.nextStep).toContain('ct_');
    }

    const theirs = (await call('create_contact', { phone: nextPhone() }, otherMcp)).data;
    expect((await fail('get_contact', { id: theirs.id })).code).toBe('NOT_FOUND');
    expect((await fail('get_contact', { id: `+${theirs.phone}` })).code).toBe('NOT_FOUND');
    expect((await fail('update_contact', { id: theirs.id, firstName: 'Mallory' })).code).toBe('NOT_FOUND');
    expect((await fail('delete_contact', { id: theirs.id })).code).toBe('NOT_FOUND');
    expect((await call('get_contact', { id: theirs.id }, otherMcp)).data.firstName).toBeNull();

    const mine = (await call('create_contact', { phone: nextPhone() })).data;
    const dup = await fail('create_contact', { phone: `+${mine.phone}` });
    expect(dup).toMatchObject({ code: 'CONFLICT', existingContactId: mine.id });
    expect(dup.nextStep).toContain('get_contact');
    expect((await fail('create_contact', { phone: '+819012345678' })).code).toBe('COUNTRY_NOT_SUPPORTED');
    expect((await fail('create_contact', { phone: nextPhone(), groups: [newId('grp')] })).code).toBe('NOT_FOUND');

    const nothing = await fail('update_contact', { id: mine.id });
    expect(nothing.code).toBe('VALIDATION_ERROR');
    expect(nothing.message).toContain('at least one field');
    const typo = await fail('list_contacts', { groupId: newId('grp') });
    expect(typo).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(typo.details[0].code).toBe('unknown_field');
    expect((await fail('list_contacts', { limit: 201 })).details[0]).toMatchObject({ path: 'limit', code: 'too_big' });
    expect((await fail('list_contacts', { disabled: 'yes' })).details[0].path).toBe('disabled');
    expect((await fail('list_contacts', { group: 'grp_x' })).code).toBe('INVALID_ID');
    expect((await fail('list_contacts', { cursor: 'bad!' })).code).toBe('INVALID_CURSOR');
  });
});

describe('groups toolset', () => {
  it('create → list → get → update → add/remove members → delete, each equal to REST', async () => {
    const group = await call('create_group', { name: 'VIP', description: 'Best customers' });
    expect(group).toMatchObject({ success: true, data: { name: 'VIP', description: 'Best customers', contactCount: 0 } });
    const id = group.data.id as string;
    expect(await call('list_groups', { limit: 100 })).toEqual(await rest('GET', `${GROUPS}?limit=100`));

    const members = [(await call('create_contact', { phone: nextPhone(), firstName: 'M1' })).data.id, (await call('create_contact', { phone: nextPhone(), firstName: 'M2' })).data.id];
    const foreign = (await call('create_contact', { phone: nextPhone() }, otherMcp)).data.id;
    const added = await call('add_contacts_to_group', { groupId: id, contactIds: [...members, members[0], foreign] });
    expect(added).toEqual({ success: true, data: { groupId: id, requestedCount: 3, addedCount: 2, alreadyMemberCount: 0, notFoundIds: [foreign], contactCount: 2 } });
    expect((await call('add_contacts_to_group', { groupId: id, contactIds: members })).data).toMatchObject({ addedCount: 0, alreadyMemberCount: 2, contactCount: 2 });

    const detail = await call('get_group', { id, includeContacts: true, limit: 1 });
    expect(detail.data.contacts.map((c: { id: string }) => c.id)).toEqual([members[0]]);
    expect(detail.data.contactsPagination).toMatchObject({ limit: 1, offset: 0, total: 2, hasMore: true });
    expect(detail).toEqual(await rest('GET', `${GROUPS}/${id}?includeContacts=true&limit=1`));
    expect(await call('get_group', { id })).toEqual(await rest('GET', `${GROUPS}/${id}`));
    expect((await call('get_contact', { id: members[1] })).data.groups).toEqual([{ id, name: 'VIP' }]);
    expect((await call('list_contacts', { group: id })).data).toHaveLength(2);

    const renamed = await call('update_group', { id, name: 'VIPs', description: null });
    expect(renamed.data).toMatchObject({ id, name: 'VIPs', description: null, contactCount: 2 });
    expect(renamed).toEqual(await rest('GET', `${GROUPS}/${id}`));

    const removed = await call('remove_contacts_from_group', { groupId: id, contactIds: [members[0], foreign] });
    expect(removed.data).toEqual({ groupId: id, requestedCount: 2, removedCount: 1, notMemberCount: 0, notFoundIds: [foreign], contactCount: 1 });
    expect((await call('get_contact', { id: members[0] })).data.groups).toEqual([]);

    expect(await call('delete_group', { id })).toEqual({ success: true, data: { id, deleted: true, removedMemberships: 1 } });
    expect((await call('get_contact', { id: members[1] })).data.groups).toEqual([]);
    expect((await fail('get_group', { id })).code).toBe('NOT_FOUND');
  });

  it('refuses bad input: limits, malformed and foreign ids', async () => {
    const id = (await call('create_group', { name: 'Limits' })).data.id;
    const tooMany = Array.from({ length: GROUP_MEMBERSHIP_MAX_IDS + 1 }, () => newId('ct'));
    const big = await fail('add_contacts_to_group', { groupId: id, contactIds: tooMany });
    expect(big.code).toBe('VALIDATION_ERROR');
    expect(big.details[0]).toMatchObject({ path: 'contactIds', code: 'too_long' });
    expect((await fail('remove_contacts_from_group', { groupId: id, contactIds: tooMany })).details[0].path).toBe('contactIds');
    expect((await fail('add_contacts_to_group', { groupId: id, contactIds: ['ct_bad'] })).details[0].path).toBe('contactIds[0]');

    for (const [name, args] of [
      ['get_group', { id: 'grp_1' }],
      ['update_group', { id: 'grp_1', name: 'x' }],
      ['delete_group', { id: 'grp_1' }],
      ['add_contacts_to_group', { groupId: 'grp_1', contactIds: [newId('ct')] }],
      ['remove_contacts_from_group', { groupId: newId('ct'), contactIds: [newId('ct')] }],
    ] as const) {
      expect((await fail(name, args)).code, name).toBe('INVALID_ID');
    }

    const theirs = (await call('create_group', { name: 'Theirs' }, otherMcp)).data.id;
    for (const [name, args] of [
      ['get_group', { id: theirs }],
      ['update_group', { id: theirs, name: 'Mine now' }],
      ['delete_group', { id: theirs }],
      ['add_contacts_to_group', { groupId: theirs, contactIds: [newId('ct')] }],
      ['remove_contacts_from_group', { groupId: theirs, contactIds: [newId('ct')] }],
    ] as const) {
      expect((await fail(name, args)).code, name).toBe('NOT_FOUND');
    }
    expect((await call('get_group', { id: theirs }, otherMcp)).data.name).toBe('Theirs');

    expect((await fail('create_group', { name: 'x'.repeat(101) })).details[0]).toMatchObject({ path: 'name', code: 'too_long' });
    expect((await fail('update_group', { id })).code).toBe('VALIDATION_ERROR');
    expect((await fail('get_group', { id, limit: 201 })).details[0].path).toBe('limit');
  });
});

describe('custom_fields toolset', () => {
  it('create → list → set values → delete (FIELD_IN_USE without force), each equal to REST', async () => {
    const field = await call('create_custom_field', { name: 'Loyalty tier', tag: 'loyalty_tier' });
    expect(field).toMatchObject({ success: true, data: { name: 'Loyalty tier', tag: 'loyalty_tier', placeholder: '{{loyalty_tier}}', usageCount: 0 } });
    const fieldId = field.data.id as string;
    expect(await call('list_custom_fields', {})).toEqual(await rest('GET', `${CONTACTS}/fields`));

    const contactId = (await call('create_contact', { phone: nextPhone() })).data.id;
    const set = await call('set_contact_custom_fields', { contactId, customFields: [{ tag: 'LOYALTY_TIER', value: 'gold' }] });
    expect(set).toEqual({ success: true, data: { contactId, customFields: [{ fieldId, tag: 'loyalty_tier', name: 'Loyalty tier', value: 'gold' }] } });
    expect(set).toEqual(await rest('GET', `${CONTACTS}/${contactId}/fields`));
    expect((await call('get_contact', { id: contactId, include: 'customFields' })).data.customFields).toEqual(set.data.customFields);
    expect((await call('list_custom_fields', {})).data.find((f: { id: string }) => f.id === fieldId).usageCount).toBe(1);

    const inUse = await fail('delete_custom_field', { id: fieldId });
    expect(inUse).toMatchObject({ code: 'FIELD_IN_USE', usageCount: 1 });
    expect(inUse.nextStep).toContain('force:true');
    expect((await call('get_contact', { id: contactId, include: 'customFields' })).data.customFields).toHaveLength(1);

    expect(await call('delete_custom_field', { id: fieldId, force: true })).toEqual({ success: true, data: { id: fieldId, deleted: true, deletedValues: 1 } });
    expect((await call('get_contact', { id: contactId, include: 'customFields' })).data.customFields).toEqual([]);

    // An unused field needs no force; null deletes a value.
    const spare = (await call('create_custom_field', { name: 'Spare', tag: 'spare' })).data.id;
    await call('set_contact_custom_fields', { contactId, customFields: [{ fieldId: spare, value: 'x' }] });
    expect((await call('set_contact_custom_fields', { contactId, customFields: [{ fieldId: spare, value: null }] })).data.customFields).toEqual([]);
    expect((await call('delete_custom_field', { id: spare })).data.deletedValues).toBe(0);
  });

  it('refuses bad input: duplicate or reserved tags, unknown fields, malformed and foreign ids', async () => {
    const fieldId = (await call('create_custom_field', { name: 'City', tag: 'city' })).data.id;
    expect(await fail('create_custom_field', { name: 'Town', tag: 'CITY' })).toMatchObject({ code: 'CONFLICT', existingFieldId: fieldId });
    expect((await fail('create_custom_field', { name: 'First', tag: 'contact_first_name' })).details[0]).toMatchObject({ path: 'tag', code: 'reserved' });
    expect((await fail('create_custom_field', { name: 'Bad', tag: 'has space' })).details[0].path).toBe('tag');

    const contactId = (await call('create_contact', { phone: nextPhone() })).data.id;
    const unknown = await fail('set_contact_custom_fields', { contactId, customFields: [{ tag: 'city', value: 'Berlin' }, { tag: 'nope', value: 'x' }] });
    expect(unknown.code).toBe('NOT_FOUND');
    expect(unknown.details[0].path).toBe('customFields[1].tag');
    expect((await call('get_contact', { id: contactId, include: 'customFields' })).data.customFields).toEqual([]);
    expect((await fail('set_contact_custom_fields', { contactId, customFields: [{ fieldId, tag: 'city', value: 'x' }] })).code).toBe('VALIDATION_ERROR');
    expect((await fail('set_contact_custom_fields', { contactId, customFields: [] })).details[0].path).toBe('customFields');
    expect((await fail('set_contact_custom_fields', { contactId, customFields: [{ fieldId, value: 'x'.repeat(1001) }] })).details[0].path).toBe('customFields[0].value');

    expect((await fail('delete_custom_field', { id: 'fld_1' })).code).toBe('INVALID_ID');
    expect((await fail('set_contact_custom_fields', { contactId: 'ct_1', customFields: [{ fieldId, value: 'x' }] })).code).toBe('INVALID_ID');
    const theirField = (await call('create_custom_field', { name: 'City', tag: 'city' }, otherMcp)).data.id;
    const theirContact = (await call('create_contact', { phone: nextPhone() }, otherMcp)).data.id;
    expect((await fail('delete_custom_field', { id: theirField })).code).toBe('NOT_FOUND');
    expect((await fail('delete_custom_field', { id: theirField, force: true })).code).toBe('NOT_FOUND');
    expect((await fail('set_contact_custom_fields', { contactId: theirContact, customFields: [{ fieldId, value: 'x' }] })).code).toBe('NOT_FOUND');
    expect((await fail('set_contact_custom_fields', { contactId, customFields: [{ fieldId: theirField, value: 'x' }] })).code).toBe('NOT_FOUND');
  });
});

describe('templates toolset', () => {
  it('create (SMS and RCS) → list → get → update → delete, each equal to REST', async () => {
    const smsT = await call('create_template', { name: 'Welcome', type: 'SMS', content: 'Hi {{contact_first_name}} {{nickname}}' });
    expect(smsT).toMatchObject({ success: true, data: { name: 'Welcome', type: 'SMS', parsedContent: null, context: 'general', templateGroupId: null } });
    expect(smsT.warnings).toEqual([expect.objectContaining({ code: 'unknown_merge_field' })]);
    const content = { title: 'Sale', description: 'Hi {{contact_first_name}}', suggestions: [{ reply: { text: 'Yes', postbackData: 'yes' } }] };
    const rcsT = await call('create_template', { name: 'Card', type: 'RCS', rcsMessageType: 'richCard', content, context: 'event' });
    expect(rcsT.data).toMatchObject({ type: 'RCS', rcsMessageType: 'richCard', context: 'event', parsedContent: content });
    expect(rcsT.warnings).toEqual([]);

    expect(await call('get_template', { id: rcsT.data.id })).toEqual(await rest('GET', `${TEMPLATES}/${rcsT.data.id}`));
    const listed = await call('list_templates', { type: 'RCS', limit: 5 });
    expect(listed.data.map((x: { id: string }) => x.id)).toEqual([rcsT.data.id]);
    expect(listed).toEqual(await rest('GET', `${TEMPLATES}?type=RCS&limit=5`));
    expect(await call('list_templates', { search: 'welc', sort: 'name' })).toEqual(await rest('GET', `${TEMPLATES}?search=welc&sort=name`));

    const updated = await call('update_template', { id: smsT.data.id, content: 'Hello {{contact_first_name}}', isDefault: true });
    expect(updated).toMatchObject({ success: true, warnings: [], data: { id: smsT.data.id, content: 'Hello {{contact_first_name}}', isDefault: true } });
    expect(updated.data).toEqual((await rest('GET', `${TEMPLATES}/${smsT.data.id}`)).data);

    expect(await call('delete_template', { id: smsT.data.id })).toEqual({ success: true, data: { id: smsT.data.id, deleted: true } });
    expect((await fail('get_template', { id: smsT.data.id })).code).toBe('NOT_FOUND');
  });

  it('refuses bad input: invalid content, limits, malformed and foreign ids', async () => {
    const bad = await fail('create_template', { name: 'Bad', type: 'RCS', rcsMessageType: 'text', content: { text: 'x'.repeat(3073) } });
    expect(bad.code).toBe('VALIDATION_ERROR');
    expect(bad.details[0].path).toBe('content.text');
    expect((await fail('create_template', { name: 'No type', type: 'RCS', content: { text: 'hi' } })).details[0].path).toBe('rcsMessageType');
    expect((await fail('create_template', { name: 'Obj', type: 'SMS', content: { text: 'hi' } })).details[0].path).toBe('content');
    expect((await fail('list_templates', { limit: TEMPLATE_LIST_MAX_LIMIT + 1 })).details[0]).toMatchObject({ path: 'limit', code: 'too_big' });
    expect((await fail('list_templates', { templateGroupId: 'grp_1' })).code).toBe('VALIDATION_ERROR');

    for (const name of ['get_template', 'update_template', 'delete_template']) {
      expect((await fail(name, { id: 'tpl_1', ...(name === 'update_template' ? { name: 'x' } : {}) })).code, name).toBe('INVALID_ID');
    }
    const theirs = (await call('create_template', { name: 'Theirs', type: 'SMS', content: 'hi' }, otherMcp)).data.id;
    for (const name of ['get_template', 'update_template', 'delete_template']) {
      expect((await fail(name, { id: theirs, ...(name === 'update_template' ? { name: 'Mine' } : {}) })).code, name).toBe('NOT_FOUND');
    }
    const mine = (await call('create_template', { name: 'Mine', type: 'SMS', content: 'hi' })).data.id;
    expect((await fail('update_template', { id: mine })).code).toBe('VALIDATION_ERROR');
    expect((await fail('update_template', { id: mine, templateGroupId: newId('tg') })).code).toBe('NOT_FOUND');
  });
});

describe('template_groups toolset', () => {
  it('create → list → rename → assign → delete, each equal to REST', async () => {
    const group = await call('create_template_group', { name: 'Onboarding' });
    const id = group.data.id as string;
    expect(group).toMatchObject({ success: true, data: { id, templateGroupId: id, name: 'Onboarding', templateCount: 0 } });
    const a = (await call('create_template', { name: 'A', type: 'SMS', content: 'a' })).data.id;
    const b = (await call('create_template', { name: 'B', type: 'SMS', content: 'b', templateGroupId: id })).data.id;
    const foreign = (await call('create_template', { name: 'F', type: 'SMS', content: 'f' }, otherMcp)).data.id;

    expect(await call('list_template_groups', {})).toEqual(await rest('GET', `${TEMPLATES}/groups`));
    expect((await call('list_template_groups', {})).data.find((g: { id: string }) => g.id === id).templateCount).toBe(1);

    const renamed = await call('update_template_group', { id, name: 'Welcome flow' });
    expect(renamed).toEqual(await rest('GET', `${TEMPLATES}/groups/${id}`));
    expect(renamed.data.name).toBe('Welcome flow');

    const assigned = await call('assign_templates_to_template_group', { templateIds: [a, foreign], templateGroupId: id });
    expect(assigned).toEqual({ success: true, data: { templateGroupId: id, requestedCount: 2, assignedCount: 1, notFoundIds: [foreign] } });
    expect((await call('list_templates', { templateGroupId: id })).data.map((x: { id: string }) => x.id).sort()).toEqual([a, b].sort());
    expect((await call('assign_templates_to_template_group', { templateIds: [b], templateGroupId: null })).data.assignedCount).toBe(1);
    expect((await call('get_template', { id: b })).data.templateGroupId).toBeNull();

    expect(await call('delete_template_group', { id })).toEqual({ success: true, data: { id, deleted: true, ungroupedTemplates: 1 } });
    expect((await call('get_template', { id: a })).data.templateGroupId).toBeNull();
    expect((await call('list_template_groups', {})).data.find((g: { id: string }) => g.id === id)).toBeUndefined();
  });

  it('refuses bad input: name limits and duplicates, too many ids, malformed and foreign ids', async () => {
    const id = (await call('create_template_group', { name: 'Promo' })).data.id;
    expect(await fail('create_template_group', { name: 'PROMO' })).toMatchObject({ code: 'CONFLICT', existingTemplateGroupId: id });
    expect((await fail('create_template_group', { name: 'x'.repeat(TEMPLATE_GROUP_NAME_MAX_LENGTH + 1) })).details[0]).toMatchObject({ path: 'name', code: 'too_long' });
    expect((await fail('update_template_group', { id, name: '' })).details[0].path).toBe('name');
    const tooMany = Array.from({ length: TEMPLATE_ASSIGN_MAX_IDS + 1 }, () => newId('tpl'));
    expect((await fail('assign_templates_to_template_group', { templateIds: tooMany, templateGroupId: id })).details[0]).toMatchObject({ path: 'templateIds', code: 'too_long' });
    expect((await fail('assign_templates_to_template_group', { templateIds: [newId('tpl')] })).details[0].path).toBe('templateGroupId');

    expect((await fail('update_template_group', { id: 'tg_1', name: 'x' })).code).toBe('INVALID_ID');
    expect((await fail('delete_template_group', { id: newId('grp') })).code).toBe('INVALID_ID');
    const theirs = (await call('create_template_group', { name: 'Promo' }, otherMcp)).data.id;
    expect((await fail('update_template_group', { id: theirs, name: 'Mine' })).code).toBe('NOT_FOUND');
    expect((await fail('delete_template_group', { id: theirs })).code).toBe('NOT_FOUND');
    const mine = (await call('create_template', { name: 'Mine', type: 'SMS', content: 'hi' })).data.id;
    expect((await fail('assign_templates_to_template_group', { templateIds: [mine], templateGroupId: theirs })).code).toBe('NOT_FOUND');
  });
});
