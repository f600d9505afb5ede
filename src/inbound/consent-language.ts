import { REPLY_LANGUAGES, type ReplyLanguage } from '../accounts/reply-texts.js';
import { CONSENT_LANGUAGES } from './consent-words.js';

/*
 * Which language a consent word is (issue #42), so its confirmation or HELP answer is written in it. Pure.
 *
 * A word (ConsentIntent.word: folded, upper case, phrases with one blank) belongs to the languages whose lists
 * (src/inbound/consent-words.ts) hold it, filler words aside. A word in one list is that language, whatever the
 * number. A word in several (STOPPEN de and nl, PARAR and CANCELAR es and pt) is the language of the sender's number's
 * country when that country speaks one of them (COUNTRY_LANGUAGES: a Dutch number's STOPPEN is Dutch), else the first
 * of them in the lists' order (de before nl, es before pt). docs/decisions.md "Consent replies in the word's language".
 */

export type LanguageCode = ReplyLanguage;

/** Every list of a language except its filler words (which never trigger anything on their own). */
function wordsOf(lang: (typeof CONSENT_LANGUAGES)[LanguageCode]): string[] {
  return Object.entries(lang)
    .filter(([role, list]) => role !== 'filler' && Array.isArray(list))
    .flatMap(([, list]) => (list as unknown[]).filter((w): w is string => typeof w === 'string'));
}

/** Word → its languages, in the lists' order. */
const LANGUAGES_OF: ReadonlyMap<string, readonly LanguageCode[]> = (() => {
  const m = new Map<string, LanguageCode[]>();
  for (const code of REPLY_LANGUAGES) {
    for (const w of wordsOf(CONSENT_LANGUAGES[code])) {
      const list = m.get(w) ?? [];
      if (!list.includes(code)) list.push(code);
      m.set(w, list);
    }
  }
  return m;
})();

/**
 * The languages of the twelve spoken in a country (ISO 3166-1 alpha-2), most spoken first. Only used to choose
 * between the languages of a word in several lists, so a country missing here only means "the first listed".
 */
export const COUNTRY_LANGUAGES: Readonly<Record<string, readonly LanguageCode[]>> = {
  DE: ['de'], AT: ['de'], LI: ['de'], CH: ['de', 'fr', 'it'], LU: ['fr', 'de'], BE: ['nl', 'fr', 'de'],
  FR: ['fr'], MC: ['fr'], CA: ['en', 'fr'],
  NL: ['nl'], SR: ['nl'], AW: ['nl'], CW: ['nl'], SX: ['nl'],
  ES: ['es'], MX: ['es'], AR: ['es'], CO: ['es'], CL: ['es'], PE: ['es'], VE: ['es'], EC: ['es'], GT: ['es'], CU: ['es'],
  BO: ['es'], DO: ['es'], HN: ['es'], PY: ['es'], SV: ['es'], NI: ['es'], CR: ['es'], PA: ['es'], UY: ['es'], PR: ['es', 'en'],
  GQ: ['es'], AD: ['es', 'fr'],
  PT: ['pt'], BR: ['pt'], AO: ['pt'], MZ: ['pt'], CV: ['pt'], GW: ['pt'], ST: ['pt'], TL: ['pt'], MO: ['pt'],
  IT: ['it'], SM: ['it'], VA: ['it'],
  DK: ['da'], GL: ['da'], FO: ['da'],
  SE: ['sv'], AX: ['sv'], FI: ['fi', 'sv'],
  NO: ['no'], SJ: ['no'],
  PL: ['pl'],
  US: ['en'], GB: ['en'], IE: ['en'], AU: ['en'], NZ: ['en'],
};

/**
 * The language of a matched consent word or phrase (ConsentIntent.word), or null when no list holds it (the
 * sender's own keyword or words). `country` is the sender's number's country (ISO alpha-2), used for words in several
 * languages' lists only.
 */
export function consentLanguage(word: string, country: string | null = null): LanguageCode | null {
  const langs = LANGUAGES_OF.get(word);
  if (!langs || langs.length === 0) return null;
  if (langs.length === 1 || !country) return langs[0]!;
  const spoken = COUNTRY_LANGUAGES[country.toUpperCase()] ?? [];
  return spoken.find((l) => langs.includes(l)) ?? langs[0]!;
}

/**
 * The language to answer a consent word in: the word's own language, except that English words (STOP is the
 * international keyword, written by people of every language) and words of no list (the sender's own keyword or
 * words) take the account's language (accounts.consent_reply_language, English unless set).
 */
export function replyLanguage(word: string, country: string | null, accountLanguage: LanguageCode): LanguageCode {
  const l = consentLanguage(word, country);
  return l === null || l === 'en' ? accountLanguage : l;
}
