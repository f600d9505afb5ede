import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../helpers/server.js';
import { WebClient } from '../../helpers/web-client.js';
import { createHook, startReceiver, startWebhookServer, verifyWebhook, type Received, type Receiver } from '../webhooks/helpers.js';
import { settled } from '../../helpers/settled.js';

let t: TestServer;
let rx: Receiver;
let secret: string;
let fieldId: string;
let groupId: string;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let n = 0;
/** A fresh ordinary (RCS-capable, delivering) German mobile number per call. */
const phone = () => `+49151300${String(10_000 + ++n * 10).padStart(5, '0')}`;

beforeAll(async () => {
  t = await startWebhookServer();
  rx = await startReceiver();
  ({ secret } = await createHook(t, `${rx.url}/forms`, ['form_submission', 'form_optin_confirmed']));
  fieldId = (await t.api('POST', '/api/v1/contacts/fields', { name: 'Favourite dish', tag: 'dish' })).body.data.id;
  groupId = (await t.api('POST', '/api/v1/groups', { name: 'Newsletter' })).body.data.id;
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

async function newForm(extra: Record<string, unknown> = {}) {
  const r = await t.api('POST', '/api/v1/forms', {
    name: 'Spring News',
    description: 'Offers & news, twice a month.',
    fields: { firstName: 'required', email: 'optional', customFields: [{ fieldId, label: 'Your favourite dish' }] },
    groups: [groupId],
    confirmation: { sendernameId: t.account.senders.sms },
    ...extra,
  });
  if (r.status !== 201) throw new Error(`form: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

/** The SMS texts the simulated network delivered to a number. */
/** What the number's virtual phone shows (the network's store keeps link tokens masked). */
async function smsTo(e164: string): Promise<string[]> {
  const view = await t.ctx.services.virtualPhone!.view(t.account.accountId, e164).catch(() => ({ threads: [] }));
  return view.threads.flatMap((th) => th.items).flatMap((i) => (i.kind === 'out' && i.channel === 'SMS' && i.text !== null ? [i.text] : []));
}

async function submit(client: WebClient, slug: string, fields: Record<string, string>) {
  const page = await client.get(`/f/${slug}`);
  expect(page.status).toBe(200);
  return client.post(`/f/${slug}`, { csrf: WebClient.hidden(page.text, 'csrf'), ...fields });
}

const formEvents = (type: string, submissionPhone: string) => rx.events(type, (r: Received) => r.json.contact?.phone === submissionPhone);

describe('forms REST (/api/v1/forms)', () => {
  it('creates a form with its public page and documented shape', async () => {
    const f = await newForm();
    expect(f.id).toMatch(/^frm_/);
    expect(f).toMatchObject({
      name: 'Spring News',
      slug: 'spring-news',
      url: `${t.url}/f/spring-news`,
      title: null,
      fields: { firstName: 'required', email: 'optional', customFields: [{ fieldId, label: 'Your favourite dish', required: false }] },
      groups: [groupId],
      doubleOptIn: true,
      confirmation: { sendernameId: t.account.senders.sms, message: expect.stringContaining('{{confirm_link}}') },
      applyData: true,
      webhook: null,
      active: true,
      submissions: { pending: 0, confirmed: 0 },
    });
    // Another form with the same name gets another slug; a taken slug given explicitly is a 409.
    const again = await newForm();
    expect(again.slug).toMatch(/^spring-news-[a-z0-9x]+$/);
    const dup = await t.api('POST', '/api/v1/forms', { name: 'X', slug: 'spring-news', doubleOptIn: false });
    expect(dup.status).toBe(409);
    expect((await t.api('GET', '/api/v1/forms')).body.data.length).toBeGreaterThanOrEqual(2);
    expect((await t.api('GET', `/api/v1/forms/${f.id}`)).body.data.id).toBe(f.id);
  });

  it('validates references and options', async () => {
    const bad = async (body: Record<string, unknown>) => t.api('POST', '/api/v1/forms', { name: 'Bad', ...body });
    expect((await bad({})).body.error.details[0].path).toBe('confirmation');
    expect((await bad({ doubleOptIn: true, confirmation: { sendernameId: t.account.senders.sms, message: 'no link here' } })).status).toBe(400);
    expect((await bad({ confirmation: { sendernameId: 'snd_01ARZ3NDEKTSV4RRFFQ69G5FAV' } })).status).toBe(400);
    expect((await bad({ confirmation: { sendernameId: t.account.senders.rcs } })).status).toBe(400);
    expect((await bad({ doubleOptIn: false, groups: ['grp_01ARZ3NDEKTSV4RRFFQ69G5FAV'] })).status).toBe(404);
    expect((await bad({ doubleOptIn: false, fields: { customFields: [{ fieldId: 'fld_01ARZ3NDEKTSV4RRFFQ69G5FAV' }] } })).status).toBe(404);
    expect((await bad({ doubleOptIn: false, slug: 'confirm' })).status).toBe(400);
    expect((await bad({ doubleOptIn: false, slug: 'Has Spaces' })).status).toBe(400);
    expect((await bad({ doubleOptIn: false, webhookUrl: 'ftp://x.example/y' })).status).toBe(400);
  });

  it('updates, closes and deletes; reading takes contacts:read, changing forms:manage; other accounts see 404', async () => {
    const f = await newForm({ name: 'Closing soon' });
    const up = await t.api('PUT', `/api/v1/forms/${f.id}`, { title: 'Last chance', active: false, webhookUrl: `${rx.url}/own-form` });
    expect(up.status).toBe(200);
    expect(up.body.data).toMatchObject({ title: 'Last chance', active: false, webhook: { id: expect.stringMatching(/^whk_/), url: `${rx.url}/own-form` } });
    const hook = (await t.api('GET', `/api/rcs/webhooks/${up.body.data.webhook.id}`)).body.data;
    expect(hook).toMatchObject({ source: 'form', events: [] });
    expect((await new WebClient(t.url).get(`/f/${f.slug}`)).status).toBe(404);
    expect((await t.api('PUT', `/api/v1/forms/${f.id}`, { doubleOptIn: true, confirmation: null })).status).toBe(400);

    const reader = await t.createKey(t.account.accountId, ['contacts:read']);
    expect((await t.api('GET', '/api/v1/forms', undefined, { key: reader })).status).toBe(200);
    expect((await t.api('POST', '/api/v1/forms', { name: 'x', doubleOptIn: false }, { key: reader })).body.error.requiredPermission).toBe('forms:manage');
    const other = await t.createAccount();
    expect((await t.api('GET', `/api/v1/forms/${f.id}`, undefined, { key: other.apiKey })).status).toBe(404);
    expect((await t.api('GET', `/api/v1/forms/${f.id}/submissions`, undefined, { key: other.apiKey })).status).toBe(404);

    expect((await t.api('DELETE', `/api/v1/forms/${f.id}`)).body).toEqual({ success: true, data: { id: f.id, deleted: true } });
    expect((await t.api('GET', `/api/v1/forms/${f.id}`)).status).toBe(404);
  });
});

describe('the public page and double opt-in (§3.6)', () => {
  it('submission → pending contact, confirmation SMS, form_submission; repeat throttled; link confirms once with the latest data', async () => {
    const f = await newForm({ name: 'Flow form' });
    const me = phone();
    const client = new WebClient(t.url);
    const page = await client.get(`/f/${f.slug}`);
    expect(page.text).toContain('Flow form');
    expect(page.text).toContain('Your favourite dish');
    expect(page.text).toContain('Offers &amp; news');
    expect(page.text).not.toContain('<script');
    expect(page.headers.get('x-robots-tag')).toContain('noindex');

    const r1 = await submit(client, f.slug, { phone: me, firstName: 'Grace', email: 'grace@example.com', [`cf_${fieldId}`]: 'Paella' });
    expect(r1.status).toBe(303);
    expect(r1.location).toBe(`/f/${f.slug}/sent`);
    expect((await client.get(r1.location!)).text).toContain('Check your phone');

    // The contact exists, disabled until confirmed; nothing of the data applied yet.
    const c1 = (await t.api('GET', `/api/v1/contacts/${encodeURIComponent(me)}?include=customFields`)).body.data;
    expect(c1).toMatchObject({ disabled: true, firstName: null, email: null, groups: [] });
    expect(c1.disabledReason).toContain('Awaiting opt-in confirmation');

    // One confirmation SMS through the normal send path (log, source FORM).
    const texts = await smsTo(me);
    expect(texts).toHaveLength(1);
    const link = /(http:\/\/[^\s]+\/f\/confirm\/[A-Za-z0-9_-]+)/.exec(texts[0]!)![1]!;
    expect(texts[0]).toContain('Flow form');
    const log = await t.api('GET', `/api/messages/log?phoneNumber=${encodeURIComponent(me)}`);
    expect(log.body.messages[0]).toMatchObject({ type: 'SMS', source: 'FORM', campaignName: 'Form opt-in: Flow form' });
    // The log (and the stored message) keeps the confirmation link masked; the phone got the token.
    expect(JSON.stringify(log.body.messages[0])).toContain(`/f/confirm/${'*'.repeat(32)}`);
    const confirmToken = link.split('/f/confirm/')[1]!;
    expect(confirmToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(JSON.stringify(log.body)).not.toContain(confirmToken);
    const stored = await t.ctx.db.selectFrom('messages').select(['text']).where('phone', '=', me.slice(1)).execute();
    expect(stored.map((m) => m.text).join('\n')).not.toContain(confirmToken);

    await rx.waitFor(() => formEvents('form_submission', me).length >= 1);
    const sub = formEvents('form_submission', me).find((e) => e.json.data.firstName === 'Grace')!;
    expect(verifyWebhook(sub.raw, sub.headers['x-rcs-signature'], secret)).toBe(true);
    expect(Object.keys(sub.json)).toEqual(['id', 'event', 'createdAt', 'form', 'submission', 'optIn', 'contact', 'data']);
    expect(sub.json).toMatchObject({
      event: 'form_submission',
      form: { id: f.id, name: 'Flow form', slug: f.slug },
      submission: { id: expect.stringMatching(/^sub_/), action: 'created', submittedAt: expect.stringMatching(ISO) },
      optIn: { status: 'PENDING', confirmationSent: true, confirmedAt: null, dataApplied: false },
      contact: { id: c1.id, phone: me, optInStatus: 'PENDING' },
      data: { phone: me, firstName: 'Grace', email: 'grace@example.com', customFields: [{ id: fieldId, label: 'Your favourite dish', value: 'Paella' }] },
    });

    // Submitted again a minute later with a corrected name: recorded and reported, no second SMS.
    const r2 = await submit(client, f.slug, { phone: me.replace('+49', '0049 '), firstName: 'Grace H.', email: 'grace@example.com', [`cf_${fieldId}`]: 'Tortilla' });
    expect(r2.status).toBe(303);
    expect(await smsTo(me)).toHaveLength(1);
    await rx.waitFor(() => formEvents('form_submission', me).length >= 2);
    // Deliveries run in parallel: events may arrive in any order (docs/webhooks.md).
    const sub2 = formEvents('form_submission', me).find((e) => e.json.data.firstName === 'Grace H.')!.json;
    expect(sub2.optIn).toEqual({ status: 'PENDING', confirmationSent: false, confirmedAt: null, dataApplied: false });
    expect(sub2.submission.action).toBe('updated');
    const subs = (await t.api('GET', `/api/v1/forms/${f.id}/submissions`)).body.data;
    expect(subs).toHaveLength(2);
    expect(subs[0]).toMatchObject({ status: 'PENDING', confirmationSent: false, confirmationNote: expect.stringContaining('less than 60 minutes') });

    // Opening the link changes nothing (link previews); the button confirms.
    const confirmPath = new URL(link).pathname;
    const view = await client.get(confirmPath);
    expect(view.status).toBe(200);
    expect(view.text).toContain('Confirm subscription');
    expect(view.text).toContain(me.slice(-4));
    expect(formEvents('form_optin_confirmed', me)).toHaveLength(0);
    expect((await new WebClient(t.url).post(confirmPath, { csrf: 'forged' })).status).toBe(403);
    const done = await client.post(confirmPath, { csrf: WebClient.hidden(view.text, 'csrf') });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Subscription confirmed');

    await rx.waitFor(() => formEvents('form_optin_confirmed', me).length >= 1);
    const conf = formEvents('form_optin_confirmed', me)[0]!;
    expect(verifyWebhook(conf.raw, conf.headers['x-rcs-signature'], secret)).toBe(true);
    expect(conf.json).toMatchObject({
      event: 'form_optin_confirmed',
      form: { id: f.id, slug: f.slug },
      submission: { id: subs[0].id, action: 'updated' },
      optIn: { status: 'CONFIRMED', confirmationSent: false, confirmedAt: expect.stringMatching(ISO), dataApplied: true },
      contact: { id: c1.id, phone: me, optInStatus: 'CONFIRMED' },
      data: { firstName: 'Grace H.', customFields: [{ id: fieldId, value: 'Tortilla' }] },
    });

    // The contact is active, with the latest data and the group.
    const c2 = (await t.api('GET', `/api/v1/contacts/${c1.id}?include=customFields`)).body.data;
    expect(c2).toMatchObject({ disabled: false, firstName: 'Grace H.', email: 'grace@example.com', groups: [{ id: groupId, name: 'Newsletter' }] });
    expect(c2.customFields).toEqual([expect.objectContaining({ fieldId, tag: 'dish', value: 'Tortilla' })]);
    expect((await t.api('GET', `/api/v1/forms/${f.id}/submissions?status=CONFIRMED`)).body.data).toHaveLength(2);
    expect((await t.api('GET', `/api/v1/forms/${f.id}`)).body.data.submissions).toEqual({ pending: 0, confirmed: 2 });

    // Confirming again: "already", and no second event.
    const again = await client.post(confirmPath, { csrf: WebClient.hidden(view.text, 'csrf') });
    expect(again.text).toContain('Already confirmed');
    expect((await client.get(confirmPath)).text).toContain('Already confirmed');
    await settled(t);
    expect(formEvents('form_optin_confirmed', me)).toHaveLength(1);
    expect((await new WebClient(t.url).get('/f/confirm/not-a-real-token-123456')).status).toBe(404);
  });

  it('an existing contact stays as it is until confirmed; applyData false only activates', async () => {
    const f = await newForm({ name: 'Keep data', applyData: false });
    const me = phone();
    const existing = (await t.api('POST', '/api/v1/contacts', { phone: me, firstName: 'Original' })).body.data;
    const client = new WebClient(t.url);
    expect((await submit(client, f.slug, { phone: me, firstName: 'Impostor' })).status).toBe(303);
    const still = (await t.api('GET', `/api/v1/contacts/${existing.id}`)).body.data;
    expect(still).toMatchObject({ firstName: 'Original', disabled: false });
    const link = /(\/f\/confirm\/[A-Za-z0-9_-]+)/.exec((await smsTo(me))[0]!)![1]!;
    const view = await client.get(link);
    await client.post(link, { csrf: WebClient.hidden(view.text, 'csrf') });
    await rx.waitFor(() => formEvents('form_optin_confirmed', me).length >= 1);
    expect(formEvents('form_optin_confirmed', me)[0]!.json.optIn.dataApplied).toBe(false);
    expect(formEvents('form_submission', me)[0]!.json.submission.action).toBe('updated');
    const after = (await t.api('GET', `/api/v1/contacts/${existing.id}`)).body.data;
    expect(after).toMatchObject({ firstName: 'Original', groups: [] });
  });

  it('a single opt-in form confirms at once: both events, no SMS, active contact', async () => {
    const f = await newForm({ name: 'Instant', doubleOptIn: false, confirmation: undefined, fields: { firstName: 'optional', email: 'off' } });
    const me = phone();
    expect((await submit(new WebClient(t.url), f.slug, { phone: me, firstName: 'Linus' })).status).toBe(303);
    expect(await smsTo(me)).toEqual([]);
    await rx.waitFor(() => formEvents('form_optin_confirmed', me).length >= 1);
    expect(formEvents('form_submission', me)[0]!.json.optIn).toMatchObject({ status: 'PENDING', confirmationSent: false });
    expect(formEvents('form_optin_confirmed', me)[0]!.json.optIn).toMatchObject({ status: 'CONFIRMED', dataApplied: true });
    const c = (await t.api('GET', `/api/v1/contacts/${encodeURIComponent(me)}`)).body.data;
    expect(c).toMatchObject({ firstName: 'Linus', disabled: false, groups: [{ id: groupId }] });
  });

  it('a form with its own webhook sends its events there only', async () => {
    const own = await startReceiver();
    try {
      const f = await newForm({ name: 'Own hook', doubleOptIn: false, webhookUrl: `${own.url}/mine` });
      const me = phone();
      await submit(new WebClient(t.url), f.slug, { phone: me, firstName: 'Ken' });
      await own.waitFor((all) => all.length >= 2);
      expect(own.requests.map((r) => r.json.event)).toEqual(['form_submission', 'form_optin_confirmed']);
      const s = (await t.api('GET', `/api/rcs/webhooks/${f.webhook.id}/secret`)).body.data.secret;
      expect(verifyWebhook(own.requests[0]!.raw, own.requests[0]!.headers['x-rcs-signature'], s)).toBe(true);
      await settled(t);
      expect(formEvents('form_submission', me)).toHaveLength(0);
    } finally {
      await own.close();
    }
  });

  it('validates phone, country and required fields, keeps what was typed; refuses a forged form', async () => {
    const f = await newForm({ name: 'Checks' });
    const client = new WebClient(t.url);
    const bad = await submit(client, f.slug, { phone: '12345', firstName: 'Al' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('field-error');
    expect(bad.text).toContain('value="Al"');
    const japan = await submit(client, f.slug, { phone: '+81 90 1234 5678', firstName: 'Yuki' });
    expect(japan.status).toBe(400);
    expect(japan.text).toContain('Numbers from JP cannot sign up');
    const noName = await submit(client, f.slug, { phone: phone() });
    expect(noName.status).toBe(400);
    expect(noName.text).toContain('Please enter your first name');
    const badMail = await submit(client, f.slug, { phone: phone(), firstName: 'A', email: 'not-mail' });
    expect(badMail.text).toContain('This is not an email address');
    const forged = await new WebClient(t.url).post(`/f/${f.slug}`, { csrf: 'x'.repeat(32), phone: phone(), firstName: 'Eve' });
    expect(forged.status).toBe(403);
    // The bot trap: looks like success, records nothing.
    const bot = await submit(client, f.slug, { phone: phone(), firstName: 'Bot', website: 'http://spam.example' });
    expect(bot.status).toBe(303);
    expect((await t.api('GET', `/api/v1/forms/${f.id}/submissions`)).body.data).toEqual([]);
    expect((await new WebClient(t.url).get('/f/no-such-form')).status).toBe(404);
  });

  it('an opted-out number gets no confirmation SMS (confirmationSent false with the reason)', async () => {
    const f = await newForm({ name: 'Opted out' });
    const me = phone();
    const optOuts = t.ctx.services.optOuts;
    await t.ctx.db.transaction().execute((tx) => optOuts.optOut(tx, { accountId: t.account.accountId, phone: me.slice(1), source: 'keyword', keyword: 'STOP', senderId: t.account.senders.sms, at: Date.now() }));
    await submit(new WebClient(t.url), f.slug, { phone: me, firstName: 'Quiet' });
    expect(await smsTo(me)).toEqual([]);
    const s = (await t.api('GET', `/api/v1/forms/${f.id}/submissions`)).body.data[0];
    expect(s).toMatchObject({ status: 'PENDING', confirmationSent: false, confirmationNote: expect.stringContaining('opted out') });
  });

  it('an expired link says so and confirms nothing', async () => {
    const f = await newForm({ name: 'Expiring' });
    const me = phone();
    const client = new WebClient(t.url);
    await submit(client, f.slug, { phone: me, firstName: 'Old' });
    const link = /(\/f\/confirm\/[A-Za-z0-9_-]+)/.exec((await smsTo(me))[0]!)![1]!;
    await t.ctx.db.updateTable('form_submissions').set({ token_expires_at: Date.now() - 1 }).where('form_id', '=', f.id).execute();
    const view = await client.get(link);
    expect(view.text).toContain('This link has expired');
  });

  it('rate-limits submissions per address and form', async () => {
    const f = await newForm({ name: 'Limited' });
    const client = new WebClient(t.url);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await client.post(`/f/${f.slug}`, { csrf: 'nope', phone: phone() })).status);
    expect(statuses.slice(0, 10).every((s) => s === 403)).toBe(true);
    expect(statuses[10]).toBe(429);
    // Another form is not blocked.
    const other = await newForm({ name: 'Not limited' });
    expect((await submit(client, other.slug, { phone: phone(), firstName: 'Ok' })).status).toBe(303);
  });
});
