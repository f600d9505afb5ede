import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPT_OUT_STANDS } from '../../../src/suppression/schemas.js';
import { FakeClock } from '../../../src/platform/clock.js';
import { inTransaction } from '../../../src/platform/db/database.js';
import { PROJECT_ROOT } from '../../../src/platform/paths.js';
import { CONSENT_CSV_COLUMNS, CONSENT_EXPORT_CHUNK, csvCell } from '../../../src/suppression/consent.js';
import { WebClient } from '../../helpers/web-client.js';
import { num, startEngagementServer, type EngagementServer } from './helpers.js';

/**
 * The consent record (issue #28): every change of a number's consent, append-only, written where it happens — a form
 * double opt-in, a keyword or chip opt-out with the text received, START, the unsubscribe link, API/console declared
 * consent and the business's disable/enable — readable by contact id or by number (also after the contact is
 * deleted), exported as CSV, and never edited.
 */
const T0 = Date.UTC(2026, 6, 1, 9, 0, 0);
const clock = new FakeClock(T0);
let t: EngagementServer;

beforeAll(async () => {
  t = await startEngagementServer({ clock });
});
afterAll(async () => {
  await t?.close();
});

const text = (to: string, extra: Record<string, unknown> = {}) => ({ phoneNumber: to, messageType: 'text', content: { text: 'Hello' }, sendernameId: t.account.senders.rcs, ...extra });
const consentOf = async (id: string, query = '', key?: string) => t.api('GET', `/api/v1/contacts/${encodeURIComponent(id)}/consent${query}`, undefined, key ? { key } : {});
const contact = async (phone: string) => (await t.api('GET', `/api/v1/contacts/${encodeURIComponent(phone)}`)).body.data;

/** RFC 4180 parse of the export (quoted cells with doubled quotes, CRLF rows). */
function parseCsv(s: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quoted) {
      if (c === '"' && s[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && s[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length) rows.push([...row, cell]);
  return rows;
}

async function exportCsv(key?: string): Promise<{ status: number; type: string | null; disposition: string | null; rows: string[][] }> {
  const res = await fetch(`${t.url}/api/v1/consent/export`, { headers: { 'X-API-Key': key ?? t.account.apiKey } });
  const body = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), rows: res.status === 200 ? parseCsv(body) : [] };
}

describe('a form double opt-in', () => {
  const P = num(1100);

  it('is on the record once confirmed: form, submission, confirmation SMS, client address and time', async () => {
    const form = (await t.api('POST', '/api/v1/forms', { name: 'Summer Deals', doubleOptIn: true, confirmation: { sendernameId: t.account.senders.sms } })).body.data;
    const client = new WebClient(t.url);
    const page = await client.get(`/f/${form.slug}`);
    expect((await client.post(`/f/${form.slug}`, { csrf: WebClient.hidden(page.text, 'csrf'), phone: P })).status).toBe(303);
    // Submitted, not yet confirmed: nothing on record (the number is known as a disabled contact only).
    expect((await consentOf(P)).body.data).toEqual([]);

    const view = await t.ctx.services.virtualPhone!.view(t.account.accountId, P);
    const sms = view.threads.flatMap((th) => th.items).find((i) => i.kind === 'out')!;
    const link = /\/f\/confirm\/([A-Za-z0-9_-]+)/.exec(JSON.stringify(sms))![0];
    clock.advance(5 * 60_000);
    const confirmPage = await client.get(link);
    expect((await client.post(link, { csrf: WebClient.hidden(confirmPage.text, 'csrf') })).status).toBe(200);

    const r = await consentOf(P);
    expect(r.status).toBe(200);
    const c = await contact(P);
    const sub = (await t.api('GET', `/api/v1/forms/${form.id}/submissions`)).body.data[0];
    expect(r.body.status).toEqual({ phone: P, contactId: c.id, contactDisabled: false, optedOut: false, optedOutAt: null, underReview: false, reviewId: null });
    expect(r.body.data).toHaveLength(1);
    expect(r.body.data[0]).toMatchObject({
      id: expect.stringMatching(/^cev_/),
      phone: P,
      contactId: c.id,
      kind: 'opt_in',
      source: 'form',
      occurredAt: new Date(clock.now()).toISOString(),
      formId: form.id,
      formName: 'Summer Deals',
      submissionId: sub.id,
      clientAddress: expect.stringMatching(/127\.0\.0\.1|::1/),
      senderId: t.account.senders.sms,
      messageId: expect.stringMatching(/^msg_/),
      note: expect.stringContaining('Double opt-in'),
    });
    // Confirming again changes nothing and records nothing.
    await client.post(link, { csrf: WebClient.hidden(confirmPage.text, 'csrf') });
    expect((await consentOf(P)).body.data).toHaveLength(1);
  });
});

describe('a single opt-in form', () => {
  it('is on the record at submission, with the submitting client address', async () => {
    const S = num(1110);
    const form = (await t.api('POST', '/api/v1/forms', { name: 'Walk-in list', doubleOptIn: false })).body.data;
    const client = new WebClient(t.url);
    const page = await client.get(`/f/${form.slug}`);
    expect((await client.post(`/f/${form.slug}`, { csrf: WebClient.hidden(page.text, 'csrf'), phone: S })).status).toBe(303);
    expect((await consentOf(S)).body.data).toEqual([
      expect.objectContaining({ kind: 'opt_in', source: 'form', formId: form.id, formName: 'Walk-in list', clientAddress: expect.stringMatching(/127\.0\.0\.1|::1/), messageId: null, note: expect.stringContaining('Single opt-in form') }),
    ]);
  });
});

describe('keyword opt-out, START, the chip, the link', () => {
  const K = num(1200);

  it('a keyword opt-out keeps the text received; a repeated STOP adds nothing', async () => {
    expect((await t.api('POST', '/api/rcs/send', text(K))).status).toBe(200);
    clock.advance(60_000);
    await t.reply(K, t.account.senders.rcs, 'Stop please');
    const inbound = (await t.api('GET', `/api/messages/log?direction=INBOUND&phoneNumber=${encodeURIComponent(K)}`)).body.messages[0];
    clock.advance(60_000);
    await t.reply(K, t.account.senders.rcs, 'STOP');
    const r = await consentOf(K);
    expect(r.body.data).toHaveLength(1);
    expect(r.body.data[0]).toMatchObject({ kind: 'opt_out', source: 'keyword', receivedText: 'Stop please', keyword: expect.any(String), senderId: t.account.senders.rcs, messageId: inbound.messageId ?? inbound.id });
    expect(r.body.status).toMatchObject({ optedOut: true, contactDisabled: true });
  });

  it('a console re-enable is the business’s switch: on the record with the person, the opt-out stands', async () => {
    const web = new WebClient(t.url);
    expect((await web.login(t.account.email, t.account.password, t.account.totpSecret, '/console', clock.now())).status).toBe(303);
    const page = await web.get(`/console/consent?q=${encodeURIComponent(K)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Stop please');
    expect(page.text).toContain('Enable contact');
    const id = (await contact(K)).id;
    // A forged CSRF token changes nothing.
    expect((await web.post('/console/consent/contact', { csrf: 'forged', contactId: id, action: 'enable' })).status).toBe(403);
    clock.advance(60_000);
    const done = await web.post('/console/consent/contact', { csrf: WebClient.hidden(page.text, 'csrf'), contactId: id, action: 'enable' });
    expect(done.status).toBe(303);
    expect((await web.get(done.location!)).text).toContain('The contact was enabled');

    const r = await consentOf(id);
    expect(r.body.data.map((e: any) => e.kind)).toEqual(['enabled', 'opt_out']);
    expect(r.body.data[0]).toMatchObject({ source: 'console', actor: `user ${JSON.stringify(t.account.email)}`, actorId: expect.stringMatching(/^usr_/), contactId: id, note: OPT_OUT_STANDS });
    expect(r.body.status).toMatchObject({ optedOut: true, contactDisabled: false });
    // Still refused: only the person lifts an opt-out.
    expect((await t.api('POST', '/api/rcs/send', text(K))).body.error.code).toBe('CONTACT_OPTED_OUT');
    // A disable through the API is recorded as the business's, with the key, not as an opt-out.
    clock.advance(60_000);
    expect((await t.api('PATCH', '/api/v1/contacts/bulk/disable', { contactIds: [id], reason: 'Asked by phone' })).status).toBe(200);
    const after = (await consentOf(id)).body.data[0];
    expect(after).toMatchObject({ kind: 'disabled', source: 'api', actor: expect.stringMatching(/^key "/), actorId: expect.stringMatching(/^key_/), note: 'Reason: Asked by phone' });
  });

  it('the console page: bad look-ups are 400/404 pages; another account’s contact cannot be switched; no login, no page', async () => {
    expect((await new WebClient(t.url).get(`/console/consent?q=${encodeURIComponent(K)}`)).status).toBe(303);
    expect((await new WebClient(t.url).get('/console/consent/export.csv')).status).toBe(303);
    const web = new WebClient(t.url);
    await web.login(t.account.email, t.account.password, t.account.totpSecret, '/console', clock.now());
    const bad = await web.get('/console/consent?q=ct_nonsense');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter a phone number');
    expect((await web.get(`/console/consent?q=${encodeURIComponent(num(1999))}`)).status).toBe(404);
    expect((await web.get(`/console/consent?q=${encodeURIComponent(K)}&cursor=bad`)).status).toBe(400);
    const other = await t.createAccount();
    const theirs = (await t.api('POST', '/api/v1/contacts', { phone: num(1250) }, { key: other.apiKey })).body.data.id;
    const page = await web.get('/console/consent');
    const r = await web.post('/console/consent/contact', { csrf: WebClient.hidden(page.text, 'csrf'), contactId: theirs, action: 'disable' });
    expect(r.status).toBe(404);
    expect((await t.api('GET', `/api/v1/contacts/${theirs}`, undefined, { key: other.apiKey })).body.data.disabled).toBe(false);
    expect((await consentOf(theirs, '', other.apiKey)).body.data).toEqual([]);
  });

  it('START resubscribes, with its text; a START of a number that is not out records nothing', async () => {
    clock.advance(60_000);
    await t.reply(K, t.account.senders.rcs, 'start');
    const r = await consentOf(K);
    expect(r.body.data[0]).toMatchObject({ kind: 'resubscribe', source: 'keyword', receivedText: 'start', note: 'The contact stays disabled: the business disabled it' });
    expect(r.body.status.optedOut).toBe(false);
    clock.advance(60_000);
    await t.reply(K, t.account.senders.rcs, 'START');
    expect((await consentOf(K)).body.data).toHaveLength(r.body.data.length);
  });

  it('a tap on the unsubscribe chip is told apart from a typed word (virtual phone)', async () => {
    const U = num(1210);
    expect((await t.api('POST', '/api/rcs/send', text(U, { content: { text: 'News', suggestions: [{ action: { type: 'unsubscribe', text: 'Unsubscribe', unsubscribeAction: { stopKeyword: 'STOP' } } }] } }))).status).toBe(200);
    const phone = t.ctx.services.virtualPhone!;
    const item = (await phone.view(t.account.accountId, U)).threads[0]!.items.find((i) => i.kind === 'out')! as { simId: string };
    clock.advance(1_000);
    await phone.tap(t.account.accountId, U, item.simId, 's:0');
    expect((await consentOf(U)).body.data).toEqual([expect.objectContaining({ kind: 'opt_out', source: 'chip', receivedText: 'STOP', keyword: 'STOP' })]);
    expect((await contact(U)).disabledReason).toBe('Opted out: tapped the unsubscribe chip (STOP)');
  });

  it('the unsubscribe link', async () => {
    const L = num(1220);
    const sent = await t.api('POST', '/api/rcs/send', text(L, { content: { text: 'Deals. Opt out: {{unsubscribe_link}}' } }));
    const received = (await t.ctx.services.virtualPhone!.view(t.account.accountId, L)).threads[0]!.items.find((i) => i.kind === 'out');
    const token = /\/u\/([A-Za-z0-9_-]+)/.exec(JSON.stringify(received))![1]!;
    const web = new WebClient(t.url);
    const page = await web.get(`/u/${token}`);
    clock.advance(1_000);
    expect((await web.post(`/u/${token}`, { csrf: WebClient.hidden(page.text, 'csrf') })).status).toBe(200);
    expect((await consentOf(L)).body.data).toEqual([expect.objectContaining({ kind: 'opt_out', source: 'link', messageId: sent.body.messageRecordId, receivedText: null })]);
  });
});

describe('declared consent through the API', () => {
  it('create and bulk create with consentSource record an opt-in with the source and the key', async () => {
    const A = num(1300);
    const r = await t.api('POST', '/api/v1/contacts', { phone: A, consentSource: 'Signed up at the counter, paper form #12' });
    expect(r.status).toBe(201);
    expect((await consentOf(A)).body.data).toEqual([
      expect.objectContaining({ kind: 'opt_in', source: 'api', declaredSource: 'Signed up at the counter, paper form #12', actor: expect.stringMatching(/^key "/), contactId: r.body.data.id }),
    ]);
    // Without a declared source nothing is claimed.
    const B = num(1301);
    expect((await t.api('POST', '/api/v1/contacts', { phone: B })).status).toBe(201);
    expect((await consentOf(B)).body.data).toEqual([]);

    const bulk = await t.api('POST', '/api/v1/contacts/bulk', { contacts: [{ phone: num(1302) }, { phone: B }], upsert: true, consentSource: 'Trade fair list' });
    expect(bulk.body).toMatchObject({ created: 1, updated: 1 });
    for (const p of [num(1302), B]) expect((await consentOf(p)).body.data[0]).toMatchObject({ kind: 'opt_in', source: 'api', declaredSource: 'Trade fair list' });
  });

  it('consentSource is checked: empty, too long, wrong type', async () => {
    for (const consentSource of ['', ' ', 'x'.repeat(501), 42]) {
      const r = await t.api('POST', '/api/v1/contacts', { phone: num(1310), consentSource });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await t.api('POST', '/api/v1/contacts/bulk', { contacts: [{ phone: num(1311) }], consentSource: 'x'.repeat(501) })).status).toBe(400);
  });
});

let deletedId: string;

describe('deleting the contact keeps the opt-out and the record', () => {
  const D = num(1400);

  it('by number and by the old contact id the record stays readable (issue #42)', async () => {
    expect((await t.api('POST', '/api/v1/contacts', { phone: D, consentSource: 'Web shop checkout box' })).status).toBe(201);
    expect((await t.api('POST', '/api/rcs/send', text(D))).status).toBe(200);
    clock.advance(60_000);
    await t.reply(D, t.account.senders.rcs, 'unsubscribe');
    const id = (await contact(D)).id;
    expect((await t.api('DELETE', `/api/v1/contacts/${id}`)).status).toBe(200);

    const r = await consentOf(D);
    expect(r.status).toBe(200);
    expect(r.body.status).toEqual({ phone: D, contactId: null, contactDisabled: null, optedOut: true, optedOutAt: expect.any(String), underReview: false, reviewId: null });
    expect(r.body.data.map((e: any) => [e.kind, e.contactId])).toEqual([
      ['opt_out', id],
      ['opt_in', id],
    ]);
    expect(r.body.data[0].receivedText).toBe('unsubscribe');
    // Every way of writing the number finds it.
    expect((await consentOf(`00${D.slice(1)}`)).body.data).toHaveLength(2);
    // The deleted contact's id answers the same record: the events keep contact_id.
    const byId = await consentOf(id);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(r.body);
    expect((await consentOf(id, '?limit=1')).body.data.map((e: any) => e.kind)).toEqual(['opt_out']);
    expect((await t.api('GET', `/api/v1/contacts/${id}`)).status).toBe(404);
    expect((await t.api('POST', '/api/rcs/send', text(D))).body.error.code).toBe('CONTACT_OPTED_OUT');
    deletedId = id;
  });
});

describe('a form opt-in of a number that opted out', () => {
  it('is recorded with a note that the opt-out stands; sends stay refused', async () => {
    const D = num(1400);
    const form = (await t.api('POST', '/api/v1/forms', { name: 'Come back', doubleOptIn: false })).body.data;
    const client = new WebClient(t.url);
    const page = await client.get(`/f/${form.slug}`);
    clock.advance(1_000);
    expect((await client.post(`/f/${form.slug}`, { csrf: WebClient.hidden(page.text, 'csrf'), phone: D })).status).toBe(303);
    const latest = (await consentOf(D)).body.data[0];
    expect(latest).toMatchObject({ kind: 'opt_in', source: 'form', formName: 'Come back' });
    expect(latest.note).toContain(OPT_OUT_STANDS);
    expect((await t.api('POST', '/api/rcs/send', text(D))).body.error.code).toBe('CONTACT_OPTED_OUT');
  });
});

describe('reading: paging, errors, tenants', () => {
  it('pages newest first with a cursor', async () => {
    const P = num(1500);
    expect((await t.api('POST', '/api/v1/contacts', { phone: P, consentSource: 'one' })).status).toBe(201);
    const id = (await contact(P)).id;
    for (let i = 0; i < 4; i++) {
      clock.advance(1_000);
      expect((await t.api('PUT', `/api/v1/contacts/${id}`, { disabled: i % 2 === 0 })).status).toBe(200);
    }
    const first = await consentOf(P, '?limit=2');
    expect(first.body.data.map((e: any) => e.kind)).toEqual(['enabled', 'disabled']);
    expect(first.body.pagination).toMatchObject({ hasNext: true, limit: 2, count: 2 });
    const second = await consentOf(P, `?limit=2&cursor=${first.body.pagination.nextCursor}`);
    expect(second.body.data.map((e: any) => e.kind)).toEqual(['enabled', 'disabled']);
    const third = await consentOf(P, `?limit=2&cursor=${second.body.pagination.nextCursor}`);
    expect(third.body.data.map((e: any) => e.kind)).toEqual(['opt_in']);
    expect(third.body.pagination).toMatchObject({ hasNext: false, nextCursor: null });
    const all = [...first.body.data, ...second.body.data, ...third.body.data];
    expect(new Set(all.map((e: any) => e.id)).size).toBe(5);
    expect(all.map((e: any) => e.occurredAt)).toEqual([...all.map((e: any) => e.occurredAt)].sort().reverse());
  });

  it('bad ids, cursors and limits are 400; unknown ids and numbers 404', async () => {
    for (const bad of ['abc', 'ct_123', 'ct_01ARZ3NDEKTSV4RRFFQ69G5FA!']) {
      const r = await consentOf(bad);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('INVALID_ID');
    }
    expect((await consentOf(num(1200), '?cursor=nonsense')).body.error.code).toBe('INVALID_CURSOR');
    for (const q of ['?limit=0', '?limit=201', '?limit=x']) expect((await consentOf(num(1200), q)).status).toBe(400);
    expect((await consentOf('ct_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
    expect((await consentOf(num(1999))).status).toBe(404);
    expect((await consentOf('+1')).status).toBe(404);
  });

  it('a second tenant sees none of it (404 by id and by number), and its export is its own', async () => {
    const other = await t.createAccount();
    const id = (await contact(num(1200))).id;
    expect((await consentOf(id, '', other.apiKey)).status).toBe(404);
    expect((await consentOf(num(1200), '', other.apiKey)).status).toBe(404);
    expect((await consentOf(num(1400), '', other.apiKey)).status).toBe(404);
    // A deleted contact's id too: the record it answers from is the owner's only.
    expect((await consentOf(deletedId, '', other.apiKey)).status).toBe(404);
    expect((await consentOf(deletedId)).status).toBe(200);
    const theirs = await exportCsv(other.apiKey);
    expect(theirs.status).toBe(200);
    expect(theirs.rows).toEqual([[...CONSENT_CSV_COLUMNS]]);
  });

  it('needs contacts:read', async () => {
    const key = await t.createKey(t.account.accountId, ['messages:read']);
    expect((await consentOf(num(1200), '', key)).status).toBe(403);
    expect((await exportCsv(key)).status).toBe(403);
  });

  it('MCP get_contact carries the standing and the latest three events', async () => {
    const { runTool } = await import('../../../tools/types.js');
    const { getContact } = await import('../../../tools/contacts.js');
    const principal = (await t.ctx.services.apiKeys.authenticate(t.account.apiKey))!;
    const out = (await runTool(getContact, t.ctx.services, principal, { id: num(1500) })) as any;
    expect(out.data.consent).toMatchObject({ optedOut: false, optedOutAt: null });
    expect(out.data.consent.latest).toHaveLength(3);
    expect(out.data.consent.latest[0]).toEqual({ kind: 'enabled', source: 'api', occurredAt: expect.any(String), detail: expect.stringMatching(/^by key "/) });
    expect(getContact.output.safeParse(out).success).toBe(true);
  });
});

describe('CSV export', () => {
  it('holds every event with escaped cells: formulas neutralised, quotes and commas quoted', async () => {
    const P = num(1600);
    const nasty = '=HYPERLINK("http://evil.example","click"), really';
    expect((await t.api('POST', '/api/v1/contacts', { phone: P, consentSource: nasty })).status).toBe(201);
    const { status, type, disposition, rows } = await exportCsv();
    expect(status).toBe(200);
    expect(type).toBe('text/csv; charset=utf-8');
    expect(disposition).toMatch(/^attachment; filename="consent-record-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(rows[0]).toEqual([...CONSENT_CSV_COLUMNS]);
    const col = (name: string) => CONSENT_CSV_COLUMNS.indexOf(name as (typeof CONSENT_CSV_COLUMNS)[number]);
    const mine = rows.filter((r) => r[col('phone')] === P.slice(1));
    expect(mine).toHaveLength(1);
    expect(mine[0]![col('declared_source')]).toBe(`'${nasty}`);
    expect(mine[0]![col('kind')]).toBe('opt_in');
    // Oldest first, and it has what the REST history has.
    const times = rows.slice(1).map((r) => r[col('occurred_at')]!);
    expect(times).toEqual([...times].sort());
    const stop = rows.find((r) => r[col('received_text')] === 'Stop please');
    expect(stop?.[col('kind')]).toBe('opt_out');
  });

  it('csvCell: = + - @ tab and CR lead to an apostrophe; others untouched', () => {
    expect(['=1+1', '+49', '-3', '@SUM(A1)', '\tx', '\rx'].map(csvCell)).toEqual(["'=1+1", "'+49", "'-3", "'@SUM(A1)", "'\tx", `"'\rx"`]);
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('');
  });

  it('streams a record larger than one chunk, every row once', async () => {
    const acc = await t.createAccount();
    const total = CONSENT_EXPORT_CHUNK * 2 + 37;
    const at = clock.now();
    await inTransaction(t.ctx.db, (tx) =>
      t.ctx.services.consent.recordMany(
        tx,
        // Many at the same millisecond: the walk orders by (occurred_at, id), so ties cannot repeat or skip rows.
        Array.from({ length: total }, (_, i) => ({ accountId: acc.accountId, phone: `4915190${String(i).padStart(6, '0')}`, kind: 'opt_in' as const, source: 'api' as const, declaredSource: `row ${i}`, at: at + Math.floor(i / 700) })),
      ),
    );
    const { rows } = await exportCsv(acc.apiKey);
    expect(rows).toHaveLength(total + 1);
    expect(new Set(rows.slice(1).map((r) => r[0])).size).toBe(total);
  });
});

describe('append-only', () => {
  it('no route changes the record: every path of the record is a GET; only a review decision (which adds an event) is a POST', async () => {
    const doc = (await t.api('GET', '/openapi.json', undefined, { key: null })).body;
    const paths = Object.entries(doc.paths as Record<string, Record<string, unknown>>).filter(([p]) => /consent/.test(p));
    const record = paths.filter(([p]) => !p.includes('/reviews'));
    expect(record.map(([p]) => p).sort()).toEqual(['/api/v1/consent/export', '/api/v1/contacts/{id}/consent']);
    for (const [, ops] of record) expect(Object.keys(ops).filter((m) => m !== 'parameters')).toEqual(['get']);
    const reviews = paths.filter(([p]) => p.includes('/reviews'));
    expect(reviews.map(([p, ops]) => `${Object.keys(ops).filter((m) => m !== 'parameters').join()} ${p}`).sort()).toEqual([
      'get /api/v1/consent/reviews',
      'get /api/v1/consent/reviews/{id}',
      'post /api/v1/consent/reviews/{id}/confirm',
      'post /api/v1/consent/reviews/{id}/release',
    ]);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect((await t.api(method, `/api/v1/contacts/${encodeURIComponent(num(1200))}/consent`, {})).status).toBe(404);
      expect((await t.api(method, '/api/v1/consent/export', {})).status).toBe(404);
    }
  });

  it('nothing in the code updates or deletes consent_events; only src/suppression/ inserts', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e.name)) files.push(p);
      }
    };
    for (const root of ['src', 'tools', 'oauth']) walk(path.join(PROJECT_ROOT, root));
    const offenders: string[] = [];
    for (const f of files) {
      const rel = path.relative(PROJECT_ROOT, f);
      if (rel.startsWith(path.join('src', 'platform', 'db', 'migrations'))) continue;
      const src = fs.readFileSync(f, 'utf8');
      if (/(updateTable|deleteFrom)\(\s*['"]consent_events['"]/.test(src) || /(update|delete\s+from)\s+"?consent_events/i.test(src)) offenders.push(`${rel}: changes consent_events`);
      if (/insertInto\(\s*['"]consent_events['"]/.test(src) && !rel.startsWith(path.join('src', 'suppression'))) offenders.push(`${rel}: inserts outside src/suppression`);
    }
    expect(offenders).toEqual([]);
    // The scan sees the writer it allows.
    expect(fs.readFileSync(path.join(PROJECT_ROOT, 'src/suppression/consent.ts'), 'utf8')).toMatch(/insertInto\('consent_events'\)/);
  });
});
