import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContactDirectory, type RecipientContact } from '../../../src/contacts/directory.js';
import { inTransaction } from '../../../src/platform/db/database.js';
import { ALL_PERMISSIONS, DEFAULT_PERMISSIONS } from '../../../src/platform/permissions.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { body, mcpClient } from '../../mcp/helpers.js';

/**
 * Issue #27: a contact remembers, per merge field, which approval-bound credential (an assistant)
 * last wrote its value and when, so a preview can warn "changed by the key 'Assistant' 3 minutes
 * ago". Written on every door that changes merge values (contacts create/update/bulk, custom field
 * values, REST and MCP), cleared field by field when a writer that is not approval-bound changes
 * the value, untouched by a write of the same value; read by ContactDirectory with the contact.
 */

const BASE = '/api/v1/contacts';
/** Valid German mobile numbers: +49 151 6xxxxxxx. */
const phone = (i: number) => `+49151${String(60000000 + i)}`;
let seq = 0;
const nextPhone = () => phone(++seq);

let t: TestServer;
let other: TestAccount;
let directory: ContactDirectory;
let assistant: { key: string; id: string };
let automationKey: string;
let fieldId: string;
const CLIENT_NAME = 'Claude Desktop';
let oauthClientId: string;
let oauthToken: string;

async function findByPhone(p: string, accountId = t.account.accountId): Promise<RecipientContact> {
  const digits = p.slice(1);
  const found = await directory.findByPhones(t.ctx.db, accountId, [digits]);
  const c = found.get(digits);
  expect(c, `contact ${p}`).toBeDefined();
  const byId = await directory.findById(t.ctx.db, accountId, c!.id);
  expect(byId?.assistantWrites).toEqual(c!.assistantWrites);
  return c!;
}

async function createContact(body: Record<string, unknown>, key = automationKey): Promise<string> {
  const r = await t.api('POST', BASE, body, { key });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.id as string;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, JSON.stringify(r)).toBeFalsy();
  return body(r);
}

beforeAll(async () => {
  t = await startTestServer();
  other = await t.createAccount();
  directory = new ContactDirectory({ clock: t.ctx.clock });
  const bound = await t.ctx.services.apiKeys.create(t.account.accountId, 'Assistant', ALL_PERMISSIONS, { sendsNeedApproval: true });
  assistant = { key: bound.key, id: bound.info.id };
  automationKey = await t.createKey(t.account.accountId, ALL_PERMISSIONS);
  const field = await t.api('POST', `${BASE}/fields`, { name: 'Offer', tag: 'Offer' });
  expect(field.status).toBe(201);
  fieldId = field.body.data.id;

  const client = await t.ctx.services.oauth.clients.registerClient({ client_name: CLIENT_NAME, redirect_uris: ['http://127.0.0.1:53682/callback'], token_endpoint_auth_method: 'none' });
  oauthClientId = client.client_id;
  const user = (await t.ctx.services.users.listForAccount(t.account.accountId))[0]!;
  oauthToken = (
    await t.ctx.services.oauth.tokens.issue({
      clientId: oauthClientId,
      userId: user.id,
      accountId: t.account.accountId,
      scopes: [...DEFAULT_PERMISSIONS],
      resource: t.ctx.services.oauth.urls().mcpResource,
    })
  ).token;
});
afterAll(async () => {
  await t.close();
});

describe('approval-bound API key', () => {
  it('records exactly the fields it changed, with the key name, the key id and the time', async () => {
    const p = nextPhone();
    const id = await createContact({ phone: p, firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.org' });
    expect((await findByPhone(p)).assistantWrites).toEqual({});

    const before = Date.now();
    const patched = await t.api('PUT', `${BASE}/${id}`, { firstName: 'URGENT card blocked call +4990012345', lastName: 'Lovelace' }, { key: assistant.key });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const fields = await t.api('PUT', `${BASE}/${id}/fields`, { customFields: [{ tag: 'offer', value: 'https://evil.example/x' }] }, { key: assistant.key });
    expect(fields.status, JSON.stringify(fields.body)).toBe(200);
    const after = Date.now();

    const c = await findByPhone(p);
    expect(c.firstName).toBe('URGENT card blocked call +4990012345');
    expect(c.customFields).toEqual({ Offer: 'https://evil.example/x' });
    // lastName was sent unchanged, email not at all: neither is recorded. Custom fields by their tag as in {{Offer}}.
    expect(Object.keys(c.assistantWrites).sort()).toEqual(['Offer', 'contact_first_name']);
    for (const entry of Object.values(c.assistantWrites)) {
      expect(entry).toEqual({ by: 'key "Assistant"', credentialId: assistant.id, at: expect.any(Number) });
      expect(entry.at).toBeGreaterThanOrEqual(before);
      expect(entry.at).toBeLessThanOrEqual(after);
    }
  });

  it('writing the same value records nothing', async () => {
    const p = nextPhone();
    const id = await createContact({ phone: p, firstName: 'Grace', customFields: [{ fieldId, value: 'gold' }] });
    expect((await t.api('PUT', `${BASE}/${id}`, { firstName: 'Grace', phone: p }, { key: assistant.key })).status).toBe(200);
    expect((await t.api('PUT', `${BASE}/${id}/fields`, { customFields: [{ fieldId, value: 'gold' }] }, { key: assistant.key })).status).toBe(200);
    expect((await t.api('PUT', `${BASE}/${id}/fields/${fieldId}`, { value: 'gold' }, { key: assistant.key })).status).toBe(200);
    expect((await findByPhone(p)).assistantWrites).toEqual({});
  });

  it('a writer that is not approval-bound clears the entries of the fields it changes, and only those', async () => {
    const p = nextPhone();
    const id = await createContact({ phone: p, firstName: 'Alan' });
    expect((await t.api('PUT', `${BASE}/${id}`, { firstName: 'Mallory', customFields: [{ fieldId, value: 'free money' }] }, { key: assistant.key })).status).toBe(200);
    expect(Object.keys((await findByPhone(p)).assistantWrites).sort()).toEqual(['Offer', 'contact_first_name']);

    // The automation key writes the same custom field value (no change) and a new first name.
    expect((await t.api('PUT', `${BASE}/${id}`, { firstName: 'Alan', customFields: [{ fieldId, value: 'free money' }] }, { key: automationKey })).status).toBe(200);
    const c = await findByPhone(p);
    expect(c.firstName).toBe('Alan');
    expect(c.assistantWrites).toEqual({ Offer: { by: 'key "Assistant"', credentialId: assistant.id, at: expect.any(Number) } });

    // A person's key deleting the value clears that one too.
    expect((await t.api('DELETE', `${BASE}/${id}/fields/${fieldId}`, undefined, { key: automationKey })).status).toBe(200);
    expect((await findByPhone(p)).assistantWrites).toEqual({});
  });

  it('creating a contact records every value it gives; deleting a value is a change too', async () => {
    const p = nextPhone();
    const id = await createContact({ phone: p, firstName: 'Eve', customFields: [{ tag: 'OFFER', value: 'x' }] }, assistant.key);
    expect(Object.keys((await findByPhone(p)).assistantWrites).sort()).toEqual(['Offer', 'contact_first_name', 'contact_phone']);

    const q = nextPhone();
    const id2 = await createContact({ phone: q, customFields: [{ fieldId, value: 'kept' }] });
    expect((await t.api('DELETE', `${BASE}/${id2}/fields/${fieldId}`, undefined, { key: assistant.key })).status).toBe(200);
    expect(Object.keys((await findByPhone(q)).assistantWrites)).toEqual(['Offer']);
    expect(id).not.toBe(id2);
  });

  it('a renamed tag keeps its entries; a deleted field drops them', async () => {
    const made = await t.api('POST', `${BASE}/fields`, { name: 'Code', tag: 'code' });
    expect(made.status).toBe(201);
    const p = nextPhone();
    const id = await createContact({ phone: p });
    expect((await t.api('PUT', `${BASE}/${id}/fields/${made.body.data.id}`, { value: 'CALL NOW' }, { key: assistant.key })).status).toBe(200);
    expect(Object.keys((await findByPhone(p)).assistantWrites)).toEqual(['code']);

    expect((await t.api('PUT', `${BASE}/fields/${made.body.data.id}`, { tag: 'promo' }, { key: assistant.key })).status).toBe(200);
    const renamed = await findByPhone(p);
    expect(renamed.customFields).toEqual({ promo: 'CALL NOW' });
    expect(Object.keys(renamed.assistantWrites)).toEqual(['promo']);

    expect((await t.api('DELETE', `${BASE}/fields/${made.body.data.id}?force=true`)).status).toBe(200);
    expect((await findByPhone(p)).assistantWrites).toEqual({});
  });

  it('bulk upsert records for the contacts it changed only', async () => {
    const [a, b, c] = [nextPhone(), nextPhone(), nextPhone()];
    await createContact({ phone: a, firstName: 'Same', customFields: [{ fieldId, value: 'same' }] });
    await createContact({ phone: b, firstName: 'Before' });
    const r = await t.api(
      'POST',
      `${BASE}/bulk`,
      {
        upsert: true,
        contacts: [
          { phone: a, firstName: 'Same', customFields: [{ fieldId, value: 'same' }] },
          { phone: b, firstName: 'After', customFields: [{ tag: 'offer', value: 'new' }] },
          { phone: c, lastName: 'New' },
        ],
      },
      { key: assistant.key },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ created: 1, updated: 2, failed: 0 });
    expect((await findByPhone(a)).assistantWrites).toEqual({});
    expect(Object.keys((await findByPhone(b)).assistantWrites).sort()).toEqual(['Offer', 'contact_first_name']);
    expect(Object.keys((await findByPhone(c)).assistantWrites).sort()).toEqual(['contact_last_name', 'contact_phone']);

    // The same rows again from an automation key: changes nothing, clears nothing.
    const again = await t.api('POST', `${BASE}/bulk`, { upsert: true, contacts: [{ phone: b, firstName: 'After' }] }, { key: automationKey });
    expect(again.status).toBe(200);
    expect(Object.keys((await findByPhone(b)).assistantWrites).sort()).toEqual(['Offer', 'contact_first_name']);
    const changed = await t.api('POST', `${BASE}/bulk`, { upsert: true, contacts: [{ phone: b, firstName: 'Checked' }] }, { key: automationKey });
    expect(changed.status).toBe(200);
    expect(Object.keys((await findByPhone(b)).assistantWrites)).toEqual(['Offer']);
  });

  it('a confirmed opt-in applying submitted data clears what it changes', async () => {
    const p = nextPhone();
    await createContact({ phone: p, firstName: 'Mallory', email: 'm@example.org', customFields: [{ fieldId, value: 'assistant' }] }, assistant.key);
    await inTransaction(t.ctx.db, (tx) =>
      t.ctx.services.contacts.applyOptIn(tx, t.account.accountId, p, { firstName: 'Alice', email: 'm@example.org', customFields: [{ fieldId, value: 'person' }], groupIds: [] }),
    );
    const c = await findByPhone(p);
    expect(c.firstName).toBe('Alice');
    // First name and the custom field changed (cleared); the email was submitted unchanged (kept), the phone untouched.
    expect(Object.keys(c.assistantWrites).sort()).toEqual(['contact_email', 'contact_phone']);
  });
});

describe('OAuth token', () => {
  it('records the client name shown at consent, on REST and on MCP tools', async () => {
    const p = nextPhone();
    const id = await createContact({ phone: p, firstName: 'Ann' });
    const bearer = { key: null, headers: { authorization: `Bearer ${oauthToken}` } };
    expect((await t.api('PUT', `${BASE}/${id}`, { lastName: 'Changed' }, bearer)).status).toBe(200);
    const client = await mcpClient(t.url, oauthToken, '', 'bearer');
    try {
      await call(client, 'update_contact', { id, firstName: 'Anne' });
      await call(client, 'set_contact_custom_fields', { contactId: id, customFields: [{ fieldId, value: 'via mcp' }] });
    } finally {
      await client.close();
    }
    const entry = { by: `app "${CLIENT_NAME}"`, credentialId: oauthClientId, at: expect.any(Number) };
    expect((await findByPhone(p)).assistantWrites).toEqual({ contact_first_name: entry, contact_last_name: entry, Offer: entry });

    // The client renaming itself later does not change what its token is labelled.
    await t.ctx.db.updateTable('oauth_clients').set({ client_name: 'Your bank' }).where('client_id', '=', oauthClientId).execute();
    expect((await t.api('PUT', `${BASE}/${id}`, { email: 'anne@example.org' }, bearer)).status).toBe(200);
    expect((await findByPhone(p)).assistantWrites.contact_email).toEqual(entry);
  });

  it('MCP tools of an automation key clear', async () => {
    const p = nextPhone();
    const id = await createContact({ phone: p, firstName: 'X' }, assistant.key);
    const client = await mcpClient(t.url, automationKey);
    try {
      await call(client, 'update_contact', { id, firstName: 'Y' });
    } finally {
      await client.close();
    }
    expect(Object.keys((await findByPhone(p)).assistantWrites)).toEqual(['contact_phone']);
  });
});

describe('tenancy', () => {
  it("another account's contact of the same number is neither written nor read", async () => {
    const p = nextPhone();
    const mine = await createContact({ phone: p, firstName: 'Mine' });
    const theirs = await t.api('POST', BASE, { phone: p, firstName: 'Theirs' }, { key: other.apiKey });
    expect(theirs.status).toBe(201);
    expect((await t.api('PUT', `${BASE}/${theirs.body.data.id}`, { firstName: 'Hacked' }, { key: assistant.key })).status).toBe(404);
    expect((await t.api('PUT', `${BASE}/${theirs.body.data.id}/fields`, { customFields: [{ fieldId, value: 'x' }] }, { key: assistant.key })).status).toBe(404);
    expect((await t.api('PUT', `${BASE}/${mine}`, { firstName: 'Changed' }, { key: assistant.key })).status).toBe(200);
    expect(Object.keys((await findByPhone(p)).assistantWrites)).toEqual(['contact_first_name']);
    const foreign = await findByPhone(p, other.accountId);
    expect(foreign.firstName).toBe('Theirs');
    expect(foreign.assistantWrites).toEqual({});
  });
});
