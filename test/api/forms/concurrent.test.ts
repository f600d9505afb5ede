import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../helpers/server.js';
import { WebClient } from '../../helpers/web-client.js';
import { startWebhookServer } from '../webhooks/helpers.js';

// Without a process-local lock the database decides: parallel submissions of one number must still give one contact,
// one confirmation SMS, and identical ones one submission.
let t: TestServer;
let n = 0;
const phone = () => `+49151310${String(10_000 + ++n * 10).padStart(5, '0')}`;

beforeAll(async () => {
  t = await startWebhookServer();
});
afterAll(async () => {
  await t?.close();
});

async function doubleOptInForm(name: string) {
  const r = await t.api('POST', '/api/v1/forms', { name, fields: { firstName: 'required', email: 'optional', customFields: [] }, doubleOptIn: true, confirmation: { sendernameId: t.account.senders.sms } });
  if (r.status !== 201) throw new Error(`form: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as { id: string; slug: string };
}

async function parallelSubmit(slug: string, bodies: Record<string, string>[]) {
  const clients = bodies.map(() => new WebClient(t.url));
  const pages = await Promise.all(clients.map((c) => c.get(`/f/${slug}`)));
  return Promise.all(clients.map((c, i) => c.post(`/f/${slug}`, { csrf: WebClient.hidden(pages[i]!.text, 'csrf'), ...bodies[i] })));
}

const confirmationSms = async (e164: string) =>
  (await t.ctx.db.selectFrom('messages').select('id').where('phone', '=', e164.slice(1)).where('source', '=', 'FORM').execute()).length;

describe('concurrent submissions of one form and number', () => {
  it('identical submissions sent in parallel are counted once: one submission, one contact, one SMS', async () => {
    const f = await doubleOptInForm('Parallel same');
    const me = phone();
    const res = await parallelSubmit(f.slug, [{ phone: me, firstName: 'Ada' }, { phone: me, firstName: 'Ada' }]);
    expect(res.map((r) => r.status)).toEqual([303, 303]);
    const subs = (await t.api('GET', `/api/v1/forms/${f.id}/submissions`)).body.data;
    expect(subs).toHaveLength(1);
    expect(subs[0]).toMatchObject({ status: 'PENDING', confirmationSent: true });
    expect((await t.api('GET', `/api/v1/forms/${f.id}`)).body.data.submissions).toEqual({ pending: 1, confirmed: 0 });
    expect(await confirmationSms(me)).toBe(1);
    const contacts = await t.ctx.db.selectFrom('contacts').select('id').where('account_id', '=', t.account.accountId).where('phone', '=', me.slice(1)).execute();
    expect(contacts).toHaveLength(1);
  });

  it('different data sent in parallel: both recorded, one contact, one SMS (the other throttled)', async () => {
    const f = await doubleOptInForm('Parallel different');
    const me = phone();
    const res = await parallelSubmit(f.slug, [{ phone: me, firstName: 'Ada' }, { phone: me, firstName: 'Grace' }]);
    expect(res.map((r) => r.status)).toEqual([303, 303]);
    const subs = (await t.api('GET', `/api/v1/forms/${f.id}/submissions`)).body.data as { confirmationSent: boolean; contact: { id: string; action: string } }[];
    expect(subs).toHaveLength(2);
    expect(subs.filter((s) => s.confirmationSent)).toHaveLength(1);
    expect(new Set(subs.map((s) => s.contact.id)).size).toBe(1);
    expect(subs.map((s) => s.contact.action).sort()).toEqual(['created', 'updated']);
    expect(await confirmationSms(me)).toBe(1);
  });

  it('the same data again after the first was confirmed is a new submission (only pending ones are the same)', async () => {
    const r = await t.api('POST', '/api/v1/forms', { name: 'Single parallel', fields: { firstName: 'required', email: 'optional', customFields: [] }, doubleOptIn: false });
    expect(r.status).toBe(201);
    const me = phone();
    const res = await parallelSubmit(r.body.data.slug, [{ phone: me, firstName: 'Lin' }, { phone: me, firstName: 'Lin' }]);
    expect(res.map((x) => x.status)).toEqual([303, 303]);
    const subs = (await t.api('GET', `/api/v1/forms/${r.body.data.id}/submissions`)).body.data;
    expect(subs).toHaveLength(2);
    expect(subs.every((s: { status: string }) => s.status === 'CONFIRMED')).toBe(true);
    expect(await confirmationSms(me)).toBe(0);
  });
});
