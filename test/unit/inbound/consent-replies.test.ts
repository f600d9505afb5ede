import { describe, expect, it } from 'vitest';
import { CONSENT_LANGUAGES, classifyConsent } from '../../../src/inbound/consent-words.js';
import { consentLanguage, replyLanguage } from '../../../src/inbound/consent-language.js';
import { NO_REPLY_TEXTS, readReplyTexts, REPLY_DEFAULTS, REPLY_KINDS, REPLY_LANGUAGES, replyText, type ReplyAccount } from '../../../src/accounts/reply-texts.js';
import { analyzeSms } from '../../../src/sms/index.js';

/** Issue #42: which language a consent word is, and the confirmation and HELP texts of each language. */

const account = (over: Partial<ReplyAccount> = {}): ReplyAccount => ({
  name: 'Acme account',
  companyProfile: { company_name: 'Demo Company', company_phone: '+49 30 1234567', company_email: 'help@example.com', company_website: 'https://example.com' },
  optOutConfirmationText: null,
  consentReplyTexts: NO_REPLY_TEXTS,
  ...over,
});

describe('consentLanguage', () => {
  it('the reply languages are the word lists’ languages, in the same order', () => {
    expect([...REPLY_LANGUAGES]).toEqual(Object.keys(CONSENT_LANGUAGES));
  });

  it('a word of one list is that language, whatever the country', () => {
    expect(consentLanguage('ARRET')).toBe('fr');
    expect(consentLanguage('STOPP', 'FR')).toBe('de');
    expect(consentLanguage('HILFE')).toBe('de');
    expect(consentLanguage('DARSE DE BAJA')).toBe('es');
    expect(consentLanguage('MELD PA')).toBe('no');
    expect(consentLanguage('HJAELP')).toBe('da');
    expect(consentLanguage('STOP', 'DE')).toBe('en');
    expect(consentLanguage('OPT OUT')).toBe('en');
  });

  it('words of several lists: the country’s language when it speaks one of them, else the first listed', () => {
    expect(consentLanguage('STOPPEN')).toBe('de');
    expect(consentLanguage('STOPPEN', 'DE')).toBe('de');
    expect(consentLanguage('STOPPEN', 'NL')).toBe('nl');
    expect(consentLanguage('STOPPEN', 'BE')).toBe('nl');
    expect(consentLanguage('STOPPEN', 'US')).toBe('de');
    expect(consentLanguage('PARAR')).toBe('es');
    expect(consentLanguage('PARAR', 'br')).toBe('pt');
    expect(consentLanguage('CANCELAR', 'PT')).toBe('pt');
    expect(consentLanguage('CANCELAR', 'MX')).toBe('es');
  });

  it('a word of no list (the sender’s own keyword or words) is none; filler words are not a language', () => {
    expect(consentLanguage('ABMELDUNG JETZT')).toBeNull();
    expect(consentLanguage('XYZZY')).toBeNull();
    expect(consentLanguage('BITTE')).toBeNull();
    expect(consentLanguage('')).toBeNull();
  });

  it('every listed word and phrase that classifies is a language whose list holds it', () => {
    for (const lang of REPLY_LANGUAGES) {
      const l = CONSENT_LANGUAGES[lang];
      for (const w of [...l.optOut, ...l.sentence, ...l.optIn, ...l.help]) {
        const intent = classifyConsent(w);
        expect(intent, w).not.toBeNull();
        const found = consentLanguage(intent!.word)!;
        expect(found, w).not.toBeNull();
        const inList = (c: typeof found) => Object.entries(CONSENT_LANGUAGES[c]).some(([role, list]) => role !== 'filler' && (list as readonly string[]).includes(intent!.word));
        expect(inList(found), `${w} → ${found}`).toBe(true);
        // With the list's own country, the language is the list's.
        const country = { en: 'US', de: 'DE', fr: 'FR', es: 'ES', it: 'IT', nl: 'NL', da: 'DK', sv: 'SE', no: 'NO', fi: 'FI', pl: 'PL', pt: 'PT' }[lang];
        expect(consentLanguage(intent!.word, country), `${w} from ${country}`).toBe(lang);
      }
    }
  });

  it('replyLanguage: English words and words of no list take the account’s language', () => {
    expect(replyLanguage('STOP', 'DE', 'en')).toBe('en');
    expect(replyLanguage('STOP', 'DE', 'de')).toBe('de');
    expect(replyLanguage('HELP', null, 'fr')).toBe('fr');
    expect(replyLanguage('MY OWN WORD', null, 'it')).toBe('it');
    expect(replyLanguage('ARRET', null, 'de')).toBe('fr');
    expect(replyLanguage('STOPPEN', 'NL', 'en')).toBe('nl');
  });
});

describe('default reply texts', () => {
  // A company name of 20 characters and three contact details of 60 in all.
  const long = account({ companyProfile: { company_name: 'Twenty Characters Co', company_phone: '+49 30 12345678', company_email: 'service@example.com', company_website: 'https://www.example.de' } });

  it('every language has both texts, each naming the company, in GSM-7 and one SMS', () => {
    for (const lang of REPLY_LANGUAGES) {
      for (const kind of REPLY_KINDS) {
        const text = replyText(kind, lang, long, 'STOP');
        expect(text, `${lang} ${kind}`).toContain('Twenty Characters Co');
        expect(text, `${lang} ${kind}`).not.toMatch(/\{\{/);
        const a = analyzeSms(text);
        expect(a.unicodeCharacters, `${lang} ${kind}: ${text}`).toEqual([]);
        expect(a.encoding).toBe('GSM-7');
        expect(text.length, `${lang} ${kind}: ${text}`).toBeLessThanOrEqual(160);
        expect(a.segments).toBe(1);
      }
      expect(analyzeSms(replyText('help', lang, account({ companyProfile: { company_name: 'Twenty Characters Co' } }), 'STOP')).segments).toBe(1);
    }
  });

  it('each confirmation names its language’s re-subscribe word and each HELP a stop word, both read back as such', () => {
    for (const lang of REPLY_LANGUAGES) {
      // The words written in capitals ("MELD PÅ" is one).
      const capitals = (t: string) => t.match(/\p{Lu}{2,}(?: \p{Lu}{2,})*/gu) ?? [];
      const resub = capitals(REPLY_DEFAULTS[lang].confirmation).filter((w) => classifyConsent(w)?.kind === 'opt_in');
      expect(resub, lang).toHaveLength(1);
      expect(replyLanguage(classifyConsent(resub[0]!)!.word, null, 'en'), lang).toBe(lang);
      const help = replyText('help', lang, account(), 'STOP');
      const stop = capitals(help).filter((w) => classifyConsent(w)?.kind === 'opt_out');
      expect(stop, `${lang}: ${help}`).toHaveLength(1);
    }
  });

  it('English keeps the texts of issue #28; HELP names the sender’s keyword and only the contacts that are set', () => {
    expect(replyText('confirmation', 'en', account(), 'STOP')).toBe('You are unsubscribed from Demo Company, no more messages. Reply START to resubscribe.');
    expect(replyText('help', 'en', account(), 'ABMELDEN')).toBe('Demo Company: help at +49 30 1234567, help@example.com, https://example.com. Reply ABMELDEN to unsubscribe.');
    expect(replyText('help', 'en', account({ companyProfile: { company_email: ' a@b.example ' } }), 'STOP')).toBe('Acme account: help at a@b.example. Reply STOP to unsubscribe.');
    expect(replyText('help', 'en', account({ companyProfile: {} }), 'STOP')).toBe('Acme account. Reply STOP to unsubscribe.');
    expect(replyText('help', 'de', account({ companyProfile: {} }), 'STOP')).toBe('Acme account: Antworten Sie STOPP, um sich abzumelden.');
  });
});

describe('an account’s own texts', () => {
  it('replace the default of their language only; the English confirmation is opt_out_confirmation_text', () => {
    const a = account({
      optOutConfirmationText: 'Bye from {{company_name}}.',
      consentReplyTexts: { confirmation: { fr: 'Au revoir de {{ company_name }}.' }, help: { de: '{{company_name}} hilft: {{company_contacts}}; {{company_email}}; {{stop_keyword}}; {{unknown}}' } },
    });
    expect(replyText('confirmation', 'en', a, 'STOP')).toBe('Bye from Demo Company.');
    expect(replyText('confirmation', 'fr', a, 'STOP')).toBe('Au revoir de Demo Company.');
    expect(replyText('confirmation', 'de', a, 'STOP')).toBe(REPLY_DEFAULTS.de.confirmation.replace('{{company_name}}', 'Demo Company'));
    expect(replyText('help', 'de', a, 'HALT')).toBe('Demo Company hilft: +49 30 1234567, help@example.com, https://example.com; help@example.com; HALT; {{unknown}}');
    expect(replyText('help', 'fr', a, 'STOP')).toBe('Aide Demo Company : +49 30 1234567, help@example.com, https://example.com. Répondez STOP pour vous désinscrire.');
  });

  it('a value holding a placeholder is not replaced again', () => {
    const a = account({ companyProfile: { company_name: '{{stop_keyword}} Ltd' } });
    expect(replyText('confirmation', 'en', a, 'STOP')).toBe('You are unsubscribed from {{stop_keyword}} Ltd, no more messages. Reply START to resubscribe.');
  });

  it('readReplyTexts keeps known languages’ texts and drops anything else', () => {
    expect(readReplyTexts('{"confirmation":{"de":"x","xx":"y","fr":7,"it":""},"help":{"pl":"z"},"other":{}}')).toEqual({ confirmation: { de: 'x' }, help: { pl: 'z' } });
    expect(readReplyTexts('not json')).toEqual(NO_REPLY_TEXTS);
    expect(readReplyTexts(null)).toEqual(NO_REPLY_TEXTS);
  });
});
