import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestServer } from '../../helpers/server.js';
import { startTestServer } from '../../helpers/server.js';
import { WebClient } from '../../helpers/web-client.js';

/*
 * Issue #27, "the approver sees everything that is sent": a form's confirmation SMS goes to any number a visitor
 * types in, with no person approving it. So its text may use only what nobody but a person or the visitor wrote
 * (company fields, the form's own placeholders, the visitor's own submitted first name), and the number of
 * confirmation SMS is capped per form and per account (account settings), counted in the database.
 *
 * TRUST_PROXY lets each visitor come from its own address (X-Forwarded-For), so the per-address limiter of the
 * public page (10 per 10 minutes) is never what stops a submission here.
 */
let t: TestServer;
let n = 0;
let ipN = 0;
const phone = () => `+49151320${String(10_000 + ++n * 10).padStart(5, '0')}`;
const ip = () => `198.51.100.${++ipN}`;

beforeAll(async () => {
  t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await t?.close();
});

const api = (acc: TestAccount, method: string, path: string, body?: unknown) => t.api(method, path, body, { key: acc.apiKey });

async function newForm(acc: TestAccount, extra: Record<string, unknown> = {}) {
  const r = await api(acc, 'POST', '/api/v1/forms', {
    name: `Limits ${++n}`,
    fields: { firstName: 'optional', email: 'off', customFields: [] },
    confirmation: { sendernameId: acc.senders.sms },
    ...extra,
  });
  if (r.status !== 201) throw new Error(`form: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as { id: string; slug: string; name: string };
}

/** One visitor from its own address: loads the page, posts the form. */
async function visit(slug: string, fields: Record<string, string>, from = ip()) {
  const c = new WebClient(t.url);
  const h = { 'X-Forwarded-For': from };
  const page = await c.request('GET', `/f/${slug}`, undefined, h);
  expect(page.status).toBe(200);
  return c.request('POST', `/f/${slug}`, { csrf: WebClient.hidden(page.text, 'csrf'), ...fields }, h);
}

/** The confirmation SMS texts the simulated network delivered to a number. */
async function smsTo(acc: TestAccount, e164: string): Promise<string[]> {
  const view = await t.ctx.services.virtualPhone!.view(acc.accountId, e164).catch(() => ({ threads: [] }));
  return view.threads.flatMap((th) => th.items).flatMap((i) => (i.kind === 'out' && i.channel === 'SMS' && i.text !== null ? [i.text] : []));
}

const formSms = async (acc: TestAccount) =>
  Number((await t.ctx.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', acc.accountId).where('source', '=', 'FORM').executeTakeFirstOrThrow()).n);

const setLimits = (acc: TestAccount, limits: Record<string, number>) => t.ctx.services.accounts.updateSettings(acc.accountId, { formConfirmationLimits: limits });

const REFUSAL = 'We cannot send more confirmation messages right now';

describe('what a confirmation message may merge', () => {
  it('refuses contact fields, custom field tags, the unsubscribe link and unknown names at create and update (400, path confirmation.message)', async () => {
    const acc = await t.createAccount();
    await api(acc, 'POST', '/api/v1/contacts/fields', { name: 'Dish', tag: 'dish' });
    for (const bad of ['{{contact_first_name}}', '{{ contact_email }}', '{{dish}}', '{{unsubscribe_link}}', '{{whatever}}']) {
      const r = await api(acc, 'POST', '/api/v1/forms', { name: 'Bad', confirmation: { sendernameId: acc.senders.sms, message: `Hi ${bad}, confirm: {{confirm_link}}` } });
      expect(r.status, bad).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      const d = r.body.error.details.find((x: { path: string }) => x.path === 'confirmation.message');
      expect(d, JSON.stringify(r.body)).toBeDefined();
      expect(d.message).toContain(bad.replace(/\s/g, ''));
      // The message says what is allowed.
      expect(d.message).toContain('{{submitted_first_name}}');
      expect(d.message).toContain('{{company_name}}');
    }
    const ok = await newForm(acc, { confirmation: { sendernameId: acc.senders.sms, message: '{{company_name}}: hi {{submitted_first_name}}, confirm {{form_name}} ({{today}}) {{confirm_link}}' } });
    const up = await api(acc, 'PUT', `/api/v1/forms/${ok.id}`, { confirmation: { sendernameId: acc.senders.sms, message: 'Hi {{contact_first_name}} {{confirm_link}}' } });
    expect(up.status).toBe(400);
    expect(up.body.error.code).toBe('VALIDATION_ERROR');
    expect(up.body.error.details.map((x: { path: string }) => x.path)).toContain('confirmation.message');
    expect(up.body.error.message).toContain('{{contact_first_name}}');
    // Unchanged.
    expect((await api(acc, 'GET', `/api/v1/forms/${ok.id}`)).body.data.confirmation.message).toContain('{{submitted_first_name}}');
  });

  it('merges the first name the visitor typed, never the stored contact’s, and nothing a value brings along', async () => {
    const acc = await t.createAccount();
    const f = await newForm(acc, { confirmation: { sendernameId: acc.senders.sms, message: 'Hi {{submitted_first_name}}! {{company_name}} asks you to confirm {{form_name}}: {{confirm_link}}' } });
    const me = phone();
    await api(acc, 'POST', '/api/v1/contacts', { phone: me, firstName: 'StoredName', email: 'stored@example.com' });
    expect((await visit(f.slug, { phone: me, firstName: 'Marta' })).status).toBe(303);
    const [text] = await smsTo(acc, me);
    expect(text).toMatch(/^Hi Marta! Test Co \d+ asks you to confirm Limits \d+: http/);
    expect(text).not.toContain('StoredName');

    // A typed name that is not a plain name (a link, braces that would pull in a field) is left out.
    for (const typed of ['{{contact_email}}', 'visit evil.example', 'Call 0800 123']) {
      const other = phone();
      await api(acc, 'POST', '/api/v1/contacts', { phone: other, firstName: 'StoredName', email: 'stored@example.com' });
      expect((await visit(f.slug, { phone: other, firstName: typed })).status).toBe(303);
      const [sms] = await smsTo(acc, other);
      expect(sms, typed).toMatch(/^Hi ! Test Co/);
      expect(sms).not.toContain('stored@example.com');
      expect(sms).not.toContain('evil');
    }
  });

  it('a form name carrying a placeholder is inserted as text, not merged', async () => {
    const acc = await t.createAccount();
    const f = await newForm(acc, { name: 'News {{contact_first_name}}', confirmation: { sendernameId: acc.senders.sms, message: 'Confirm {{form_name}}: {{confirm_link}}' } });
    const me = phone();
    await api(acc, 'POST', '/api/v1/contacts', { phone: me, firstName: 'StoredName' });
    expect((await visit(f.slug, { phone: me, firstName: 'Al' })).status).toBe(303);
    const [text] = await smsTo(acc, me);
    expect(text).toMatch(/^Confirm News contact_first_name: http/);
    expect(text).not.toContain('StoredName');
  });

  it('an existing form whose stored message breaks the rule does not send the contact’s stored values', async () => {
    const acc = await t.createAccount();
    await api(acc, 'POST', '/api/v1/contacts/fields', { name: 'Dish', tag: 'dish' });
    const f = await newForm(acc);
    // As a form saved before the rule: written straight into the database.
    await t.ctx.db
      .updateTable('forms')
      .set({ confirmation_message: 'Hi {{contact_first_name}} {{contact_email}} {{dish}} {{unsubscribe_link}} {{company_name}}: {{confirm_link}}' })
      .where('id', '=', f.id)
      .execute();
    const me = phone();
    const c = (await api(acc, 'POST', '/api/v1/contacts', { phone: me, firstName: 'AssistantWrote', email: 'assistant@evil.example' })).body.data;
    const fields = (await api(acc, 'GET', '/api/v1/contacts/fields')).body.data;
    await api(acc, 'PUT', `/api/v1/contacts/${c.id}`, { customFields: [{ fieldId: fields[0].id, value: 'buy-now.example' }] });
    expect((await visit(f.slug, { phone: me, firstName: 'Visitor' })).status).toBe(303);
    const [text] = await smsTo(acc, me);
    expect(text).toBeDefined();
    expect(text).toMatch(/^Hi\s+Test Co \d+: http\S+$/);
    for (const leaked of ['AssistantWrote', 'assistant@evil', 'buy-now']) expect(text).not.toContain(leaked);
    const sub = (await api(acc, 'GET', `/api/v1/forms/${f.id}/submissions`)).body.data[0];
    expect(sub).toMatchObject({ confirmationSent: true });
  });
});

describe('caps on confirmation SMS', () => {
  it('per form and hour: a fourth visitor from a fourth address is refused with a message they understand; the submission is recorded', async () => {
    const acc = await t.createAccount();
    await setLimits(acc, { perFormPerHour: 3 });
    const f = await newForm(acc);
    const numbers = [phone(), phone(), phone(), phone()];
    const res = [];
    for (const me of numbers) res.push(await visit(f.slug, { phone: me, firstName: 'Ann' }));
    expect(res.map((r) => r.status)).toEqual([303, 303, 303, 429]);
    expect(res[3]!.text).toContain(REFUSAL);
    expect(res[3]!.text).toContain('value="Ann"');
    expect(await formSms(acc)).toBe(3);
    expect(await smsTo(acc, numbers[3]!)).toEqual([]);
    const subs = (await api(acc, 'GET', `/api/v1/forms/${f.id}/submissions`)).body.data;
    expect(subs).toHaveLength(4);
    expect(subs[0]).toMatchObject({ status: 'PENDING', confirmationSent: false, confirmationNote: expect.stringContaining('3 confirmation SMS per hour') });
    // The form reports the cap it hit, and when.
    const form = (await api(acc, 'GET', `/api/v1/forms/${f.id}`)).body.data;
    expect(form.confirmationLimitHit).toMatchObject({ limit: 'perFormPerHour', max: 3, at: expect.stringMatching(/Z$/) });

    // Once the hour is over (moved back in the database) the same visitor, same data, gets the SMS.
    const hourAgo = Date.now() - 61 * 60_000;
    await t.ctx.db.updateTable('form_submissions').set({ submitted_at: hourAgo, confirmation_sent_at: hourAgo }).where('form_id', '=', f.id).where('confirmation_sent_at', 'is not', null).execute();
    const again = await visit(f.slug, { phone: numbers[3]!, firstName: 'Ann' });
    expect(again.status).toBe(303);
    expect(await smsTo(acc, numbers[3]!)).toHaveLength(1);
    expect((await api(acc, 'GET', `/api/v1/forms/${f.id}/submissions`)).body.data[0]).toMatchObject({ confirmationSent: true, confirmationNote: null });
  });

  it('per form and day: confirmations from earlier hours count', async () => {
    const acc = await t.createAccount();
    await setLimits(acc, { perFormPerDay: 3 });
    const f = await newForm(acc);
    for (let i = 0; i < 2; i++) expect((await visit(f.slug, { phone: phone() })).status).toBe(303);
    const earlier = Date.now() - 5 * 3_600_000;
    await t.ctx.db.updateTable('form_submissions').set({ submitted_at: earlier, confirmation_sent_at: earlier }).where('form_id', '=', f.id).execute();
    expect((await visit(f.slug, { phone: phone() })).status).toBe(303);
    const refused = await visit(f.slug, { phone: phone() });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain(REFUSAL);
    expect((await api(acc, 'GET', `/api/v1/forms/${f.id}/submissions`)).body.data[0].confirmationNote).toContain('3 confirmation SMS per day');
    expect(await formSms(acc)).toBe(3);
  });

  it('per account: two forms share the account’s cap', async () => {
    const acc = await t.createAccount();
    await setLimits(acc, { perAccountPerHour: 3 });
    const a = await newForm(acc);
    const b = await newForm(acc);
    expect((await visit(a.slug, { phone: phone() })).status).toBe(303);
    expect((await visit(a.slug, { phone: phone() })).status).toBe(303);
    expect((await visit(b.slug, { phone: phone() })).status).toBe(303);
    const refusedB = await visit(b.slug, { phone: phone() });
    const refusedA = await visit(a.slug, { phone: phone() });
    expect([refusedA.status, refusedB.status]).toEqual([429, 429]);
    expect(refusedA.text).toContain(REFUSAL);
    expect(await formSms(acc)).toBe(3);
    const note = (await api(acc, 'GET', `/api/v1/forms/${b.id}/submissions`)).body.data[0].confirmationNote;
    expect(note).toContain('account');
    expect(note).toContain('3 confirmation SMS per hour');
    expect((await api(acc, 'GET', `/api/v1/forms/${b.id}`)).body.data.confirmationLimitHit).toMatchObject({ limit: 'perAccountPerHour', max: 3 });
    // Another account is not affected.
    const other = await t.createAccount();
    expect((await visit((await newForm(other)).slug, { phone: phone() })).status).toBe(303);
  });

  it('defaults: 30/h and 200/day per form, 100/h and 1000/day per account', async () => {
    const acc = await t.createAccount();
    expect((await t.ctx.services.accounts.get(acc.accountId)).formConfirmationLimits).toEqual({ perFormPerHour: 30, perFormPerDay: 200, perAccountPerHour: 100, perAccountPerDay: 1000 });
  });

  it('limits are validated: integers within bounds, never a 500', async () => {
    const acc = await t.createAccount();
    for (const bad of [{ perFormPerHour: -1 }, { perFormPerHour: 1.5 }, { perAccountPerDay: 10_000_000 }, { perFormPerHour: 'ten' }, { nope: 1 }]) {
      await expect(t.ctx.services.accounts.updateSettings(acc.accountId, { formConfirmationLimits: bad } as never), JSON.stringify(bad)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    // Partial changes keep the rest.
    await setLimits(acc, { perFormPerHour: 5 });
    expect((await t.ctx.services.accounts.get(acc.accountId)).formConfirmationLimits).toEqual({ perFormPerHour: 5, perFormPerDay: 200, perAccountPerHour: 100, perAccountPerDay: 1000 });
  });
});

describe('console', () => {
  it('changes the limits on the settings page (bad input is a 400 page), and warns on a form that hit its cap', async () => {
    const acc = await t.createAccount();
    const c = new WebClient(t.url);
    expect((await c.login(acc.email, acc.password, acc.totpSecret, '/console/settings')).status).toBe(303);
    const page = await c.get('/console/settings');
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="formPerFormPerHour"');
    const csrf = WebClient.hidden(page.text, 'csrf');
    const base = { csrf, name: 'Caps Co', timezone: 'Europe/Berlin', approvalRequired: 'on', unsubscribeUrl: '', formPerFormPerDay: '200', formPerAccountPerHour: '100', formPerAccountPerDay: '1000' };
    const bad = await c.post('/console/settings', { ...base, formPerFormPerHour: 'lots' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('The settings were not saved');
    const neg = await c.post('/console/settings', { ...base, formPerFormPerHour: '-3' });
    expect(neg.status).toBe(400);
    const ok = await c.post('/console/settings', { ...base, formPerFormPerHour: '1' });
    expect(ok.status).toBe(303);
    expect((await t.ctx.services.accounts.get(acc.accountId)).formConfirmationLimits.perFormPerHour).toBe(1);
    expect((await c.get('/console/settings')).text).toMatch(/name="formPerFormPerHour"[^>]*value="1"/);

    const f = await newForm(acc);
    const quiet = await newForm(acc);
    expect((await visit(f.slug, { phone: phone() })).status).toBe(303);
    expect((await visit(f.slug, { phone: phone() })).status).toBe(429);
    const list = await c.get('/console/forms');
    const row = (id: string) => new RegExp(`<tr data-form-id="${id}">([\\s\\S]*?)</tr>`).exec(list.text)![1]!;
    expect(row(f.id)).toContain('confirmation-limit-warning');
    expect(row(f.id)).toContain('1 confirmation SMS per hour per form');
    expect(row(quiet.id)).not.toContain('confirmation-limit-warning');
    const detail = await c.get(`/console/forms/${f.id}`);
    expect(detail.text).toContain('confirmation-limit-warning');
    expect(detail.text).toContain('1 confirmation SMS per hour per form');
    expect(detail.text).toContain('/console/settings');

    // A hit more than 24 hours ago is no longer shown.
    const hit = (await api(acc, 'GET', `/api/v1/forms/${f.id}`)).body.data.confirmationLimitHit;
    expect(hit).not.toBeNull();
    await t.ctx.db
      .updateTable('forms')
      .set({ confirmation_limit_hit: JSON.stringify({ limit: 'perFormPerHour', max: 1, at: Date.now() - 25 * 3_600_000 }) })
      .where('id', '=', f.id)
      .execute();
    expect((await c.get('/console/forms')).text).not.toContain('confirmation-limit-warning');
    expect((await api(acc, 'GET', `/api/v1/forms/${f.id}`)).body.data.confirmationLimitHit).toBeNull();
  });
});
