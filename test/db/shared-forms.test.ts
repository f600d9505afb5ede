import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { isUniqueViolation } from '../../src/platform/db/sql-errors.js';
import { describePostgres, startInstances, type Instances } from '../helpers/instances.js';
import type { TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';

/*
 * Opt-in form submissions of one number arriving at two instances on one PostgreSQL database at
 * the same moment (issue #19): identical ones are one submission (a unique key decides, migration
 * 019), different ones are all recorded but only one confirmation SMS goes out (the resend check
 * runs under a lock). test/api/forms/concurrent.test.ts covers the same on one instance.
 */

let inst: Instances;
let a: TestServer;
let b: TestServer;
let n = 0;
const phone = () => `+49151315${String(10_000 + ++n).padStart(5, '0')}`;

async function doubleOptInForm(name: string) {
  const r = await a.api('POST', '/api/v1/forms', { name, fields: { firstName: 'required', email: 'optional', customFields: [] }, doubleOptIn: true, confirmation: { sendernameId: a.account.senders.sms } });
  if (r.status !== 201) throw new Error(`form: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as { id: string; slug: string };
}

/** Each body posted by its own visitor, alternately to A and B, all at once. */
async function submitAcross(slug: string, bodies: Record<string, string>[]) {
  const clients = bodies.map((_, i) => new WebClient((i % 2 === 0 ? a : b).url));
  const pages = await Promise.all(clients.map((c) => c.get(`/f/${slug}`)));
  return Promise.all(clients.map((c, i) => c.post(`/f/${slug}`, { csrf: WebClient.hidden(pages[i]!.text, 'csrf'), ...bodies[i] })));
}

const submissions = (formId: string) => a.ctx.db.selectFrom('form_submissions').selectAll().where('form_id', '=', formId).execute();
const confirmationSms = async (e164: string) => (await a.ctx.db.selectFrom('messages').select('id').where('phone', '=', e164.slice(1)).where('source', '=', 'FORM').execute()).length;

describePostgres('opt-in form submissions across two instances on one PostgreSQL database', () => {
  beforeAll(async () => {
    inst = await startInstances(2);
    [a, b] = inst.all as [TestServer, TestServer];
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('identical submissions at the same moment on both instances are one submission, one contact, one SMS', async () => {
    const f = await doubleOptInForm('Across same');
    const me = phone();
    const res = await submitAcross(f.slug, Array.from({ length: 6 }, () => ({ phone: me, firstName: 'Ada' })));
    expect(res.map((r) => r.status)).toEqual(Array(6).fill(303));
    const subs = await submissions(f.id);
    expect(subs).toHaveLength(1);
    expect(subs[0]).toMatchObject({ status: 'PENDING', confirmation_sent: 1 });
    expect(await confirmationSms(me)).toBe(1);
    const contacts = await a.ctx.db.selectFrom('contacts').select('id').where('account_id', '=', a.account.accountId).where('phone', '=', me.slice(1)).execute();
    expect(contacts).toHaveLength(1);
  });

  it('different data at the same moment for a known contact: every submission recorded, one confirmation SMS', async () => {
    const f = await doubleOptInForm('Across different');
    const me = phone();
    // A known number: creating its contact would itself make the submissions wait for each other.
    expect((await a.api('POST', '/api/v1/contacts', { phone: me })).status).toBe(201);
    const names = ['Ada', 'Grace', 'Hedy', 'Radia'];
    const res = await submitAcross(f.slug, names.map((firstName) => ({ phone: me, firstName })));
    expect(res.map((r) => r.status)).toEqual(Array(4).fill(303));
    const subs = await submissions(f.id);
    expect(subs).toHaveLength(4);
    expect(subs.filter((s) => s.confirmation_sent === 1)).toHaveLength(1);
    expect(await confirmationSms(me)).toBe(1);
  });

  // Issue #27: the caps on confirmation SMS are counted in the database under a per-account lock, so submissions
  // racing on two instances cannot both pass the last free place. (Eight posts from one address stay under the
  // per-address limit of 10.)
  it('a form capped at 3 confirmation SMS per hour: eight different numbers at the same moment on both instances → exactly 3 SMS', async () => {
    const acc = await a.createAccount();
    await a.ctx.services.accounts.updateSettings(acc.accountId, { formConfirmationLimits: { perFormPerHour: 3 } });
    const r = await a.api('POST', '/api/v1/forms', { name: 'Across capped', fields: { firstName: 'optional' }, confirmation: { sendernameId: acc.senders.sms } }, { key: acc.apiKey });
    expect(r.status).toBe(201);
    const res = await submitAcross(r.body.data.slug, Array.from({ length: 8 }, () => ({ phone: phone(), firstName: 'Ada' })));
    expect(res.map((x) => x.status).sort()).toEqual([...Array(3).fill(303), ...Array(5).fill(429)]);
    expect(res.filter((x) => x.status === 429).every((x) => x.text.includes('We cannot send more confirmation messages right now'))).toBe(true);
    const subs = await submissions(r.body.data.id);
    expect(subs).toHaveLength(8);
    expect(subs.filter((s) => s.confirmation_sent === 1)).toHaveLength(3);
    const sent = await a.ctx.db.selectFrom('messages').select('id').where('account_id', '=', acc.accountId).where('source', '=', 'FORM').execute();
    expect(sent).toHaveLength(3);
  });

  it('an account capped at 4 per hour: two forms, eight numbers at the same moment on both instances → exactly 4 SMS', async () => {
    const acc = await a.createAccount();
    await a.ctx.services.accounts.updateSettings(acc.accountId, { formConfirmationLimits: { perAccountPerHour: 4 } });
    const slugs: string[] = [];
    for (const name of ['Account cap one', 'Account cap two']) {
      const r = await a.api('POST', '/api/v1/forms', { name, fields: { firstName: 'optional' }, confirmation: { sendernameId: acc.senders.sms } }, { key: acc.apiKey });
      expect(r.status).toBe(201);
      slugs.push(r.body.data.slug);
    }
    const res = (await Promise.all(slugs.map((slug) => submitAcross(slug, Array.from({ length: 4 }, () => ({ phone: phone() })))))).flat();
    expect(res.filter((x) => x.status === 303)).toHaveLength(4);
    expect(res.filter((x) => x.status === 429)).toHaveLength(4);
    const sent = await a.ctx.db.selectFrom('messages').select('id').where('account_id', '=', acc.accountId).where('source', '=', 'FORM').execute();
    expect(sent).toHaveLength(4);
  });

  it('the unique key refuses a second pending row with the same data, and allows it once the first is not pending', async () => {
    const f = await doubleOptInForm('Key');
    const [sub] = await submitAcross(f.slug, [{ phone: phone(), firstName: 'Lin' }]);
    expect(sub!.status).toBe(303);
    const [row] = await submissions(f.id);
    const copy = { ...row!, id: `${row!.id}x`, token_hash: null };
    const err = await a.ctx.db.insertInto('form_submissions').values(copy).execute().catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    await a.ctx.db.updateTable('form_submissions').set({ status: 'CONFIRMED' }).where('id', '=', row!.id).execute();
    await a.ctx.db.insertInto('form_submissions').values(copy).execute();
    const { rows } = await sql<{ n: number }>`select count(*) as n from form_submissions where form_id = ${f.id}`.execute(a.ctx.db);
    expect(Number(rows[0]!.n)).toBe(2);
  });
});
