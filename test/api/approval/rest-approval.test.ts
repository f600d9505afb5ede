import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { ALL_PERMISSIONS } from '../../../src/platform/permissions.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { bearer, decideOnSharePage, oauthToken } from './helpers.js';
import { settled } from '../../helpers/settled.js';

/**
 * Approval belongs to the credential (issue #15, DESIGN §4): OAuth tokens and keys marked "sends
 * need approval" cannot send through the direct REST routes, never see webhook signing secrets,
 * and send through the REST preview flow once a person approved.
 */
const clock = new FakeClock(Date.now());
let t: TestServer;
/** OAuth token with messages:read/write (what an assistant gets). */
let token: string;
/** OAuth token whose person also ticked webhooks:manage. */
let managerToken: string;
/** API key with every permission whose sends need approval. */
let boundKey: string;

let seq = 0;
/** A fresh RCS-capable number of the simulated network (no 999x ending). */
const phone = () => `+49151123${41000 + ++seq}`;

const rcsBody = (over: Record<string, unknown> = {}) => ({
  phoneNumber: phone(),
  messageType: 'text',
  content: { text: 'Your table is ready' },
  sendernameId: t.account.senders.rcs,
  ...over,
});
const batchBody = (over: Record<string, unknown> = {}) => ({ phoneNumbers: [phone(), phone()], messageType: 'text', content: { text: 'Doors open at 9' }, sendernameId: t.account.senders.rcs, ...over });
const smsBody = (over: Record<string, unknown> = {}) => ({ phoneNumber: phone(), message: 'Your code is 1234', sendernameId: t.account.senders.sms, ...over });

const messageCount = async () => Number((await t.ctx.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', t.account.accountId).executeTakeFirstOrThrow()).n);
const previewCount = async () => Number((await t.ctx.db.selectFrom('previews').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', t.account.accountId).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  t = await startTestServer({ clock, env: { DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
  token = await oauthToken(t, t.account, clock, 'messages:read messages:write');
  clock.advance(31_000);
  managerToken = await oauthToken(t, t.account, clock, 'messages:read messages:write webhooks:manage');
  clock.advance(31_000);
  boundKey = (await t.ctx.services.apiKeys.create(t.account.accountId, 'assistant', ALL_PERMISSIONS, { sendsNeedApproval: true })).key;
});
afterAll(async () => {
  await t?.close();
});

describe('direct REST sends', () => {
  const routes = [
    ['/api/rcs/send', () => rcsBody()],
    ['/api/rcs/send-batch', () => batchBody()],
    ['/api/rcs/send-sms', () => smsBody()],
  ] as const;

  it('refuse an OAuth access token with 403 APPROVAL_REQUIRED naming the preview flow; nothing is sent', async () => {
    const before = await messageCount();
    for (const [path, body] of routes) {
      const r = await t.api('POST', path, body(), bearer(token));
      expect(r.status, path).toBe(403);
      expect(r.body.error.code).toBe('APPROVAL_REQUIRED');
      expect(r.body.error.message).toContain('/api/rcs/previews/send');
      expect(r.body.error.message).toContain('/api/rcs/previews/{id}/send');
    }
    expect(await messageCount()).toBe(before);
  });

  it('refuse a key whose sends need approval, even with every permission', async () => {
    const before = await messageCount();
    for (const [path, body] of routes) {
      const r = await t.api('POST', path, body(), { key: boundKey });
      expect(r.status, path).toBe(403);
      expect(r.body.error.code).toBe('APPROVAL_REQUIRED');
    }
    expect(await messageCount()).toBe(before);
  });

  it('still work for an automation key (no approval mark)', async () => {
    expect((await t.api('POST', '/api/rcs/send', rcsBody())).status).toBe(200);
    expect((await t.api('POST', '/api/rcs/send-batch', batchBody())).status).toBe(202);
    expect((await t.api('POST', '/api/rcs/send-sms', smsBody())).status).toBe(200);
  });

  it('the key list and the OpenAPI document say so', async () => {
    const keys = await t.ctx.services.apiKeys.list(t.account.accountId);
    expect(keys.find((k) => k.name === 'assistant')?.sendsNeedApproval).toBe(true);
    expect(keys.find((k) => k.name !== 'assistant')?.sendsNeedApproval).toBe(false);
    const { body } = await t.api('GET', '/openapi.json', undefined, { key: null });
    for (const p of ['/api/rcs/send', '/api/rcs/send-batch', '/api/rcs/send-sms']) expect(body.paths[p].post['x-refuses-approval-bound'], p).toBe('send');
    expect(body.paths['/api/rcs/previews/send'].post['x-refuses-approval-bound']).toBeUndefined();
    expect(body.paths['/api/rcs/previews/{id}/send'].post).toBeDefined();
    expect(body.paths['/api/rcs/previews/{id}'].get.responses['200'].content['application/json'].schema.properties.data.properties.share_url).toBeDefined();
  });
});

describe('webhook and form management', () => {
  let hookId = '';
  beforeAll(async () => {
    const r = await t.api('POST', '/api/rcs/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['delivery_status'] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    hookId = r.body.data.id;
  });

  it('needs webhooks:manage, not messages:write', async () => {
    const writer = await t.createKey(t.account.accountId, ['messages:read', 'messages:write']);
    const create = await t.api('POST', '/api/rcs/webhooks', { url: 'http://127.0.0.1:9/other', events: ['delivery_status'] }, { key: writer });
    expect(create.status).toBe(403);
    expect(create.body.error.message).toContain('webhooks:manage');
    expect((await t.api('GET', `/api/rcs/webhooks/${hookId}/secret`, undefined, { key: writer })).body.error.requiredPermission).toBe('webhooks:manage');
    expect((await t.api('PUT', `/api/rcs/webhooks/${hookId}`, { description: 'x' }, { key: writer })).status).toBe(403);
    // The assistant's usual token has no webhooks:manage either.
    expect((await t.api('GET', `/api/rcs/webhooks/${hookId}/secret`, undefined, bearer(token))).status).toBe(403);
    expect((await t.api('PUT', `/api/rcs/webhooks/${hookId}`, { description: 'x' }, bearer(token))).status).toBe(403);
    // Reads stay with messages:read.
    expect((await t.api('GET', `/api/rcs/webhooks/${hookId}`, undefined, { key: writer })).status).toBe(200);
  });

  it('forms need forms:manage, not contacts:write', async () => {
    const contactsWriter = await t.createKey(t.account.accountId, ['contacts:read', 'contacts:write']);
    const r = await t.api('POST', '/api/v1/forms', { name: 'Newsletter', doubleOptIn: false }, { key: contactsWriter });
    expect(r.status).toBe(403);
    expect(r.body.error.requiredPermission).toBe('forms:manage');
    expect((await t.api('GET', '/api/v1/forms', undefined, { key: contactsWriter })).status).toBe(200);
    expect((await t.api('POST', '/api/v1/forms', { name: 'Newsletter', doubleOptIn: false })).status).toBe(201);
  });

  it('an approval-bound credential cannot create or change forms: their confirmation SMS goes out with nobody approving it', async () => {
    clock.advance(31_000);
    const formsToken = await oauthToken(t, t.account, clock, 'messages:read forms:manage');
    clock.advance(31_000); // a TOTP code is good once: the next login is in another 30 s step
    const body = { name: 'URGENT verify your bank at evil.example', slug: 'bound-form', confirmation: { sendernameId: t.account.senders.sms, message: 'Verify at evil.example/x {{confirm_link}}' } };
    const countForms = async () => Number((await t.ctx.db.selectFrom('forms').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', t.account.accountId).executeTakeFirstOrThrow()).n);
    const before = await countForms();
    for (const [who, opts] of [
      ['oauth', bearer(formsToken)],
      ['bound key', { key: boundKey }],
    ] as const) {
      const r = await t.api('POST', '/api/v1/forms', body, opts);
      expect(r.status, who).toBe(403);
      expect(r.body.error.code, who).toBe('APPROVAL_REQUIRED');
      expect(r.body.error.message).toContain('console');
    }
    expect(await countForms()).toBe(before);
    // An automation key may; the approval-bound ones still cannot change what it sends.
    const made = await t.api('POST', '/api/v1/forms', { ...body, name: 'Newsletter', slug: 'automation-form', confirmation: { sendernameId: t.account.senders.sms, message: 'Confirm: {{confirm_link}}' } });
    expect(made.status).toBe(201);
    const id = made.body.id ?? made.body.data?.id ?? made.body.form?.id;
    expect(typeof id).toBe('string');
    const change = await t.api('PUT', `/api/v1/forms/${id}`, { confirmation: body.confirmation }, { key: boundKey });
    expect(change.status).toBe(403);
    expect(change.body.error.code).toBe('APPROVAL_REQUIRED');
  });

  it('signing secrets are never shown to an OAuth token or an approval-bound key, even with webhooks:manage', async () => {
    for (const [who, opts] of [
      ['oauth', bearer(managerToken)],
      ['bound key', { key: boundKey }],
    ] as const) {
      const read = await t.api('GET', `/api/rcs/webhooks/${hookId}/secret`, undefined, opts);
      expect(read.status, who).toBe(403);
      expect(read.body.error.code).toBe('FORBIDDEN');
      expect(read.body.error.message).toContain('signing secrets');
      expect(JSON.stringify(read.body)).not.toContain('whsec_');
      const rotate = await t.api('POST', `/api/rcs/webhooks/${hookId}/rotate-secret`, {}, opts);
      expect(rotate.status, who).toBe(403);
      expect(JSON.stringify(rotate.body)).not.toContain('whsec_');
      const create = await t.api('POST', '/api/rcs/webhooks', { url: `http://127.0.0.1:9/${who.replace(' ', '-')}`, events: ['delivery_status'] }, opts);
      expect(create.status, who).toBe(403);
      expect(JSON.stringify(create.body)).not.toContain('whsec_');
      // Managing without the secret is allowed.
      expect((await t.api('PUT', `/api/rcs/webhooks/${hookId}`, { description: who }, opts)).status, who).toBe(200);
    }
    // The rotation was refused before it happened: the automation key still reads one current secret.
    const secret = await t.api('GET', `/api/rcs/webhooks/${hookId}/secret`);
    expect(secret.status).toBe(200);
    expect(secret.body.data.previousSecret).toBeNull();
    expect((await t.api('GET', '/api/rcs/webhooks')).body.data.filter((w: { url: string }) => w.url.startsWith('http://127.0.0.1:9/')).length).toBe(1);
  });
});

describe('REST preview flow', () => {
  it('create → read → refused while pending → a person approves → sent once; a repeat returns the same result', async () => {
    const body = rcsBody({ campaignName: 'rest-preview' });
    const created = await t.api('POST', '/api/rcs/previews/send', body, { key: boundKey });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const p = created.body.data;
    expect(p).toMatchObject({ status: 'pending', approval_required: true, kind: 'rcs', recipients: { accepted: 1, duplicates: 0, rejected: [] }, creditsEstimated: 0.035, warnings: [] });
    expect(p.preview_id).toMatch(/^prv_/);
    expect(p.share_url).toMatch(new RegExp(`^${t.url}/preview/[A-Za-z0-9_-]{20,}$`));
    expect(p.send_url).toBe(`/api/rcs/previews/${p.preview_id}/send`);
    expect(p.nextStep).toContain(p.share_url);

    const read = await t.api('GET', `/api/rcs/previews/${p.preview_id}`, undefined, { key: boundKey });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(p);

    const before = await messageCount();
    const early = await t.api('POST', `/api/rcs/previews/${p.preview_id}/send`, undefined, { key: boundKey });
    expect(early.status).toBe(400);
    expect(early.body.error).toMatchObject({ code: 'PREVIEW_NOT_APPROVED', share_url: p.share_url });
    expect(early.body.error.nextStep).toContain(`/api/rcs/previews/${p.preview_id}/send`);
    expect(await messageCount()).toBe(before);

    await decideOnSharePage(t, t.account, p.share_url, clock.now());
    clock.advance(31_000);
    expect((await t.api('GET', `/api/rcs/previews/${p.preview_id}`, undefined, { key: boundKey })).body.data.status).toBe('approved');

    const sent = await t.api('POST', `/api/rcs/previews/${p.preview_id}/send`, undefined, { key: boundKey });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body).toMatchObject({ success: true, messageRecordId: expect.stringMatching(/^msg_/) });
    const again = await t.api('POST', `/api/rcs/previews/${p.preview_id}/send`, body, { key: boundKey });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(sent.body);
    expect(await messageCount()).toBe(before + 1);
    const rows = await t.ctx.db.selectFrom('messages').select(['id', 'source']).where('campaign_name', '=', 'rest-preview').execute();
    expect(rows).toEqual([{ id: sent.body.messageRecordId, source: 'API_MESSAGE' }]);
    expect((await t.api('GET', `/api/rcs/previews/${p.preview_id}`, undefined, { key: boundKey })).body.data.status).toBe('sent');
  });

  it('an OAuth token sends a batch and an SMS the same way', async () => {
    const batch = await t.api('POST', '/api/rcs/previews/send-batch', batchBody(), bearer(token));
    expect(batch.status, JSON.stringify(batch.body)).toBe(201);
    expect(batch.body.data).toMatchObject({ kind: 'rcs_batch', approval_required: true, recipients: { accepted: 2 } });
    const sms = await t.api('POST', '/api/rcs/previews/send-sms', smsBody(), bearer(token));
    expect(sms.status).toBe(201);
    expect(sms.body.data).toMatchObject({ kind: 'sms', approval_required: true, smsSegments: 1 });

    await decideOnSharePage(t, t.account, batch.body.data.share_url, clock.now());
    clock.advance(31_000);
    await decideOnSharePage(t, t.account, sms.body.data.share_url, clock.now());
    clock.advance(31_000);

    const before = await messageCount();
    const b = await t.api('POST', `/api/rcs/previews/${batch.body.data.preview_id}/send`, undefined, bearer(token));
    expect(b.status, JSON.stringify(b.body)).toBe(202);
    expect(b.body.jobId).toMatch(/^job_/);
    const b2 = await t.api('POST', `/api/rcs/previews/${batch.body.data.preview_id}/send`, undefined, bearer(token));
    expect(b2.status).toBe(202);
    expect(b2.body).toEqual(b.body);
    const s = await t.api('POST', `/api/rcs/previews/${sms.body.data.preview_id}/send`, {}, bearer(token));
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    expect(s.body.messageId).toMatch(/^msg_/);
    expect((await t.api('POST', `/api/rcs/previews/${sms.body.data.preview_id}/send`, undefined, bearer(token))).body).toEqual(s.body);
    await expect.poll(messageCount, { timeout: 5000 }).toBe(before + 3);
    // The account's webhook points at a closed port under a fake clock: its deliveries wait for a time that never comes.
    await settled(t, { webhooks: false });
    expect(await messageCount()).toBe(before + 3);
  });

  it('refuses bodies that do not belong to the route, a differing body, another kind, rejected and expired previews', async () => {
    const wrongRoute = await t.api('POST', '/api/rcs/previews/send', { ...rcsBody(), phoneNumbers: [phone()] }, { key: boundKey });
    expect(wrongRoute.status).toBe(400);
    expect(wrongRoute.body.error.details[0]).toMatchObject({ path: 'phoneNumbers' });
    expect((await t.api('POST', '/api/rcs/previews/send-batch', rcsBody(), { key: boundKey })).status).toBe(400);
    const invalid = await t.api('POST', '/api/rcs/previews/send', rcsBody({ content: { text: '' } }), { key: boundKey });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('VALIDATION_ERROR');

    const body = rcsBody();
    const p = (await t.api('POST', '/api/rcs/previews/send', body, { key: boundKey })).body.data;
    await decideOnSharePage(t, t.account, p.share_url, clock.now());
    clock.advance(31_000);
    const before = await messageCount();
    const differs = await t.api('POST', `/api/rcs/previews/${p.preview_id}/send`, { ...body, content: { text: 'Something else' } }, { key: boundKey });
    expect(differs.status).toBe(400);
    expect(differs.body.error).toMatchObject({ code: 'PREVIEW_MISMATCH', differingFields: ['content.text'] });
    const otherKind = await t.api('POST', `/api/rcs/previews/${p.preview_id}/send`, smsBody({ phoneNumber: body.phoneNumber }), { key: boundKey });
    expect(otherKind.status).toBe(400);
    expect(otherKind.body.error.code).toBe('PREVIEW_MISMATCH');
    expect(otherKind.body.error.message).toContain('/api/rcs/previews/send-sms');
    expect(await messageCount()).toBe(before);

    const rejected = (await t.api('POST', '/api/rcs/previews/send', rcsBody(), { key: boundKey })).body.data;
    await decideOnSharePage(t, t.account, rejected.share_url, clock.now(), 'reject');
    clock.advance(31_000);
    expect((await t.api('POST', `/api/rcs/previews/${rejected.preview_id}/send`, undefined, { key: boundKey })).body.error.code).toBe('PREVIEW_REJECTED');

    const old = (await t.api('POST', '/api/rcs/previews/send', rcsBody(), { key: boundKey })).body.data;
    await decideOnSharePage(t, t.account, old.share_url, clock.now());
    clock.advance(25 * 3_600_000);
    expect((await t.api('POST', `/api/rcs/previews/${old.preview_id}/send`, undefined, { key: boundKey })).body.error.code).toBe('PREVIEW_EXPIRED');
    expect(await messageCount()).toBe(before);
  });

  it('malformed id 400, another account’s preview 404, permissions as for sends', async () => {
    expect((await t.api('GET', '/api/rcs/previews/nope', undefined, { key: boundKey })).body.error.code).toBe('INVALID_ID');
    expect((await t.api('POST', '/api/rcs/previews/nope/send', undefined, { key: boundKey })).status).toBe(400);
    const other = await t.createAccount();
    const foreign = await t.api('POST', '/api/rcs/previews/send-sms', { phoneNumber: phone(), message: 'hi', sendernameId: other.senders.sms }, { key: other.apiKey });
    expect(foreign.status).toBe(201);
    const id = foreign.body.data.preview_id;
    expect((await t.api('GET', `/api/rcs/previews/${id}`, undefined, { key: boundKey })).status).toBe(404);
    expect((await t.api('POST', `/api/rcs/previews/${id}/send`, undefined, { key: boundKey })).status).toBe(404);
    const reader = await t.createKey(t.account.accountId, ['messages:read']);
    const before = await previewCount();
    expect((await t.api('POST', '/api/rcs/previews/send-sms', smsBody(), { key: reader })).status).toBe(403);
    expect(await previewCount()).toBe(before);
  });

  it('an automation key uses the flow too; with approval off in the account it sends without a person', async () => {
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { approvalRequired: false });
    try {
      const p = (await t.api('POST', '/api/rcs/previews/send-sms', smsBody())).body.data;
      expect(p.approval_required).toBe(false);
      expect((await t.api('POST', `/api/rcs/previews/${p.preview_id}/send`)).status).toBe(200);
      // …but a credential whose sends need approval still waits for a person, whatever the account setting.
      const q = (await t.api('POST', '/api/rcs/previews/send-sms', smsBody(), { key: boundKey })).body.data;
      expect(q.approval_required).toBe(true);
      expect((await t.api('POST', `/api/rcs/previews/${q.preview_id}/send`, undefined, { key: boundKey })).body.error.code).toBe('PREVIEW_NOT_APPROVED');
      // And it cannot send the automation key's unapproved preview either.
      const r = (await t.api('POST', '/api/rcs/previews/send-sms', smsBody())).body.data;
      expect(r.approval_required).toBe(false);
      expect((await t.api('POST', `/api/rcs/previews/${r.preview_id}/send`, undefined, bearer(token))).body.error.code).toBe('PREVIEW_NOT_APPROVED');
    } finally {
      await t.ctx.services.accounts.updateSettings(t.account.accountId, { approvalRequired: true });
    }
  });
});
