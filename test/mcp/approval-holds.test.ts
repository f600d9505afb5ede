import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FakeClock } from '../../src/platform/clock.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { body, mcpClient } from './helpers.js';

/**
 * Issue #15 "Approval that holds": what a person approves is what each recipient gets. The send of
 * a preview is refused (PREVIEW_STALE) when any merged value changed after the preview, and merged
 * values are validated per recipient like literal content.
 */
const clock = new FakeClock(Date.UTC(2026, 10, 22, 9, 0, 0));
let t: TestServer;
let c: Client;
let a: TestAccount;

beforeAll(async () => {
  t = await startTestServer({ clock });
  a = t.account;
  c = await mcpClient(t.url, a.apiKey);
});
afterAll(async () => {
  await c.close();
  await t.close();
});

let phoneSeq = 100;
const phone = () => `+49151123${String(++phoneSeq).padStart(5, '0')}`;

const call = async (name: string, args: Record<string, unknown>, client: Client = c) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: Boolean(r.isError), body: body(r) };
};

async function decide(shareUrl: string, account: TestAccount = a) {
  const web = new WebClient(t.url);
  const path = new URL(shareUrl).pathname;
  await web.login(account.email, account.password, account.totpSecret, path, clock.now());
  const page = await web.get(path);
  expect(page.status).toBe(200);
  const res = await web.post(`${path}/approve`, { csrf: WebClient.hidden(page.text, 'csrf'), fingerprint: WebClient.hidden(page.text, 'fingerprint') });
  expect(res.status).toBe(303);
  clock.advance(31_000); // a new TOTP step for the next login
}

async function contact(firstName: string | undefined, extra: Record<string, unknown> = {}) {
  const p = phone();
  const r = await call('create_contact', { phone: p, ...(firstName !== undefined ? { firstName } : {}), ...extra });
  expect(r.isError).toBe(false);
  return { phone: p, id: (r.body.contact ?? r.body.data ?? r.body).id as string };
}

const credits = async () => (await t.ctx.services.accounts.get(a.accountId)).credits;
const atCarrier = async (p: string) => t.ctx.db.selectFrom('sim_messages').selectAll().where('to_phone', '=', p).execute();
const messagesTo = async (p: string) => t.ctx.db.selectFrom('messages').select('id').where('phone', '=', p.slice(1)).execute();
const textAtCarrier = async (p: string) => {
  const rows = await atCarrier(p);
  expect(rows).toHaveLength(1);
  const payload = JSON.parse(rows[0]!.payload) as { content?: { text?: string; description?: string }; text?: string };
  return payload.content?.text ?? payload.content?.description ?? payload.text;
};

const textPayload = (to: string | string[], text: string, over: Record<string, unknown> = {}) => ({
  ...(Array.isArray(to) ? { phoneNumbers: to, batchSize: 100, delayMs: 0 } : { phoneNumber: to }),
  messageType: 'text',
  content: { text },
  sendernameId: a.senders.rcs,
  ...over,
});

/** Preview, approve on the share page; returns the preview result. */
async function approved(tool: 'rcs_preview' | 'sms_preview', payload: Record<string, unknown>) {
  const p = await call(tool, payload);
  expect(p.isError, JSON.stringify(p.body)).toBe(false);
  await decide(p.body.share_url);
  return p.body;
}

describe('a preview whose merged values changed is refused (PREVIEW_STALE)', () => {
  it('update_contact after approval: refused, nothing sent, nothing debited; the message names count and field', async () => {
    const alice = await contact('Alice');
    const p = await approved('rcs_preview', textPayload(alice.phone, 'Hi {{contact_first_name}}, your parcel is on its way.'));
    expect(p.samples[0].text).toBe('Hi Alice, your parcel is on its way.');

    const upd = await call('update_contact', { id: alice.id, firstName: 'Alice! URGENT verify bank at evil.example/x' });
    expect(upd.isError).toBe(false);
    const before = await credits();
    const r = await call('rcs_send', { preview_id: p.preview_id, payload: p.payload });
    expect(r.isError).toBe(true);
    expect(r.body.error.code).toBe('PREVIEW_STALE');
    expect(r.body.error.message).toMatch(/1 recipient/);
    expect(r.body.error.message).toContain('contact_first_name');
    expect(r.body.error.changedFields).toEqual(['contact_first_name']);
    expect(r.body.error.details).toContainEqual(expect.objectContaining({ path: 'merge.contact_first_name', code: 'changed_since_preview' }));
    expect(r.body.error.nextStep).toContain('rcs_preview');
    expect(await atCarrier(alice.phone)).toHaveLength(0);
    expect(await messagesTo(alice.phone)).toHaveLength(0);
    expect(await credits()).toBe(before);

    // The refusal is stable, and REST sees the same code with 409.
    expect((await call('rcs_send', { preview_id: p.preview_id, payload: p.payload })).body.error.code).toBe('PREVIEW_STALE');

    // Previewing again shows the new text; that preview, approved, sends it.
    const again = await approved('rcs_preview', p.payload);
    expect(again.samples[0].text).toContain('URGENT');
    const sent = await call('rcs_send', { preview_id: again.preview_id, payload: again.payload });
    expect(sent.isError).toBe(false);
    expect(await textAtCarrier(alice.phone)).toBe(again.samples[0].text);
  });

  it('a changed custom field value is refused, naming the field and how many of the recipients', async () => {
    const field = await call('create_custom_field', { name: 'Tier', tag: 'tier' });
    expect(field.isError).toBe(false);
    const one = await contact('Ann', { customFields: [{ tag: 'tier', value: 'gold' }] });
    const two = await contact('Ben', { customFields: [{ tag: 'tier', value: 'silver' }] });
    const p = await approved('rcs_preview', textPayload([one.phone, two.phone], 'Your {{tier}} offer, {{contact_first_name}}'));
    expect(p.recipients.accepted).toBe(2);
    await call('set_contact_custom_fields', { contactId: two.id, customFields: [{ tag: 'tier', value: 'platinum' }] });
    const before = await credits();
    const r = await call('rcs_send_batch', { preview_id: p.preview_id, payload: p.payload });
    expect(r.body.error).toMatchObject({ code: 'PREVIEW_STALE', staleRecipients: 1, previewRecipients: 2, changedFields: ['tier'] });
    expect(r.body.error.message).toMatch(/1 recipient \(of 2 previewed\)/);
    expect(await atCarrier(one.phone)).toHaveLength(0);
    expect(await atCarrier(two.phone)).toHaveLength(0);
    expect(await credits()).toBe(before);
  });

  it('a deleted contact is refused', async () => {
    const gone = await contact('Gina');
    const p = await approved('rcs_preview', textPayload(gone.phone, 'Hello {{contact_first_name}}'));
    expect((await call('delete_contact', { id: gone.id })).isError).toBe(false);
    const r = await call('rcs_send', { preview_id: p.preview_id, payload: p.payload });
    expect(r.body.error.code).toBe('PREVIEW_STALE');
    expect(r.body.error.changedFields).toEqual(expect.arrayContaining(['contact', 'contact_first_name']));
    expect(await atCarrier(gone.phone)).toHaveLength(0);
    // The auto-created contact of the refused send was rolled back with it.
    expect(await t.ctx.db.selectFrom('contacts').select('id').where('phone', '=', gone.phone.slice(1)).execute()).toHaveLength(0);
  });

  it('a contact disabled after the preview is refused, even when no merge field is used', async () => {
    const d1 = await contact('Dora');
    const d2 = await contact('Dan');
    const p = await approved('rcs_preview', textPayload([d1.phone, d2.phone], 'Plain news, no merge fields'));
    expect((await call('bulk_disable_contacts', { contactIds: [d2.id] })).isError).toBe(false);
    const r = await call('rcs_send_batch', { preview_id: p.preview_id, payload: p.payload });
    expect(r.body.error.code).toBe('PREVIEW_STALE');
    expect(r.body.error.details).toContainEqual(expect.objectContaining({ path: 'recipients', code: 'no_longer_accepted' }));
    expect(await atCarrier(d1.phone)).toHaveLength(0);
  });

  it('a changed company profile is refused', async () => {
    const x = await contact('Xena');
    const p = await approved('rcs_preview', textPayload(x.phone, 'News from {{company_name}}'));
    const account = await t.ctx.services.accounts.get(a.accountId);
    await t.ctx.services.accounts.updateSettings(a.accountId, { companyProfile: { ...account.companyProfile, company_name: 'Evil Corp' } });
    try {
      const r = await call('rcs_send', { preview_id: p.preview_id, payload: p.payload });
      expect(r.body.error).toMatchObject({ code: 'PREVIEW_STALE', changedFields: ['company_name'] });
    } finally {
      await t.ctx.services.accounts.updateSettings(a.accountId, { companyProfile: account.companyProfile });
    }
  });

  it('{{today}} crossing midnight in the account time zone is refused', async () => {
    const saved = clock.now();
    clock.set(Date.UTC(2026, 10, 22, 22, 58, 0)); // 23:58 in Europe/Berlin
    try {
      const x = await contact('Tom');
      const p = await approved('rcs_preview', textPayload(x.phone, 'Offer valid {{today}} only'));
      expect(p.samples[0].text).toContain('22 November 2026');
      clock.set(Date.UTC(2026, 10, 22, 23, 1, 0)); // 00:01 on the 23rd in Berlin
      const r = await call('rcs_send', { preview_id: p.preview_id, payload: p.payload });
      expect(r.body.error).toMatchObject({ code: 'PREVIEW_STALE', changedFields: ['today'] });
      expect(await atCarrier(x.phone)).toHaveLength(0);
    } finally {
      clock.set(Math.max(saved, clock.now()) + 60_000);
    }
  });

  it('sms_send is checked too, and sms_preview of the same payload then makes a fresh preview', async () => {
    const s = await contact('Sam');
    const payload = { phoneNumber: s.phone, message: 'Hi {{contact_first_name}}', sendernameId: a.senders.sms };
    const p = await approved('sms_preview', payload);
    await call('update_contact', { id: s.id, firstName: 'Samuel' });
    const r = await call('sms_send', { preview_id: p.preview_id, payload });
    expect(r.body.error.code).toBe('PREVIEW_STALE');
    expect(r.body.error.nextStep).toContain('sms_preview');
    const fresh = await call('sms_preview', payload);
    expect(fresh.body.preview_id).not.toBe(p.preview_id);
    expect(fresh.body.samples[0].text).toBe('Hi Samuel');
  });
});

describe('an unchanged preview sends what was approved', () => {
  it('each recipient gets the previewed text; the per-send unsubscribe token does not count as a change', async () => {
    const u1 = await contact('Uma');
    const u2 = await contact('Ugo');
    const p = await approved('rcs_preview', textPayload([u1.phone, u2.phone], 'Hi {{contact_first_name}} from {{company_name}}, {{today}}. Stop: {{unsubscribe_link}}'));
    const before = await credits();
    const sent = await call('rcs_send_batch', { preview_id: p.preview_id, payload: p.payload });
    expect(sent.isError, JSON.stringify(sent.body)).toBe(false);
    expect(sent.body).toMatchObject({ success: true, accepted: 2 });
    expect(await credits()).toBeLessThan(before);
    for (const [i, who] of [u1, u2].entries()) {
      await expect.poll(async () => (await atCarrier(who.phone)).length, { timeout: 5000 }).toBe(1);
      const text = (await textAtCarrier(who.phone))!;
      const sample = p.samples.find((s: { phoneNumber: string }) => s.phoneNumber === who.phone);
      // Identical up to the unsubscribe token, which is fresh on every send (§2.13 rule 4).
      const strip = (s: string) => s.replace(/Stop: \S+/, 'Stop: <link>');
      expect(strip(text)).toBe(strip(sample.text));
      expect(text).toContain(i === 0 ? 'Hi Uma from' : 'Hi Ugo from');
    }
  });
});

describe('merged values are validated per recipient', () => {
  const chipPayload = (to: string | string[]) => ({
    ...textPayload(to, 'Open your link'),
    content: { text: 'Open your link', suggestions: [{ action: { type: 'openUrl', text: 'Open', openUrlAction: { url: '{{contact_first_name}}' } } }] },
  });

  it('a button URL merging to javascript: rejects that recipient at preview, with path and code; it never reaches the carrier', async () => {
    const evil = await contact('javascript:alert(1)//');
    const good = await contact('https://shop.example/good');
    const p = await approved('rcs_preview', chipPayload([evil.phone, good.phone]));
    expect(p.recipients.accepted).toBe(1);
    expect(p.recipients.rejected).toEqual([
      expect.objectContaining({
        phoneNumber: evil.phone,
        code: 'INVALID_MERGED_CONTENT',
        details: [expect.objectContaining({ path: 'content.suggestions[0].action.openUrlAction.url', code: 'invalid_url' })],
      }),
    ]);
    expect(p.recipients.rejected[0].reason).toContain('content.suggestions[0].action.openUrlAction.url');
    const sent = await call('rcs_send_batch', { preview_id: p.preview_id, payload: p.payload });
    expect(sent.body).toMatchObject({ success: true, accepted: 1, rejectedCount: 1 });
    await expect.poll(async () => (await atCarrier(good.phone)).length, { timeout: 5000 }).toBe(1);
    expect(await atCarrier(evil.phone)).toHaveLength(0);
    expect(await messagesTo(evil.phone)).toHaveLength(0);

    // One recipient: the preview itself is refused with the path and code.
    const single = await call('rcs_preview', chipPayload(evil.phone));
    expect(single.isError).toBe(true);
    expect(single.body.error.code).toBe('VALIDATION_ERROR');
    expect(single.body.error.details).toContainEqual(expect.objectContaining({ path: 'content.suggestions[0].action.openUrlAction.url', code: 'invalid_url' }));

    // The REST door runs the same check: the merged javascript: URL never goes out.
    const rest = await t.api('POST', '/api/rcs/send', { ...chipPayload(evil.phone), sendernameId: a.senders.rcs });
    expect(rest.status).toBe(400);
    expect(rest.body.error.details).toContainEqual(expect.objectContaining({ code: 'invalid_url' }));
    expect(await atCarrier(evil.phone)).toHaveLength(0);
  });

  it('a media URL cannot take a placeholder, so it can never merge into http:// (spec §2.1)', async () => {
    const account = await t.ctx.services.accounts.get(a.accountId);
    await t.ctx.services.accounts.updateSettings(a.accountId, { companyProfile: { ...account.companyProfile, company_website: 'http://insecure.example' } });
    try {
      const m = await contact('Mia');
      const r = await call('rcs_preview', {
        phoneNumber: m.phone,
        messageType: 'richCard',
        content: { title: 'Look', media: { height: 'MEDIUM', contentInfo: { fileUrl: '{{company_website}}/a.jpg', contentType: 'image/jpeg' } } },
        sendernameId: a.senders.rcs,
      });
      expect(r.isError).toBe(true);
      // Refused at the door (the tool schema wants a URI; the content validator says placeholder_not_allowed).
      expect(r.body.error.details).toContainEqual(expect.objectContaining({ path: 'content.media.contentInfo.fileUrl' }));
      const rest = await t.api('POST', '/api/rcs/send', {
        phoneNumber: m.phone,
        messageType: 'richCard',
        content: { title: 'Look', media: { height: 'MEDIUM', contentInfo: { fileUrl: '{{company_website}}/a.jpg', contentType: 'image/jpeg' } } },
        sendernameId: a.senders.rcs,
      });
      expect(rest.status).toBe(400);
      expect(rest.body.error.details).toContainEqual(expect.objectContaining({ path: 'content.media.contentInfo.fileUrl', code: 'placeholder_not_allowed' }));
      expect(await atCarrier(m.phone)).toHaveLength(0);
    } finally {
      await t.ctx.services.accounts.updateSettings(a.accountId, { companyProfile: account.companyProfile });
    }
  });

  it('a merged text over its length limit rejects that recipient', async () => {
    const long = await contact('L'.repeat(100));
    const short = await contact('Sue');
    const title = `Hi {{contact_first_name}} ${'x'.repeat(150)}`; // 153 + name: over 200 only for the long name
    const p = await approved('rcs_preview', { ...textPayload([long.phone, short.phone], ''), messageType: 'richCard', content: { title, description: 'Sale' } });
    expect(p.recipients.accepted).toBe(1);
    expect(p.recipients.rejected).toEqual([expect.objectContaining({ phoneNumber: long.phone, code: 'INVALID_MERGED_CONTENT', details: [expect.objectContaining({ path: 'content.title', code: 'too_long' })] })]);
    const sent = await call('rcs_send_batch', { preview_id: p.preview_id, payload: p.payload });
    expect(sent.body).toMatchObject({ success: true, accepted: 1 });
    await expect.poll(async () => (await atCarrier(short.phone)).length, { timeout: 5000 }).toBe(1);
    expect(await atCarrier(long.phone)).toHaveLength(0);
  });

  it('a text message whose text merges to nothing is rejected rather than sent empty', async () => {
    const blank = await contact(undefined);
    const r = await call('rcs_preview', textPayload(blank.phone, '{{contact_first_name}}'));
    expect(r.isError).toBe(true);
    expect(r.body.error.details).toContainEqual(expect.objectContaining({ path: 'content.text', code: 'empty' }));
  });
});

describe('empty merge values are warned about', () => {
  it('names the field and how many recipients of how many have no value', async () => {
    const e1 = await contact(undefined);
    const e2 = await contact(undefined);
    const named = await contact('Nora');
    const p = await call('rcs_preview', textPayload([e1.phone, e2.phone, named.phone], 'Hello {{contact_first_name}}! Big news.'));
    expect(p.isError).toBe(false);
    const w = p.body.warnings.find((x: { code: string }) => x.code === 'empty_merge_value');
    expect(w).toMatchObject({ path: 'merge.contact_first_name', code: 'empty_merge_value' });
    expect(w.message).toContain('contact_first_name');
    expect(w.message).toContain('2 of 3 recipients');
    // Stored with the preview: the share page and the console read it from there.
    const row = await t.ctx.db.selectFrom('previews').select('warnings').where('id', '=', p.body.preview_id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.warnings)).toContainEqual(expect.objectContaining({ path: 'merge.contact_first_name', code: 'empty_merge_value' }));
    // No warning when everybody has a value.
    const full = await call('rcs_preview', textPayload([named.phone], 'Hello {{contact_first_name}}! Big news.'));
    expect(full.body.warnings.filter((x: { code: string }) => x.code === 'empty_merge_value')).toEqual([]);
  });
});
