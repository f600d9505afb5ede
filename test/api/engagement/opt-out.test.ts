import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { WebClient } from '../../helpers/web-client.js';
import { DAY, num, startEngagementServer, type EngagementServer } from './helpers.js';

const T0 = Date.UTC(2026, 5, 1, 9, 0, 0);
const clock = new FakeClock(T0);
let t: EngagementServer;

beforeAll(async () => {
  t = await startEngagementServer({ clock });
});
afterAll(async () => {
  await t?.close();
});

const iso = (ms: number) => new Date(ms).toISOString();
const text = (to: string, extra: Record<string, unknown> = {}) => ({ phoneNumber: to, messageType: 'text', content: { text: 'Hello' }, sendernameId: t.account.senders.rcs, ...extra });
const scheduledTo = async (phone: string) =>
  (await t.api('GET', `/api/messages/log?status=SCHEDULED&phoneNumber=${encodeURIComponent(phone)}`)).body.messages as any[];
const credits = async () => (await t.ctx.services.accounts.get(t.account.accountId)).credits;
const contact = async (phone: string) => (await t.api('GET', `/api/v1/contacts/${encodeURIComponent(phone)}`)).body.data;

describe('STOP and the sender’s keyword', () => {
  const O = num(700);

  it('STOP opts the number out, disables the contact and cancels its scheduled messages (refunded)', async () => {
    const before = await credits();
    for (let i = 1; i <= 2; i++) {
      const r = await t.api('POST', '/api/rcs/send', text(O, { scheduleAt: iso(T0 + i * DAY) }));
      expect(r.status).toBe(200);
    }
    const batch = await t.api('POST', '/api/rcs/send-batch', { ...text(O), phoneNumber: undefined, phoneNumbers: [O, num(701)], scheduleAt: iso(T0 + 3 * DAY) });
    expect(batch.status).toBe(200);
    expect(await scheduledTo(O)).toHaveLength(3);
    expect(await credits()).toBeLessThan(before);

    clock.advance(60_000);
    await t.reply(O, t.account.senders.rcs, ' Stop. ');
    expect(await scheduledTo(O)).toHaveLength(0);
    // The other recipient of the batch keeps its message; only O's credits came back.
    expect(await scheduledTo(num(701))).toHaveLength(1);
    expect(await credits()).toBeCloseTo(before - 0.035, 6);
    expect(await contact(O)).toMatchObject({ disabled: true, disabledReason: 'Opted out: replied STOP' });
    const inbound = await t.api('GET', `/api/messages/log?direction=INBOUND&phoneNumber=${encodeURIComponent(O)}`);
    expect(inbound.body.messages[0]).toMatchObject({ status: 'RECEIVED', content: ' Stop. ' });
  });

  it('a later send is refused with CONTACT_OPTED_OUT, even with skipDisabled:false or skipContactCreation', async () => {
    for (const extra of [{}, { skipDisabled: false }, { skipContactCreation: true }]) {
      const r = await t.api('POST', '/api/rcs/send', text(O, extra));
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('CONTACT_OPTED_OUT');
    }
    const sms = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: O, message: 'Hi', sendernameId: t.account.senders.sms, skipDisabled: false });
    expect(sms.body.error.code).toBe('CONTACT_OPTED_OUT');
    // Re-enabling the contact is the business's switch, not the person's consent: still refused.
    const id = (await contact(O)).id;
    expect((await t.api('PATCH', '/api/v1/contacts/bulk/enable', { contactIds: [id] })).status).toBe(200);
    expect((await t.api('POST', '/api/rcs/send', text(O))).body.error.code).toBe('CONTACT_OPTED_OUT');
  });

  it('in a batch the opted-out number is a rejected entry and the others go out', async () => {
    const r = await t.api('POST', '/api/rcs/send-batch', { ...text(O), phoneNumber: undefined, phoneNumbers: [O, num(702)], skipDisabled: false });
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(1);
    expect(r.body.rejected).toEqual([expect.objectContaining({ phoneNumber: O, code: 'CONTACT_OPTED_OUT' })]);
  });

  it('the opt-out outlives the contact: deleting it does not make the number reachable', async () => {
    const id = (await contact(O)).id;
    expect((await t.api('DELETE', `/api/v1/contacts/${id}`)).status).toBe(200);
    expect((await t.api('POST', '/api/rcs/send', text(O))).body.error.code).toBe('CONTACT_OPTED_OUT');
  });

  it('is per account: another tenant may still message the number', async () => {
    const other = await t.createAccount();
    const r = await t.api('POST', '/api/rcs/send', { ...text(O), sendernameId: other.senders.rcs }, { key: other.apiKey });
    expect(r.status).toBe(200);
  });

  it('START re-subscribes the number', async () => {
    clock.advance(60_000);
    await t.reply(O, t.account.senders.rcs, 'start');
    expect((await t.api('POST', '/api/rcs/send', text(O))).status).toBe(200);
  });

  it('the sender’s own keyword opts out; a sentence containing stop does not, but pauses marketing for a person (issue #42)', async () => {
    const kwSender = (await t.ctx.services.senders.create(t.account.accountId, { name: 'Kw Agent', type: 'RCS', status: 'APPROVED', stopKeyword: 'ABMELDEN' })).id;
    const K = num(710);
    const N = num(711);
    for (const p of [K, N]) expect((await t.api('POST', '/api/rcs/send', { ...text(p), sendernameId: kwSender })).status).toBe(200);
    clock.advance(60_000);
    await t.reply(K, kwSender, '“Abmelden!”');
    await t.reply(N, kwSender, 'please do not stop sending these');
    expect((await t.api('POST', '/api/rcs/send', text(K))).body.error.code).toBe('CONTACT_OPTED_OUT');
    expect((await t.api('POST', '/api/rcs/send', text(N))).body.error.code).toBe('CONSENT_UNDER_REVIEW');
    expect((await t.api('POST', '/api/rcs/send', text(N, { transactional: true }))).status).toBe(200);
    expect(await contact(N)).toMatchObject({ disabled: false });
    expect(await contact(K)).toMatchObject({ disabled: true, disabledReason: 'Opted out: replied ABMELDEN' });
  });

  it('an unsubscribe chip on the virtual phone sends the keyword: opted out', async () => {
    const U = num(720);
    const r = await t.api('POST', '/api/rcs/send', text(U, { content: { text: 'News', suggestions: [{ action: { type: 'unsubscribe', text: 'Unsubscribe', unsubscribeAction: { stopKeyword: 'STOP' } } }] } }));
    expect(r.status).toBe(200);
    const phone = t.ctx.services.virtualPhone!;
    const view = await phone.view(t.account.accountId, U);
    const item = view.threads[0]!.items.find((i) => i.kind === 'out')!;
    expect(item.kind).toBe('out');
    await phone.tap(t.account.accountId, U, (item as { simId: string }).simId, 's:0');
    expect((await t.api('POST', '/api/rcs/send', text(U))).body.error.code).toBe('CONTACT_OPTED_OUT');
    const taps = await t.api('GET', `/api/rcs/interactions?phone=${encodeURIComponent(U)}&type=button_click`);
    expect(taps.body.data[0]).toMatchObject({ buttonText: 'Unsubscribe', actionType: 'action' });
  });
});

describe('opt-out words of every language, short stop sentences, START and HELP (issue #28)', () => {
  let n = 800;
  const fresh = async () => {
    const p = num(n++);
    expect((await t.api('POST', '/api/rcs/send', text(p))).status).toBe(200);
    clock.advance(1_000);
    return p;
  };
  const optedOut = async (p: string) => (await t.api('POST', '/api/rcs/send', text(p))).body?.error?.code === 'CONTACT_OPTED_OUT';

  it('each language’s words and the US set opt out, as a person writes them', async () => {
    for (const w of ['stop all', 'Quit', 'END', 'Revoke', 'opt-out', 'Cancel', 'unsubscribe', 'Stopp', 'Abmelden', 'Arrêt', 'désinscrire', 'Baja', 'cancelar', 'Annulla', 'disiscrivi', 'Afmelden', 'afmeld', 'avsluta', 'Avslutt', 'lopeta', 'Rezygnuj', 'sair']) {
      const p = await fresh();
      await t.reply(p, t.account.senders.rcs, w);
      expect(await optedOut(p), w).toBe(true);
    }
  });

  it('short sentences that clearly ask to stop opt out', async () => {
    for (const s of ['please stop texting me', 'Stop bitte', 'stop please', 'unsubscribe me', 'arrêtez svp']) {
      const p = await fresh();
      await t.reply(p, t.account.senders.rcs, s);
      expect(await optedOut(p), s).toBe(true);
      expect(await contact(p)).toMatchObject({ disabled: true });
    }
  });

  it('long messages and negative examples do not opt out', async () => {
    for (const s of ["don't stop", 'stop by tomorrow at 5', 'Please do not stop, I love these offers', 'Can you stop by the office on Monday to talk about the contract?', 'I would like to cancel my order from last week, please call me']) {
      const p = await fresh();
      await t.reply(p, t.account.senders.rcs, s);
      expect(await optedOut(p), s).toBe(false);
    }
  });

  it('START (and its equivalents) after STOP re-subscribes', async () => {
    for (const w of ['START', 'Anmelden', 'unstop']) {
      const p = await fresh();
      await t.reply(p, t.account.senders.rcs, 'STOP');
      expect(await optedOut(p)).toBe(true);
      clock.advance(1_000);
      await t.reply(p, t.account.senders.rcs, w);
      expect(await optedOut(p), w).toBe(false);
    }
  });

  it('HELP (and its equivalents) is answered with the company’s details through the same sender, free, in the log', async () => {
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { companyProfile: { company_name: 'Demo Company', company_phone: '+49 30 1234567', company_email: 'help@example.com', company_website: 'https://example.com' } });
    const before = await credits();
    // In the word's language (issue #42): test/api/engagement/consent-replies.test.ts has the rest.
    const answers: Record<string, string> = {
      HELP: 'Demo Company: help at +49 30 1234567, help@example.com, https://example.com. Reply STOP to unsubscribe.',
      Hilfe: 'Demo Company: Hilfe unter +49 30 1234567, help@example.com, https://example.com. Antworten Sie STOPP, um sich abzumelden.',
      aide: 'Aide Demo Company : +49 30 1234567, help@example.com, https://example.com. Répondez STOP pour vous désinscrire.',
    };
    for (const w of ['HELP', 'Hilfe', 'aide']) {
      const p = await fresh();
      const spent = await credits();
      await t.reply(p, t.account.senders.rcs, w);
      const out = await t.ctx.db.selectFrom('messages').selectAll().where('phone', '=', p.slice(1)).where('direction', '=', 'OUTBOUND').where('campaign_name', '=', 'help-reply').execute();
      expect(out, w).toHaveLength(1);
      expect(out[0]).toMatchObject({
        text: answers[w],
        sendername_id: t.account.senders.rcs,
        source: 'SYSTEM',
        credits_cost_milli: 0,
      });
      expect(['SENT', 'DELIVERED', 'READ']).toContain(out[0]!.status);
      expect(await credits()).toBeCloseTo(spent, 6);
      expect(await optedOut(p)).toBe(false);
    }
    expect(before).toBeGreaterThan(0);
    const log = await t.api('GET', `/api/messages/log?direction=OUTBOUND&phoneNumber=${encodeURIComponent(num(n - 1))}`);
    expect(log.body.messages.some((m: { content: unknown }) => JSON.stringify(m.content).includes('Demo Company'))).toBe(true);
  });
});

describe('one confirmation per opt-out (issue #28)', () => {
  const confirmations = async (p: string) =>
    t.ctx.db.selectFrom('messages').selectAll().where('account_id', '=', t.account.accountId).where('phone', '=', p.slice(1)).where('direction', '=', 'OUTBOUND').where('campaign_name', '=', 'opt-out-confirmation').execute();

  it('three STOPs: one confirmation, through the same sender, free, in the log; START then STOP confirms again', async () => {
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { companyProfile: { company_name: 'Demo Company' } });
    const p = num(900);
    expect((await t.api('POST', '/api/rcs/send', text(p))).status).toBe(200);
    const spent = await credits();
    for (let i = 0; i < 3; i++) {
      clock.advance(1_000);
      await t.reply(p, t.account.senders.rcs, 'STOP');
    }
    const sent = await confirmations(p);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ text: 'You are unsubscribed from Demo Company, no more messages. Reply START to resubscribe.', sendername_id: t.account.senders.rcs, source: 'SYSTEM', credits_cost_milli: 0 });
    expect(['SENT', 'DELIVERED', 'READ']).toContain(sent[0]!.status);
    expect(await credits()).toBeCloseTo(spent, 6);
    const log = await t.api('GET', `/api/messages/log?direction=OUTBOUND&phoneNumber=${encodeURIComponent(p)}`);
    expect(log.body.messages.filter((m: { content: unknown }) => JSON.stringify(m.content).includes('You are unsubscribed'))).toHaveLength(1);
    // Still opted out: the confirmation is exempt from the check, other sends are not.
    expect((await t.api('POST', '/api/rcs/send', text(p))).body.error.code).toBe('CONTACT_OPTED_OUT');
    clock.advance(1_000);
    await t.reply(p, t.account.senders.rcs, 'START');
    clock.advance(1_000);
    await t.reply(p, t.account.senders.rcs, 'stop please');
    expect(await confirmations(p)).toHaveLength(2);
  });

  it('two STOPs from one number at the same moment: exactly one confirmation goes out (issue #42)', async () => {
    // Two different incoming messages (their own carrierMessageIds) handled at once, as two instances or a network's
    // parallel webhooks deliver them. On PostgreSQL the second opt-out, finding the number already out, used to cancel
    // the confirmation the first had just queued: 0 of 5 numbers heard back.
    const phones = [930, 931, 932, 933, 934].map(num);
    for (const p of phones) expect((await t.api('POST', '/api/rcs/send', text(p))).status).toBe(200);
    clock.advance(1_000);
    await Promise.all(phones.flatMap((p) => [t.reply(p, t.account.senders.rcs, 'STOP'), t.reply(p, t.account.senders.rcs, 'Stop')]));
    for (const p of phones) {
      const sent = await confirmations(p);
      expect(sent, p).toHaveLength(1);
      expect(['SENT', 'DELIVERED', 'READ'], p).toContain(sent[0]!.status);
      expect((await t.api('POST', '/api/rcs/send', text(p))).body.error.code).toBe('CONTACT_OPTED_OUT');
    }
  });

  it('the text is the account’s own when set, and none is sent when the account turned it off', async () => {
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { optOutConfirmationText: 'Abgemeldet bei {{company_name}}. START für neue Nachrichten.' });
    try {
      const p = num(901);
      expect((await t.api('POST', '/api/rcs/send', text(p))).status).toBe(200);
      clock.advance(1_000);
      // The account's text is the English one: STOP gets it (Stopp would get the German default, issue #42).
      await t.reply(p, t.account.senders.rcs, 'STOP');
      expect((await confirmations(p)).map((m) => m.text)).toEqual(['Abgemeldet bei Demo Company. START für neue Nachrichten.']);
      await t.ctx.services.accounts.updateSettings(t.account.accountId, { optOutConfirmation: false });
      const q = num(902);
      expect((await t.api('POST', '/api/rcs/send', text(q))).status).toBe(200);
      clock.advance(1_000);
      await t.reply(q, t.account.senders.rcs, 'STOP');
      expect((await t.api('POST', '/api/rcs/send', text(q))).body.error.code).toBe('CONTACT_OPTED_OUT');
      expect(await confirmations(q)).toHaveLength(0);
    } finally {
      await t.ctx.services.accounts.updateSettings(t.account.accountId, { optOutConfirmation: true, optOutConfirmationText: null });
    }
  });

  it('is edited on the console’s settings page: on by default, the text, off', async () => {
    const acc = await t.createAccount();
    const c = new WebClient(t.url);
    expect((await c.login(acc.email, acc.password, acc.totpSecret, '/console/settings', clock.now())).status).toBe(303);
    const page = await c.get('/console/settings');
    expect(page.text).toMatch(/name="optOutConfirmation"[^>]*checked/);
    expect(page.text).toContain('You are unsubscribed from {{company_name}}, no more messages. Reply START to resubscribe.');
    const base = { csrf: WebClient.hidden(page.text, 'csrf'), name: 'Opt Co', timezone: 'UTC', approvalRequired: 'on', unsubscribeUrl: '', formPerFormPerHour: '30', formPerFormPerDay: '200', formPerAccountPerHour: '100', formPerAccountPerDay: '1000' };
    expect((await c.post('/console/settings', { ...base, optOutConfirmation: 'on', optOutConfirmationText: 'Bye from {{company_name}}.' })).status).toBe(303);
    expect(await t.ctx.services.accounts.get(acc.accountId)).toMatchObject({ optOutConfirmation: true, optOutConfirmationText: 'Bye from {{company_name}}.' });
    expect((await c.get('/console/settings')).text).toContain('>Bye from {{company_name}}.</textarea>');
    expect((await c.post('/console/settings', { ...base, optOutConfirmationText: '' })).status).toBe(303);
    expect(await t.ctx.services.accounts.get(acc.accountId)).toMatchObject({ optOutConfirmation: false, optOutConfirmationText: null });
  });

  it('a tap on an unsubscribe chip is confirmed too', async () => {
    const p = num(903);
    const r = await t.api('POST', '/api/rcs/send', text(p, { content: { text: 'News', suggestions: [{ action: { type: 'unsubscribe', text: 'Unsubscribe', unsubscribeAction: { stopKeyword: 'HALT' } } }] } }));
    expect(r.status).toBe(200);
    const phone = t.ctx.services.virtualPhone!;
    const item = (await phone.view(t.account.accountId, p)).threads[0]!.items.find((i) => i.kind === 'out')! as { simId: string };
    clock.advance(1_000);
    await phone.tap(t.account.accountId, p, item.simId, 's:0');
    expect(await confirmations(p)).toHaveLength(1);
  });
});

describe('unsubscribe chips are corrected to the sender’s trigger (spec §2.3, issue #28)', () => {
  const halt = { text: 'News', suggestions: [{ reply: { text: 'More', postbackData: 'more' } }, { action: { type: 'unsubscribe', text: 'Unsubscribe', unsubscribeAction: { stopKeyword: 'HALT' } } }] };
  const warning = {
    path: 'content.suggestions[1].action.unsubscribeAction.stopKeyword',
    code: 'stop_keyword_corrected',
    message: "The unsubscribe chip sends HALT, but this sender's opt-out word is STOP: corrected to STOP.",
  };
  const chipKeyword = (content: any) => content.suggestions[1].action.unsubscribeAction.stopKeyword;

  it('a REST preview (one recipient or a batch) warns and stores the corrected keyword: what is approved is what is sent', async () => {
    for (const [route, extra] of [['send', { phoneNumber: num(740) }], ['send-batch', { phoneNumbers: [num(741), num(742)] }]] as const) {
      const r = await t.api('POST', `/api/rcs/previews/${route}`, { messageType: 'text', content: halt, sendernameId: t.account.senders.rcs, ...extra });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.data.warnings).toContainEqual(warning);
      const row = await t.ctx.db.selectFrom('previews').select('payload').where('id', '=', r.body.data.preview_id).executeTakeFirstOrThrow();
      expect(chipKeyword(JSON.parse(row.payload).content)).toBe('STOP');
    }
  });

  it('a sender with its own trigger: the chip (even one without a keyword) sends that word', async () => {
    const kw = (await t.ctx.services.senders.create(t.account.accountId, { name: 'Halt Agent', type: 'RCS', status: 'APPROVED', stopKeyword: 'ABMELDEN' })).id;
    const r = await t.api('POST', '/api/rcs/previews/send', { phoneNumber: num(743), messageType: 'text', content: { text: 'Hi', suggestions: [{ action: { type: 'unsubscribe', text: 'Abmelden' } }] }, sendernameId: kw });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data.warnings).toContainEqual({ path: 'content.suggestions[0].action.unsubscribeAction.stopKeyword', code: 'stop_keyword_corrected', message: "The unsubscribe chip sends STOP, but this sender's opt-out word is ABMELDEN: corrected to ABMELDEN." });
    const ok = await t.api('POST', '/api/rcs/previews/send', { phoneNumber: num(743), messageType: 'text', content: { text: 'Hi', suggestions: [{ action: { type: 'unsubscribe', text: 'Stop', unsubscribeAction: { stopKeyword: 'stop' } } }] }, sendernameId: t.account.senders.rcs });
    expect(ok.body.data.warnings.filter((w: { code: string }) => w.code === 'stop_keyword_corrected')).toEqual([]);
  });

  it('a direct send of a HALT chip: a tap on the virtual phone opts out; the next send is refused CONTACT_OPTED_OUT', async () => {
    const H = num(745);
    const r = await t.api('POST', '/api/rcs/send', text(H, { content: halt }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const msg = await t.ctx.db.selectFrom('messages').select('content').where('id', '=', r.body.messageRecordId).executeTakeFirstOrThrow();
    expect(chipKeyword(JSON.parse(msg.content!))).toBe('STOP');
    const phone = t.ctx.services.virtualPhone!;
    const view = await phone.view(t.account.accountId, H);
    const item = view.threads[0]!.items.find((i) => i.kind === 'out')! as { simId: string };
    clock.advance(1_000);
    await phone.tap(t.account.accountId, H, item.simId, 's:1');
    const refused = await t.api('POST', '/api/rcs/send', text(H));
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('CONTACT_OPTED_OUT');
    expect(await contact(H)).toMatchObject({ disabled: true });
  });

  it('a batch with a HALT chip carries the corrected keyword to every recipient', async () => {
    const r = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: [num(746), num(747)], messageType: 'text', content: halt, sendernameId: t.account.senders.rcs });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const rows = await t.ctx.db.selectFrom('messages').select('content').where('job_id', '=', r.body.jobId).execute();
    expect(rows.map((m) => chipKeyword(JSON.parse(m.content!)))).toEqual(['STOP', 'STOP']);
  });
});

describe('the unsubscribe link /u/<token>', () => {
  const L = num(730);
  let token: string;

  it('a send with {{unsubscribe_link}} carries a per-send link whose token is stored hashed', async () => {
    const r = await t.api('POST', '/api/rcs/send', text(L, { content: { text: 'Deals. Opt out: {{unsubscribe_link}}' } }));
    expect(r.status).toBe(200);
    // The log shows the link masked; the number's phone got the real one.
    const content = await t.api('GET', `/api/messages/${r.body.messageRecordId}/content`);
    expect(content.body.message.content.text).toContain(`/u/${'*'.repeat(32)}`);
    const received = (await t.ctx.services.virtualPhone!.view(t.account.accountId, L)).threads[0]!.items.find((i) => i.kind === 'out' && i.messageId === r.body.messageRecordId);
    const m = /\/u\/([A-Za-z0-9_-]+)/.exec(JSON.stringify(received));
    expect(m).not.toBeNull();
    token = m![1]!;
    const rows = await t.ctx.db.selectFrom('unsubscribe_tokens').selectAll().where('message_id', '=', r.body.messageRecordId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    // A scheduled message to the same number, to be cancelled by the unsubscribe.
    expect((await t.api('POST', '/api/rcs/send', text(L, { scheduleAt: iso(clock.now() + DAY) }))).status).toBe(200);
  });

  it('visiting changes nothing; the confirm button (double-submit CSRF) opts out; a second visit says already', async () => {
    const web = new WebClient(t.url);
    const page = await web.get(`/u/${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-robots-tag')).toContain('noindex');
    expect(page.text).toContain('Unsubscribe from');
    expect(page.text).toContain(L.slice(-4));
    expect(page.text).not.toContain(L.slice(1, 9));
    expect((await contact(L)).disabled).toBe(false);

    // Without the cookie's twin the POST is refused and nothing happens.
    const forged = await new WebClient(t.url).post(`/u/${token}`, { csrf: 'x'.repeat(32) });
    expect(forged.status).toBe(403);
    expect((await contact(L)).disabled).toBe(false);

    const done = await web.post(`/u/${token}`, { csrf: WebClient.hidden(page.text, 'csrf') });
    expect(done.status).toBe(200);
    expect(done.text).toContain('You are unsubscribed');
    expect(await contact(L)).toMatchObject({ disabled: true, disabledReason: 'Opted out: used the unsubscribe link' });
    expect(await scheduledTo(L)).toHaveLength(0);
    expect((await t.api('POST', '/api/rcs/send', text(L))).body.error.code).toBe('CONTACT_OPTED_OUT');
    const row = await t.ctx.db.selectFrom('unsubscribe_tokens').select('used_at').where('token_hash', '=', createHash('sha256').update(token).digest('hex')).executeTakeFirst();
    expect(row?.used_at).toBe(clock.now());

    const again = await web.get(`/u/${token}`);
    expect(again.status).toBe(200);
    expect(again.text).toContain('Already unsubscribed');
    const repost = await web.post(`/u/${token}`, { csrf: WebClient.hidden(page.text, 'csrf') });
    expect(repost.text).toContain('Already unsubscribed');
  });

  it('tapping an unsubscribe-link button on the virtual phone opens this server’s unsubscribe page', async () => {
    const V = num(732);
    const r = await t.api('POST', '/api/rcs/send', text(V, {
      messageType: 'richCard',
      content: { title: 'News', cardActions: [{ type: 'unsubscribeLink', text: 'Unsubscribe', openUrlAction: { url: '{{unsubscribe_link}}' } }] },
    }));
    expect(r.status).toBe(200);
    const phone = t.ctx.services.virtualPhone!;
    const view = await phone.view(t.account.accountId, V);
    const item = view.threads[0]!.items.find((i) => i.kind === 'out') as { simId: string };
    const { openPath } = await phone.tap(t.account.accountId, V, item.simId, 'c:0:0');
    expect(openPath).toMatch(/^\/u\/[A-Za-z0-9_-]{32}$/);
    const page = await new WebClient(t.url).get(openPath!);
    expect(page.text).toContain('Unsubscribe from');
    // Targets that are not on the message are refused.
    await expect(phone.tap(t.account.accountId, V, item.simId, 'c:0:3')).rejects.toThrow(/not on a message/);
    await expect(phone.tap(t.account.accountId, V, item.simId, 's:0')).rejects.toThrow(/not on a message/);
    await expect(phone.tap(t.account.accountId, num(733), item.simId, 'c:0:0')).rejects.toThrow(/not on a message/);
  });

  it('unknown or malformed tokens are a 404 page', async () => {
    const web = new WebClient(t.url);
    expect((await web.get('/u/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await web.get('/u/%3Cscript%3E')).status).toBe(404);
  });

  it('a link opts out the number it was sent to, even after the contact’s phone was edited (issue #42)', async () => {
    const OLD = num(734);
    const NEW = num(735);
    const r = await t.api('POST', '/api/rcs/send', text(OLD, { content: { text: 'Deals. Opt out: {{unsubscribe_link}}' } }));
    expect(r.status).toBe(200);
    const received = (await t.ctx.services.virtualPhone!.view(t.account.accountId, OLD)).threads[0]!.items.find((i) => i.kind === 'out' && i.messageId === r.body.messageRecordId);
    const link = /\/u\/([A-Za-z0-9_-]+)/.exec(JSON.stringify(received))![1]!;
    // The business gives the contact a new number; the link in the old number's inbox is still the old person's.
    const id = (await contact(OLD)).id;
    expect((await t.api('PUT', `/api/v1/contacts/${id}`, { phone: NEW })).status).toBe(200);

    const web = new WebClient(t.url);
    const page = await web.get(`/u/${link}`);
    expect(page.status).toBe(200);
    const ending = (html: string) => /ending in (?:<strong[^>]*>)?(\d+)/.exec(html)?.[1];
    expect(ending(page.text)).toBe(OLD.slice(-4));
    const done = await web.post(`/u/${link}`, { csrf: WebClient.hidden(page.text, 'csrf') });
    expect(done.text).toContain('You are unsubscribed');
    expect(ending(done.text)).toBe(OLD.slice(-4));
    expect(await t.ctx.services.optOuts.isOptedOut(t.account.accountId, OLD.slice(1))).toBe(true);
    expect(await t.ctx.services.optOuts.isOptedOut(t.account.accountId, NEW.slice(1))).toBe(false);
    // The contact, now at the new number, was not disabled and still gets messages; the old number gets none.
    expect((await contact(NEW)).disabled).toBe(false);
    expect((await t.api('POST', '/api/rcs/send', text(NEW))).status).toBe(200);
    expect((await t.api('POST', '/api/rcs/send', text(OLD, { skipContactCreation: true }))).body.error.code).toBe('CONTACT_OPTED_OUT');
    const record = await t.api('GET', `/api/v1/contacts/${encodeURIComponent(OLD)}/consent`);
    expect(record.body.data[0]).toMatchObject({ kind: 'opt_out', source: 'link', messageId: r.body.messageRecordId });
  });

  it('the account’s custom unsubscribe URL is used as is: no token is issued', async () => {
    await t.ctx.services.accounts.updateSettings(t.account.accountId, { unsubscribeUrl: 'https://example.com/opt-out' });
    try {
      const r = await t.api('POST', '/api/rcs/send', text(num(731), { content: { text: 'Bye: {{unsubscribe_link}}' } }));
      expect(r.status).toBe(200);
      const content = await t.api('GET', `/api/messages/${r.body.messageRecordId}/content`);
      expect(content.body.message.content.text).toBe('Bye: https://example.com/opt-out');
      const rows = await t.ctx.db.selectFrom('unsubscribe_tokens').selectAll().where('message_id', '=', r.body.messageRecordId).execute();
      expect(rows).toHaveLength(0);
    } finally {
      await t.ctx.services.accounts.updateSettings(t.account.accountId, { unsubscribeUrl: null });
    }
  });
});

describe('a sender’s own consent words and the HELP limit (issue #28)', () => {
  const optedOut = async (p: string) => (await t.api('POST', '/api/rcs/send', text(p))).body?.error?.code === 'CONTACT_OPTED_OUT';
  const helpAnswers = async (p: string) =>
    t.ctx.db.selectFrom('messages').select('id').where('account_id', '=', t.account.accountId).where('phone', '=', p.slice(1)).where('direction', '=', 'OUTBOUND').where('campaign_name', '=', 'help-reply').execute();

  it('words added for a sender opt out, re-subscribe and ask for help through that sender only', async () => {
    const senders = t.ctx.services.senders;
    const rcs = t.account.senders.rcs;
    expect(await senders.setConsentWords(t.account.accountId, rcs, { optOut: ['Genug!', 'stop'], optIn: ['Wieder da'], help: ['Frage'] })).toEqual({ optOut: ['GENUG'], optIn: ['WIEDER DA'], help: ['FRAGE'] });
    const p = num(950);
    expect((await t.api('POST', '/api/rcs/send', text(p))).status).toBe(200);
    clock.advance(1_000);
    await t.reply(p, t.account.senders.sms, 'genug');
    expect(await optedOut(p), 'another sender’s word').toBe(false);
    await t.reply(p, rcs, ' Genug. ');
    expect(await optedOut(p)).toBe(true);
    clock.advance(1_000);
    await t.reply(p, rcs, 'wieder da!');
    expect(await optedOut(p)).toBe(false);
    // Only as the whole message: inside a sentence the sender's own word is an ordinary reply.
    await t.reply(p, rcs, 'genug bitte');
    expect(await optedOut(p)).toBe(false);
    await t.reply(p, rcs, 'Frage');
    expect(await helpAnswers(p)).toHaveLength(1);
  });

  it('a word that already means something else, or a stop sentence as a re-subscribe word, is refused and nothing is stored', async () => {
    const senders = t.ctx.services.senders;
    const rcs = t.account.senders.rcs;
    const before = await senders.consentWords(t.account.accountId, rcs);
    for (const input of [
      { optOut: [], optIn: ['stop please'], help: [] },
      { optOut: ['HELP'], optIn: [], help: [] },
      { optOut: [], optIn: [], help: ['START'] },
      { optOut: ['Yes'], optIn: ['yes'], help: [] },
      { optOut: ['x'.repeat(31)], optIn: [], help: [] },
      { optOut: ['a b c d'], optIn: [], help: [] },
      { optOut: ['!!!'], optIn: [], help: [] },
      { optOut: Array.from({ length: 21 }, (_, i) => `W${i}`), optIn: [], help: [] },
    ]) {
      await expect(senders.setConsentWords(t.account.accountId, rcs, input), JSON.stringify(input)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    expect(await senders.consentWords(t.account.accountId, rcs)).toEqual(before);
    // Another account's sender is not found.
    const other = await t.createAccount();
    await expect(senders.setConsentWords(t.account.accountId, other.senders.rcs, { optOut: ['GENUG'], optIn: [], help: [] })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('HELP is answered at most 3 times a day per number and sender (two bots cannot loop)', async () => {
    const p = num(951);
    for (let i = 0; i < 6; i++) {
      clock.advance(60_000);
      await t.reply(p, t.account.senders.rcs, 'HELP');
    }
    expect(await helpAnswers(p)).toHaveLength(3);
    clock.advance(DAY);
    await t.reply(p, t.account.senders.rcs, 'help');
    expect(await helpAnswers(p)).toHaveLength(4);
    // A reply answers the account's messages, not the automatic answers: no campaign "help-reply" on it.
    const inbound = await t.ctx.db.selectFrom('messages').select('campaign_name').where('account_id', '=', t.account.accountId).where('phone', '=', p.slice(1)).where('direction', '=', 'INBOUND').execute();
    expect(inbound.map((m) => m.campaign_name)).not.toContain('help-reply');
  });
});
