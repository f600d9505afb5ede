import { readStopRequest, type StopReason } from './stop-requests.js';

/**
 * What an incoming message means for consent (issue #28, DESIGN §5 item 10): opt out, opt back in,
 * ask for help, or nothing. Pure and deterministic: the word lists below and three rules.
 *
 * Folding (foldWords): Unicode compatibility form, accents removed (ARRÊT → ARRET, HJÄLP → HJALP),
 * ß → SS, Æ → AE, Ø → O, Ł → L, Œ → OE, upper case; apostrophes dropped (DON'T → DONT, S'IL → SIL);
 * every other punctuation, symbol, quote or emoji is a word break; blanks collapsed.
 *
 * Rules, in this order (classify):
 * 1. The whole message is the sender's trigger (senders.stop_keyword) or an opt-out word or phrase
 *    of any language below → opt out. ("Stop", " STOP! ", "Arrêt", "opt-out", "“Abmelden!”")
 * 2. The whole message is a re-subscribe word → opt in; a help word → help.
 * 3. A short sentence that clearly asks to stop → opt out: at most SENTENCE_MAX_WORDS words, at
 *    least one of them a SENTENCE_WORDS word (or the trigger), and every other word a FILLER word
 *    (politeness, pronouns, "messages/texting", "want"). Nothing else: a word outside these lists —
 *    a negation ("don't stop", "nicht stoppen"), a time ("stop by tomorrow at 5"), a number, a
 *    noun ("cancel my order") — makes the message an ordinary reply. Long messages never opt out.
 *    Only the words that mean nothing but "stop messaging" count in sentences: END, QUIT, CANCEL,
 *    BAJA-like words that also have other meanings opt out only as the whole message.
 * 4. Otherwise stop-requests.ts reads the message as a person would (issue #42): a stop word at its start or end that is
 *    not negated or asked about, or a request to remove, unsubscribe or not be texted ("remove me", "don't text me",
 *    "leave me alone") opts out; a stop word anywhere else, a request the message contradicts ("Stop? I want these
 *    messages") or a complaint ("wrong number", "spam") is for a person to review (kind review).
 * The languages mixed: a reply is matched against the union of all lists (a German customer may
 * answer an English message), which the lists allow because no word is in two roles.
 *
 * Sources: US — CTIA Messaging Principles and Best Practices (2023) and the FCC TCPA revocation
 * order (FCC 24-24, in force April 2025): STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE,
 * OPT OUT; START/UNSTOP and HELP/INFO from CTIA. Other languages: the opt-out and help keywords
 * carriers and messaging providers document per country (e.g. STOPP/ABMELDEN in DE, STOP/ARRET in FR
 * after the French SMS+ code of conduct, BAJA in ES, AFMELD in DK, AVSLUTA in SE, AVSLUTT in NO,
 * LOPETA in FI, REZYGNUJ in PL, SAIR/PARAR in PT/BR), plus the verbs a person writes in a sentence.
 * docs/decisions.md "Consent words" records the choices.
 */

/**
 * opt_out: the message asks to stop (rules 1 and 3, or a clear stop request of stop-requests.ts); review: it may be a
 * request to stop (a stop word inside, a contradicted request, a complaint) — marketing to the number pauses and a
 * person decides.
 */
export type ConsentIntent =
  | { kind: 'opt_out'; word: string }
  | { kind: 'opt_in'; word: string }
  | { kind: 'help'; word: string }
  | { kind: 'review'; word: string; reason: StopReason };

/** A sentence longer than this never opts out (rule 3). */
export const SENTENCE_MAX_WORDS = 6;

interface Language {
  /** Opt out as the whole message only (rule 1). */
  optOut: readonly string[];
  /** Opt out as the whole message and inside a short sentence (rules 1 and 3). */
  sentence: readonly string[];
  optIn: readonly string[];
  help: readonly string[];
  /** Words a short stop sentence may also hold (rule 3). */
  filler: readonly string[];
}

/** The word lists, folded (see foldWords). Multi-word phrases are written with one blank. */
export const CONSENT_LANGUAGES: Readonly<Record<'en' | 'de' | 'fr' | 'es' | 'it' | 'nl' | 'da' | 'sv' | 'no' | 'fi' | 'pl' | 'pt', Language>> = {
  en: {
    // The US set (CTIA / FCC): STOP, STOPALL, QUIT, END, REVOKE, OPT OUT, CANCEL, UNSUBSCRIBE.
    optOut: ['QUIT', 'END', 'REVOKE', 'CANCEL', 'OPTOUT'],
    sentence: ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'OPT OUT'],
    optIn: ['START', 'UNSTOP', 'SUBSCRIBE'],
    help: ['HELP', 'INFO'],
    filler: ['PLEASE', 'PLS', 'PLZ', 'KINDLY', 'ME', 'MY', 'I', 'WANT', 'TO', 'NOW', 'THANKS', 'THANK', 'YOU', 'THX', 'TEXTING', 'TEXT', 'TEXTS', 'MESSAGING', 'MESSAGE', 'MESSAGES', 'MSGS', 'SMS', 'SENDING', 'ALL', 'OF', 'FROM', 'THIS', 'THESE', 'LIST'],
  },
  de: {
    optOut: ['ENDE', 'AUSTRAGEN', 'KUNDIGEN'],
    sentence: ['STOPP', 'STOPPEN', 'ABMELDEN', 'ABBESTELLEN', 'AUFHOREN'],
    optIn: ['ANMELDEN'],
    help: ['HILFE'],
    // KEINE … MEHR: "Stopp, keine Nachrichten mehr"; a verb's negation (NICHT) is not a filler word.
    filler: ['BITTE', 'DANKE', 'MICH', 'MIR', 'ICH', 'WILL', 'MOCHTE', 'SOFORT', 'JETZT', 'KEINE', 'MEHR', 'NACHRICHTEN', 'NACHRICHT', 'SMS', 'SENDEN', 'SCHICKEN', 'ALLES'],
  },
  fr: {
    optOut: ['DESINSCRIPTION', 'DESABONNEMENT'],
    sentence: ['ARRET', 'ARRETER', 'ARRETEZ', 'ARRETE', 'DESINSCRIRE', 'DESINSCRIVEZ', 'DESABONNER', 'DESABONNEZ'],
    optIn: ['INSCRIRE'],
    help: ['AIDE'],
    filler: ['SVP', 'STP', 'SIL', 'VOUS', 'TE', 'PLAIT', 'MERCI', 'MOI', 'ME', 'JE', 'VEUX', 'VOUDRAIS', 'ENVOYER', 'MENVOYER', 'MESSAGES', 'MESSAGE', 'SMS', 'TOUT', 'TOUS'],
  },
  es: {
    optOut: ['CANCELAR', 'ANULAR', 'DARSE DE BAJA', 'DAR DE BAJA'],
    sentence: ['BAJA', 'PARAR', 'DETENER'],
    optIn: ['ALTA'],
    help: ['AYUDA'],
    filler: ['POR', 'FAVOR', 'PORFA', 'GRACIAS', 'ME', 'MIS', 'YO', 'QUIERO', 'DE', 'DAR', 'DARME', 'MENSAJES', 'MENSAJE', 'SMS', 'YA'],
  },
  it: {
    optOut: ['ANNULLA', 'CANCELLA'],
    sentence: ['BASTA', 'DISISCRIVI', 'DISISCRIVIMI', 'DISISCRIVERE'],
    optIn: ['ISCRIVI'],
    help: ['AIUTO'],
    filler: ['PER', 'FAVORE', 'PERFAVORE', 'GRAZIE', 'MI', 'MIEI', 'VOGLIO', 'MESSAGGI', 'SMS'],
  },
  nl: {
    optOut: ['UITSCHRIJVING'],
    sentence: ['STOPPEN', 'AFMELDEN', 'UITSCHRIJVEN'],
    optIn: ['AANMELDEN'],
    help: ['HULP'],
    filler: ['AUB', 'ALSJEBLIEFT', 'ALSTUBLIEFT', 'BEDANKT', 'DANK', 'JE', 'MIJ', 'ME', 'MIJN', 'IK', 'WIL', 'GRAAG', 'BERICHTEN', 'SMS'],
  },
  da: {
    optOut: ['AFMELDING'],
    sentence: ['AFMELD', 'FRAMELD'],
    optIn: ['TILMELD'],
    help: ['HJAELP'],
    filler: ['TAK', 'VENLIGST', 'MIG', 'MINE', 'JEG', 'VIL', 'BESKEDER', 'SMS'],
  },
  sv: {
    optOut: ['AVANMAL'],
    sentence: ['STOPPA', 'AVSLUTA', 'AVREGISTRERA'],
    optIn: ['STARTA'],
    help: ['HJALP'],
    filler: ['TACK', 'SNALLA', 'MIG', 'MINA', 'JAG', 'VILL', 'MEDDELANDEN', 'SMS'],
  },
  no: {
    optOut: ['MELD AV'],
    sentence: ['AVSLUTT', 'AVMELD'],
    optIn: ['MELD PA'],
    help: ['HJELP'],
    filler: ['TAKK', 'VENNLIGST', 'MEG', 'MINE', 'JEG', 'VIL', 'MELDINGER', 'SMS'],
  },
  fi: {
    optOut: ['PERUUTA'],
    sentence: ['LOPETA', 'LOPETTAKAA'],
    optIn: ['ALOITA'],
    help: ['APUA'],
    filler: ['KIITOS', 'VIESTIT', 'VIESTEJA', 'TEKSTIVIESTIT', 'SMS'],
  },
  pl: {
    optOut: ['ANULUJ', 'KONIEC'],
    sentence: ['REZYGNUJ', 'WYPISZ', 'WYPISZCIE'],
    optIn: ['WZNOW'],
    help: ['POMOC'],
    filler: ['PROSZE', 'DZIEKUJE', 'MNIE', 'MI', 'CHCE', 'WIADOMOSCI', 'SMS'],
  },
  pt: {
    optOut: ['SAIR', 'CANCELAR'],
    sentence: ['PARAR', 'PARE', 'PAREM', 'DESCADASTRAR'],
    optIn: ['VOLTAR'],
    help: ['AJUDA'],
    filler: ['POR', 'FAVOR', 'OBRIGADO', 'OBRIGADA', 'ME', 'MINHAS', 'EU', 'QUERO', 'MENSAGENS', 'SMS'],
  },
};

const langs = Object.values(CONSENT_LANGUAGES);
/** Opt out inside a short sentence (rule 3), and as the whole message. */
export const SENTENCE_WORDS: ReadonlySet<string> = new Set(['STOP', ...langs.flatMap((l) => l.sentence)]);
/** Every opt-out word and phrase (rule 1). */
export const OPT_OUT_WORDS: ReadonlySet<string> = new Set([...SENTENCE_WORDS, ...langs.flatMap((l) => l.optOut)]);
export const OPT_IN_WORDS: ReadonlySet<string> = new Set(langs.flatMap((l) => l.optIn));
export const HELP_WORDS: ReadonlySet<string> = new Set(langs.flatMap((l) => l.help));
export const FILLER_WORDS: ReadonlySet<string> = new Set(langs.flatMap((l) => l.filler));

const SPECIAL: Readonly<Record<string, string>> = { ß: 'SS', ẞ: 'SS', æ: 'AE', Æ: 'AE', ø: 'O', Ø: 'O', ł: 'L', Ł: 'L', œ: 'OE', Œ: 'OE', đ: 'D', Đ: 'D' };

/** The message as words: folded as described above. "  Arrêtez, s'il vous plaît! " → ["ARRETEZ", "SIL", "VOUS", "PLAIT"]. */
export function foldWords(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ßẞæÆøØłŁœŒđĐ]/g, (c) => SPECIAL[c] ?? c)
    .replace(/['’‘`´]/g, '')
    .toUpperCase();
  return folded.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
}

/** The folded message as one string, words joined by one blank ("opt-out!" → "OPT OUT"). */
export function foldText(text: string): string {
  return foldWords(text).join(' ');
}

/**
 * A sender's own words (senders.consent_words, edited on the console's Senders page), beside the
 * lists above, which always apply: a sender can add words, never take the US set or a language's
 * words away. Folded; each matches as the whole message only (rules 1 and 2), never inside a sentence.
 */
export interface SenderWords {
  optOut: readonly string[];
  optIn: readonly string[];
  help: readonly string[];
}

export const NO_SENDER_WORDS: SenderWords = Object.freeze({ optOut: [], optIn: [], help: [] });

/** At most this many words of each kind per sender, each at most SENDER_WORD_MAX_LENGTH characters and 3 words. */
export const SENDER_WORDS_MAX = 20;
export const SENDER_WORD_MAX_LENGTH = 30;
const SENDER_WORD_MAX_WORDS = 3;

export type SenderWordsCheck = { ok: true; words: SenderWords } | { ok: false; problems: string[] };

type Role = keyof SenderWords;
const ROLES: readonly Role[] = ['optOut', 'optIn', 'help'];
const ROLE_NAMES: Readonly<Record<Role, string>> = { optOut: 'an opt-out', optIn: 'a re-subscribe', help: 'a help' };

/**
 * The words a person typed for a sender, folded and checked (one place for the console and any
 * other door): a word may be neither what the lists and rules make another role (the trigger and
 * short stop sentences included), nor one of the sender's words of another role — so a reply means one thing. A word already listed
 * for the same role is dropped (it applies anyway).
 */
export function checkSenderWords(input: Readonly<Record<Role, readonly string[]>>, trigger: string): SenderWordsCheck {
  // What the lists and rules alone make of a word (a stop sentence such as "STOP PLEASE" is an opt-out too).
  const KIND: Readonly<Record<Role, ConsentIntent['kind']>> = { optOut: 'opt_out', optIn: 'opt_in', help: 'help' };
  const listed: Readonly<Record<Role, (w: string) => boolean>> = {
    optOut: (w) => classifyConsent(w, trigger)?.kind === KIND.optOut,
    optIn: (w) => classifyConsent(w, trigger)?.kind === KIND.optIn,
    help: (w) => classifyConsent(w, trigger)?.kind === KIND.help,
  };
  const problems: string[] = [];
  const out: Record<Role, string[]> = { optOut: [], optIn: [], help: [] };
  const shown = (raw: string) => JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
  for (const role of ROLES) {
    for (const raw of input[role]) {
      if (raw.trim() === '') continue;
      const w = foldText(raw);
      if (w === '') problems.push(`${shown(raw)} has no letters or digits`);
      else if (w.length > SENDER_WORD_MAX_LENGTH) problems.push(`${shown(raw)} is longer than ${SENDER_WORD_MAX_LENGTH} characters`);
      else if (w.split(' ').length > SENDER_WORD_MAX_WORDS) problems.push(`${shown(raw)} has more than ${SENDER_WORD_MAX_WORDS} words`);
      else if (listed[role](w) || out[role].includes(w)) continue;
      else {
        const clash = ROLES.find((other) => other !== role && (listed[other](w) || out[other].includes(w)));
        if (clash) problems.push(`"${w}" is already ${ROLE_NAMES[clash]} word, so it cannot be ${ROLE_NAMES[role]} word`);
        else out[role].push(w);
      }
    }
    if (out[role].length > SENDER_WORDS_MAX) problems.push(`At most ${SENDER_WORDS_MAX} ${ROLE_NAMES[role].replace(/^an? /, '')} words per sender`);
  }
  return problems.length ? { ok: false, problems } : { ok: true, words: out };
}

/**
 * What a message means for consent, or null (an ordinary reply). `trigger` is the sender's own
 * keyword (senders.stop_keyword), which opts out like the listed words; `own` the sender's own words.
 */
export function classifyConsent(text: string, trigger: string | null = null, own: SenderWords = NO_SENDER_WORDS): ConsentIntent | null {
  const exact = exactConsent(text, trigger, own);
  const words = foldWords(text);
  const trig = trigger ? foldText(trigger) : '';
  const request = readStopRequest(words, text, (w) => SENTENCE_WORDS.has(w) || REVIEW_WORDS.has(w) || (trig !== '' && w === trig));
  // A short stop sentence (rule 3) the message itself asks about or contradicts ("Stop? I want these messages": every
  // word a filler word) is for a person; a single listed word is always an opt-out (CTIA).
  if (exact?.kind === 'opt_out' && words.length > 1 && request?.tier === 'review') return { kind: 'review', word: request.word, reason: request.reason };
  if (exact) return exact;
  if (!request) return null;
  return request.tier === 'clear' ? { kind: 'opt_out', word: request.word } : { kind: 'review', word: request.word, reason: request.reason };
}

/** Opt-out words that are stop words wherever they stand (rule 4), beside the sentence words: the US set's REVOKE and OPTOUT. */
const REVIEW_WORDS: ReadonlySet<string> = new Set(['REVOKE', 'OPTOUT']);

/** Rules 1 to 3: the listed words as the whole message, and short stop sentences. */
function exactConsent(text: string, trigger: string | null, own: SenderWords): ConsentIntent | null {
  const words = foldWords(text);
  if (words.length === 0) return null;
  const whole = words.join(' ');
  const trig = trigger ? foldText(trigger) : '';
  if (whole === trig || OPT_OUT_WORDS.has(whole) || OPT_OUT_WORDS.has(words.join('')) || own.optOut.includes(whole)) return { kind: 'opt_out', word: whole };
  if (OPT_IN_WORDS.has(whole) || own.optIn.includes(whole)) return { kind: 'opt_in', word: whole };
  if (HELP_WORDS.has(whole) || own.help.includes(whole)) return { kind: 'help', word: whole };
  if (words.length > SENTENCE_MAX_WORDS) return null;
  // Rule 3: two-word sentence words ("OPT OUT") are read as one before the words are checked.
  let found: string | null = null;
  for (let i = 0; i < words.length; i++) {
    const pair = i + 1 < words.length ? `${words[i]} ${words[i + 1]}` : null;
    if (pair !== null && (SENTENCE_WORDS.has(pair) || pair === trig)) {
      found ??= pair;
      i++;
      continue;
    }
    const w = words[i]!;
    if (SENTENCE_WORDS.has(w) || w === trig) found ??= w;
    else if (!FILLER_WORDS.has(w)) return null;
  }
  return found === null ? null : { kind: 'opt_out', word: found };
}

/** senders.consent_words as stored (JSON written by SendersService.setConsentWords); anything unreadable is none. */
export function readSenderWords(stored: string | null | undefined): SenderWords {
  if (!stored || stored === '{}') return NO_SENDER_WORDS;
  try {
    const v = JSON.parse(stored) as Partial<Record<keyof SenderWords, unknown>>;
    const list = (x: unknown): string[] => (Array.isArray(x) ? x.filter((w): w is string => typeof w === 'string') : []);
    return { optOut: list(v.optOut), optIn: list(v.optIn), help: list(v.help) };
  } catch {
    return NO_SENDER_WORDS;
  }
}
