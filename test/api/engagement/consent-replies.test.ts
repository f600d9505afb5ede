import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { AppError } from '../../../src/platform/errors.js';
import { REPLY_DEFAULTS } from '../../../src/accounts/reply-texts.js';
import type { TestAccount } from '../../helpers/server.js';
import { WebClient } from '../../helpers/web-client.js';
import { num, startEngagementServer, type EngagementServer } from './helpers.js';

/** Issue #42: the confirmation of an opt-out and the HELP answer in the language of the word that triggered them. */

const clock = new FakeClock(Date.UTC(2026, 5, 1, 9, 0, 0));
let t: EngagementServer;
let n = 1_000;

beforeAll(async () => {
  t = await startEngagementServer({ clock });
});
afterAll(async () => {
  await t?.close();
});

const PROFILE = { company_name: 'Demo Company', company_phone: '+49 30 1234567', company_email: 'help@example.com', company_website: 'https://example.com' };
const CONTACTS = '+49 30 1234567, help@example.com, https://example.com';
const company = (s: string) => s.replace('{{company_name}}', 'Demo Company').replace('{{company_contacts}}', CONTACTS);

/** A fresh account with the company profile. */
async function account(): Promise<TestAccount> {
  const a = await t.createAccount();
  await t.ctx.services.accounts.updateSettings(a.accountId, { companyProfile: PROFILE });
  return a;
}

/** The automatic answers of `kind` the account sent to `phone`, oldest first. */
async function answers(a: TestAccount, phone: string, kind: 'opt-out-confirmation' | 'help-reply'): Promise<string[]> {
  const rows = await t.ctx.db
    .selectFrom('messages')
    .select(['text', 'id'])
    .where('account_id', '=', a.accountId)
    .where('phone', '=', phone.slice(1))
    .where('direction', '=', 'OUTBOUND')
    .where('campaign_name', '=', kind)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.text ?? '');
}

/** The person at a fresh number (or `phone`) writes `text` to the account's RCS sender. */
async function write(a: TestAccount, text: string, phone = num(n++)): Promise<string> {
  clock.advance(1_000);
  await t.reply(phone, a.senders.rcs, text);
  return phone;
}

describe('replies in the word’s language', () => {
  it('ARRÊT gets the French confirmation, STOPP the German one, STOP stays English', async () => {
    const a = await account();
    expect(await answers(a, await write(a, 'Arrêt'), 'opt-out-confirmation')).toEqual([company(REPLY_DEFAULTS.fr.confirmation)]);
    expect(await answers(a, await write(a, 'STOPP'), 'opt-out-confirmation')).toEqual([
      'Sie sind von Demo Company abgemeldet und erhalten keine Nachrichten mehr. Antworten Sie ANMELDEN, um sich wieder anzumelden.',
    ]);
    expect(await answers(a, await write(a, 'stop'), 'opt-out-confirmation')).toEqual(['You are unsubscribed from Demo Company, no more messages. Reply START to resubscribe.']);
    // A short sentence: the stop word's language.
    expect(await answers(a, await write(a, 'arrêtez svp'), 'opt-out-confirmation')).toEqual([company(REPLY_DEFAULTS.fr.confirmation)]);
  });

  it('HILFE gets the German HELP answer, AYUDA the Spanish one, HELP the English one', async () => {
    const a = await account();
    expect(await answers(a, await write(a, 'HILFE'), 'help-reply')).toEqual([`Demo Company: Hilfe unter ${CONTACTS}. Antworten Sie STOPP, um sich abzumelden.`]);
    expect(await answers(a, await write(a, 'Ayuda'), 'help-reply')).toEqual([company(REPLY_DEFAULTS.es.help)]);
    expect(await answers(a, await write(a, 'help'), 'help-reply')).toEqual([`Demo Company: help at ${CONTACTS}. Reply STOP to unsubscribe.`]);
  });

  it('a word of two languages takes the language of the number’s country: STOPPEN from the Netherlands is Dutch, from Germany German', async () => {
    const a = await account();
    expect(await answers(a, await write(a, 'Stoppen', '+31612345678'), 'opt-out-confirmation')).toEqual([company(REPLY_DEFAULTS.nl.confirmation)]);
    expect(await answers(a, await write(a, 'Stoppen'), 'opt-out-confirmation')).toEqual([company(REPLY_DEFAULTS.de.confirmation)]);
    expect(await answers(a, await write(a, 'parar', '+5511987654321'), 'opt-out-confirmation')).toEqual([company(REPLY_DEFAULTS.pt.confirmation)]);
  });

  it('an account’s own text for a language is used; STOP keeps the English text (optOutConfirmationText)', async () => {
    const a = await account();
    await t.ctx.services.accounts.updateSettings(a.accountId, {
      optOutConfirmationText: 'Bye from {{company_name}}.',
      consentReplyTexts: { confirmation: { fr: 'Vous êtes désinscrit de {{company_name}}. INSCRIRE pour revenir.' }, help: { fr: '{{company_name}} : {{company_email}}. STOP pour arrêter.' } },
    });
    expect(await answers(a, await write(a, 'ARRÊT'), 'opt-out-confirmation')).toEqual(['Vous êtes désinscrit de Demo Company. INSCRIRE pour revenir.']);
    expect(await answers(a, await write(a, 'AIDE'), 'help-reply')).toEqual(['Demo Company : help@example.com. STOP pour arrêter.']);
    expect(await answers(a, await write(a, 'STOP'), 'opt-out-confirmation')).toEqual(['Bye from Demo Company.']);
    // German has no text of the account's: its default.
    expect(await answers(a, await write(a, 'Abmelden'), 'opt-out-confirmation')).toEqual([company(REPLY_DEFAULTS.de.confirmation)]);
  });

  it('the account’s language answers English words and the sender’s own keyword', async () => {
    const a = await account();
    await t.ctx.services.accounts.updateSettings(a.accountId, { consentReplyLanguage: 'de' });
    expect(await answers(a, await write(a, 'STOP'), 'opt-out-confirmation')).toEqual([company(REPLY_DEFAULTS.de.confirmation)]);
    expect(await answers(a, await write(a, 'INFO'), 'help-reply')).toEqual([company(REPLY_DEFAULTS.de.help)]);
    expect(await answers(a, await write(a, 'ARRET'), 'opt-out-confirmation')).toEqual([company(REPLY_DEFAULTS.fr.confirmation)]);
    const own = (await t.ctx.services.senders.create(a.accountId, { name: 'Own Agent', type: 'RCS', status: 'APPROVED', stopKeyword: 'HALTEN' })).id;
    const p = num(n++);
    clock.advance(1_000);
    await t.reply(p, own, 'Halten!');
    expect(await answers(a, p, 'opt-out-confirmation')).toEqual([company(REPLY_DEFAULTS.de.confirmation)]);
    await t.ctx.services.accounts.updateSettings(a.accountId, { consentReplyLanguage: null });
    expect((await t.ctx.services.accounts.get(a.accountId)).consentReplyLanguage).toBe('en');
  });
});

describe('the settings: validation and partial changes', () => {
  const refused = async (accountId: string, input: unknown): Promise<AppError> => {
    const e = await t.ctx.services.accounts.updateSettings(accountId, input as never).then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  };

  it('an unknown language, an unknown kind, a text too long or a clash with optOutConfirmationText is 400 VALIDATION_ERROR, naming it', async () => {
    const a = await account();
    const unknown = await refused(a.accountId, { consentReplyTexts: { confirmation: { xx: 'Hi' } } });
    expect(unknown.code).toBe('VALIDATION_ERROR');
    expect(unknown.status).toBe(400);
    expect(unknown.details).toEqual([expect.objectContaining({ path: 'consentReplyTexts.confirmation', message: expect.stringMatching(/Unknown language "xx": use one of en, de, fr/) })]);
    expect((await refused(a.accountId, { consentReplyTexts: { goodbye: {} } })).details).toEqual([expect.objectContaining({ path: 'consentReplyTexts', message: expect.stringContaining('confirmation or help') })]);
    const long = await refused(a.accountId, { consentReplyTexts: { help: { de: 'x'.repeat(321) } } });
    expect(long.status).toBe(400);
    expect(long.details).toEqual([expect.objectContaining({ path: 'consentReplyTexts.help.de', code: 'too_long' })]);
    expect((await refused(a.accountId, { consentReplyLanguage: 'klingon' })).details).toEqual([expect.objectContaining({ path: 'consentReplyLanguage' })]);
    expect((await refused(a.accountId, { consentReplyTexts: { help: { fr: 7 } } })).details).toEqual([expect.objectContaining({ path: 'consentReplyTexts.help.fr' })]);
    expect((await refused(a.accountId, { optOutConfirmationText: 'A', consentReplyTexts: { confirmation: { en: 'B' } } })).details).toEqual([
      expect.objectContaining({ path: 'consentReplyTexts.confirmation.en' }),
    ]);
    // Nothing was written.
    expect((await t.ctx.services.accounts.get(a.accountId)).consentReplyTexts).toEqual({ confirmation: {}, help: {} });
    // 320 characters are accepted.
    await t.ctx.services.accounts.updateSettings(a.accountId, { consentReplyTexts: { help: { de: 'x'.repeat(320) } } });
  });

  it('a change keeps the languages it does not name; null or blank restores the default; confirmation.en is optOutConfirmationText', async () => {
    const a = await account();
    const s = t.ctx.services.accounts;
    await s.updateSettings(a.accountId, { consentReplyTexts: { confirmation: { de: 'DE {{company_name}}', fr: 'FR' }, help: { it: 'IT' } } });
    await s.updateSettings(a.accountId, { consentReplyTexts: { confirmation: { fr: null, en: 'EN' }, help: { pl: ' PL ' } } });
    expect(await s.get(a.accountId)).toMatchObject({ optOutConfirmationText: 'EN', consentReplyTexts: { confirmation: { en: 'EN', de: 'DE {{company_name}}' }, help: { it: 'IT', pl: 'PL' } } });
    await s.updateSettings(a.accountId, { optOutConfirmationText: null, consentReplyTexts: { confirmation: { de: '' }, help: { it: null, pl: '' } } });
    expect(await s.get(a.accountId)).toMatchObject({ optOutConfirmationText: null, consentReplyTexts: { confirmation: {}, help: {} } });
    const row = await t.ctx.db.selectFrom('accounts').select(['consent_reply_texts', 'opt_out_confirmation_text']).where('id', '=', a.accountId).executeTakeFirstOrThrow();
    expect(row).toEqual({ consent_reply_texts: null, opt_out_confirmation_text: null });
    // Changes of different languages at the same time both stay.
    await Promise.all([s.updateSettings(a.accountId, { consentReplyTexts: { help: { da: 'DA' } } }), s.updateSettings(a.accountId, { consentReplyTexts: { help: { sv: 'SV' } } })]);
    expect((await s.get(a.accountId)).consentReplyTexts.help).toEqual({ da: 'DA', sv: 'SV' });
  });

  it('are one field per language on the console’s Settings page, the default as placeholder; a refused text is shown again', async () => {
    const a = await account();
    const c = new WebClient(t.url);
    expect((await c.login(a.email, a.password, a.totpSecret, '/console/settings', clock.now())).status).toBe(303);
    const page = (await c.get('/console/settings')).text;
    for (const lang of ['de', 'fr', 'pl']) {
      expect(page).toContain(`name="reply_confirmation_${lang}"`);
      expect(page).toContain(`name="reply_help_${lang}"`);
    }
    expect(page).toContain('name="reply_help_en"');
    expect(page).not.toContain('name="reply_confirmation_en"');
    expect(page).toContain(`placeholder="${REPLY_DEFAULTS.de.confirmation}"`);
    const base = { csrf: WebClient.hidden(page, 'csrf'), name: 'Reply Co', timezone: 'UTC', approvalRequired: 'on', optOutConfirmation: 'on', unsubscribeUrl: '', formPerFormPerHour: '30', formPerFormPerDay: '200', formPerAccountPerHour: '100', formPerAccountPerDay: '1000' };
    for (const [k, v] of Object.entries(PROFILE)) Object.assign(base, { [`profile_${k}`]: v });
    expect((await c.post('/console/settings', { ...base, consentReplyLanguage: 'fr', reply_confirmation_de: 'Tschüss von {{company_name}}.', reply_help_pl: 'Pomoc {{company_name}}' })).status).toBe(303);
    expect(await t.ctx.services.accounts.get(a.accountId)).toMatchObject({ consentReplyLanguage: 'fr', consentReplyTexts: { confirmation: { de: 'Tschüss von {{company_name}}.' }, help: { pl: 'Pomoc {{company_name}}' } } });
    const again = (await c.get('/console/settings')).text;
    expect(again).toContain('>Tschüss von {{company_name}}.</textarea>');
    expect(again).toMatch(/<option value="fr" selected/);
    // A box posted empty restores the default; a box not posted keeps its text.
    expect((await c.post('/console/settings', { ...base, consentReplyLanguage: 'fr', reply_confirmation_de: '' })).status).toBe(303);
    expect((await t.ctx.services.accounts.get(a.accountId)).consentReplyTexts).toEqual({ confirmation: {}, help: { pl: 'Pomoc {{company_name}}' } });
    // The language not posted: kept.
    expect((await c.post('/console/settings', base)).status).toBe(303);
    expect(await t.ctx.services.accounts.get(a.accountId)).toMatchObject({ consentReplyLanguage: 'fr', consentReplyTexts: { confirmation: {}, help: { pl: 'Pomoc {{company_name}}' } } });
    const bad = await c.post('/console/settings', { ...base, consentReplyLanguage: 'fr', reply_help_fr: 'y'.repeat(321) });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('consentReplyTexts.help.fr');
    expect(bad.text).toContain(`>${'y'.repeat(321)}</textarea>`);
    expect((await c.post('/console/settings', { ...base, consentReplyLanguage: 'xx' })).status).toBe(400);
  });
});
