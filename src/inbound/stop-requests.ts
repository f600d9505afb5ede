/**
 * Requests to stop written as a person writes them (issue #42): "STOP. Don't text me again", "remove me from your
 * list", "Leave me alone", "Stopp! Ich will mehr Nachrichten". The FCC's revocation order (FCC 24-24, in force April
 * 2025) says a revocation "by any reasonable means" must be honoured; a word list alone misses most of them. Two tiers,
 * read after consent-words.ts's exact rules (the whole message is a listed word, a short stop sentence):
 *
 * - **clear** (opt out at once):
 *   - the message starts or ends with a stop word (STOP, UNSUBSCRIBE, STOPP, ARRÊTEZ, BAJA, … or the sender's
 *     trigger) that is not negated, not asked about ("Stop?"), not a place ("bus stop", "stop by"), in a message of at
 *     most CLEAR_EDGE_MAX_WORDS words;
 *   - or it holds a request to remove, unsubscribe or not be texted ("remove me", "opt me out", "don't text me",
 *     "no more messages", "leave me alone", "keine Nachrichten mehr", "ne m'envoyez plus", …) that is not negated
 *     ("don't remove me").
 *   Either is void when the message also says the opposite ("I want these messages", "ich will mehr Nachrichten",
 *   "don't stop", "keep them coming"): that is for a person.
 * - **review** (marketing paused at once, a person decides): a stop word or phrase anywhere, a clear form voided as
 *   above, or a complaint ("wrong number", "spam", "who is this", "not interested", "harassment", a lawyer).
 *
 * Pure: words in, a verdict out. The words are consent-words.ts's folded form (upper case, accents and apostrophes
 * removed, punctuation a word break); the raw text is read only for a question mark right after a stop word.
 * docs/consent.md lists what each tier holds; docs/decisions.md "Two tiers of stop requests" why.
 */

export type StopTier = 'clear' | 'review';

/** Why a message is (or may be) a request to stop: shown to the person who reviews it. */
export type StopReason =
  /** Starts or ends with a stop word. */
  | 'stop_word_edge'
  /** Holds a request to remove, unsubscribe or not be texted. */
  | 'stop_phrase'
  /** A stop word or phrase elsewhere in the message. */
  | 'stop_word_inside'
  /** A stop request the message also contradicts or negates. */
  | 'contradicted'
  /** A complaint: wrong number, spam, harassment, not interested, a lawyer. */
  | 'complaint';

export interface StopRequest {
  tier: StopTier;
  reason: StopReason;
  /** The word or phrase it was recognised by, folded ("STOP", "REMOVE ME", "WRONG NUMBER"). */
  word: string;
}

/** A message longer than this is not read as a stop request by its first or last word alone (it goes to review). */
export const CLEAR_EDGE_MAX_WORDS = 12;

const phrases = (...list: string[]): string[][] => list.map((p) => p.split(' '));

/**
 * Requests to remove, unsubscribe or not be texted, folded, by language. Matched as consecutive words anywhere in the
 * message. A phrase is listed only when it means nothing but "stop messaging me".
 */
export const STOP_PHRASES: readonly string[][] = phrases(
  // en
  'REMOVE ME', 'REMOVE MY NUMBER', 'REMOVE THIS NUMBER', 'TAKE ME OFF', 'TAKE MY NUMBER OFF', 'UNSUBSCRIBE ME', 'OPT ME OUT',
  'DONT TEXT', 'DO NOT TEXT', 'DONT MESSAGE', 'DO NOT MESSAGE', 'DONT CONTACT', 'DO NOT CONTACT', 'DONT SEND ME', 'DO NOT SEND ME',
  'DONT EVER TEXT', 'NEVER TEXT ME', 'NEVER MESSAGE ME', 'NEVER CONTACT ME', 'NO MORE TEXTS', 'NO MORE TEXT', 'NO MORE MESSAGES',
  'NO MORE SMS', 'NO MORE MSGS', 'STOP TEXTING', 'STOP MESSAGING', 'STOP SENDING', 'STOP CONTACTING', 'QUIT TEXTING',
  'QUIT MESSAGING', 'QUIT SENDING', 'LEAVE ME ALONE', 'LOSE MY NUMBER', 'DELETE MY NUMBER', 'DELETE ME', 'CANCEL MY SUBSCRIPTION',
  'END MY SUBSCRIPTION', 'UNSUBSCRIBE MY NUMBER', 'OFF YOUR LIST', 'OFF THIS LIST',
  // de
  'KEINE SMS MEHR', 'KEINE NACHRICHTEN MEHR', 'NICHT MEHR SCHREIBEN', 'NICHT MEHR ANSCHREIBEN', 'SCHREIBEN SIE MIR NICHT', 'SCHREIBT MIR NICHT',
  'NICHT MEHR KONTAKTIEREN', 'LASST MICH IN RUHE', 'LASSEN SIE MICH IN RUHE',
  'ENTFERNEN SIE MICH', 'ENTFERNT MICH', 'LOSCHEN SIE MEINE NUMMER', 'LOSCHT MEINE NUMMER', 'MELDEN SIE MICH AB', 'MICH ABMELDEN',
  'HOREN SIE AUF',
  // fr
  'NE MENVOYEZ PLUS', 'NENVOYEZ PLUS', 'PLUS DE SMS', 'PLUS DE MESSAGES', 'ARRETEZ DE MENVOYER', 'ARRETEZ DENVOYER', 'LAISSEZ MOI TRANQUILLE',
  'FICHEZ MOI LA PAIX', 'RETIREZ MOI', 'SUPPRIMEZ MOI', 'SUPPRIMEZ MON NUMERO', 'DESINSCRIVEZ MOI', 'NE PLUS RECEVOIR',
  // es
  'NO ME ENVIEN', 'NO ME MANDEN', 'NO ME ESCRIBAN', 'NO MAS MENSAJES', 'NO MAS SMS', 'DEJEN DE ESCRIBIRME', 'DEJEN DE ENVIARME',
  'DEJEN DE MANDARME', 'DEJENME EN PAZ', 'ELIMINENME', 'BORRENME', 'QUITENME DE LA LISTA', 'ELIMINEN MI NUMERO', 'DARME DE BAJA',
  // it
  'NON SCRIVETEMI', 'NON MANDATEMI', 'NON INVIATEMI', 'NON VOGLIO PIU', 'BASTA MESSAGGI', 'TOGLIETEMI', 'CANCELLATEMI', 'RIMUOVETEMI',
  'LASCIATEMI IN PACE', 'NIENTE PIU MESSAGGI',
  // nl
  'GEEN BERICHTEN MEER', 'GEEN SMS MEER', 'STUUR ME GEEN', 'STUUR MIJ GEEN', 'HAAL ME VAN', 'HAAL MIJ VAN', 'VERWIJDER MIJ', 'VERWIJDER ME',
  'VERWIJDER MIJN NUMMER', 'LAAT ME MET RUST', 'LAAT MIJ MET RUST', 'MELD ME AF', 'MELD MIJ AF',
  // da
  'INGEN FLERE BESKEDER', 'INGEN FLERE SMS', 'FJERN MIG', 'FJERN MIT NUMMER', 'LAD MIG VAERE', 'MELD MIG AF', 'STOP MED AT SENDE',
  // sv
  'INGA FLER MEDDELANDEN', 'INGA FLER SMS', 'TA BORT MIG', 'TA BORT MITT NUMMER', 'SLUTA SKICKA', 'SLUTA SMSA', 'LAT MIG VARA', 'AVREGISTRERA MIG',
  // no
  'INGEN FLERE MELDINGER', 'FJERN MEG', 'FJERN NUMMERET MITT', 'SLUTT A SENDE', 'SLUTT MED A SENDE', 'LA MEG VAERE I FRED', 'MELD MEG AV',
  // fi
  'EI ENAA VIESTEJA', 'EI ENAA TEKSTIVIESTEJA', 'POISTA MINUT', 'POISTAKAA MINUT', 'ALKAA LAHETTAKO', 'ALA LAHETA', 'LOPETTAKAA VIESTIT',
  // pl
  'NIE WYSYLAJCIE', 'NIE PISZCIE', 'NIE WYSYLAJ', 'USUN MNIE', 'USUNCIE MNIE', 'USUN MOJ NUMER', 'WYPISZ MNIE', 'WYPISZCIE MNIE',
  'DAJCIE MI SPOKOJ', 'ZOSTAWCIE MNIE W SPOKOJU',
  // pt
  'NAO ME ENVIE', 'NAO ME ENVIEM', 'NAO ME MANDE', 'NAO ME MANDEM', 'NAO QUERO MAIS', 'CHEGA DE MENSAGENS', 'PAREM DE ME ENVIAR',
  'PAREM DE MANDAR', 'ME TIRE DA LISTA', 'ME TIREM DA LISTA', 'ME REMOVA', 'ME REMOVAM', 'REMOVA MEU NUMERO', 'REMOVAM MEU NUMERO',
  'ME DEIXE EM PAZ', 'ME DEIXEM EM PAZ', 'ME DESCADASTRE', 'DESCADASTRE ME',
);

/** Complaints: a person would not want the next offer after one of these. They pause marketing; a person decides. */
export const COMPLAINT_PHRASES: readonly string[][] = phrases(
  'WRONG NUMBER', 'WRONG PERSON', 'SPAM', 'SPAMMING', 'SPAMMER', 'SCAM', 'SCAMMER', 'HARASSMENT', 'HARASSING', 'HARASS', 'WHO IS THIS',
  'WHO DIS', 'HOW DID YOU GET MY NUMBER', 'NOT INTERESTED', 'NO INTEREST', 'REPORT YOU', 'REPORTING YOU', 'LAWYER', 'ATTORNEY',
  'SUE YOU', 'FCC', 'FTC', 'TCPA', 'BLOCK YOU', 'BLOCKING YOU', 'UNSOLICITED', 'GO AWAY', 'FUCK OFF', 'PISS OFF', 'GET LOST',
  'NEVER SIGNED UP', 'DIDNT SIGN UP', 'DID NOT SIGN UP',
  'FALSCHE NUMMER', 'KEIN INTERESSE', 'BELASTIGUNG', 'ANWALT', 'NERVIG',
  'MAUVAIS NUMERO', 'PAS INTERESSE', 'HARCELEMENT', 'AVOCAT', 'ARNAQUE',
  'NUMERO EQUIVOCADO', 'NO ME INTERESA', 'ACOSO', 'ABOGADO', 'ESTAFA',
  'NUMERO SBAGLIATO', 'NON MI INTERESSA', 'AVVOCATO', 'MOLESTIE', 'TRUFFA',
  'VERKEERD NUMMER', 'GEEN INTERESSE', 'ADVOCAAT', 'OPLICHTING',
  'FORKERT NUMMER', 'IKKE INTERESSERET', 'ADVOKAT',
  'FEL NUMMER', 'INTE INTRESSERAD', 'BEDRAGERI',
  'FEIL NUMMER', 'IKKE INTERESSERT',
  'VAARA NUMERO', 'EI KIINNOSTA', 'HUIJAUS',
  'ZLY NUMER', 'NIE INTERESUJE', 'PRAWNIK', 'OSZUSTWO',
  'NUMERO ERRADO', 'NAO TENHO INTERESSE', 'NAO ME INTERESSA', 'ADVOGADO', 'GOLPE',
);

/**
 * Words that negate the word right after them: "don't remove me", "nicht abmelden", "não me remova". Not NO, NON, NE
 * or EI: "No. Stop." is a request, and the comma between them is gone once folded.
 */
const NEGATIONS: ReadonlySet<string> = new Set(['DONT', 'NOT', 'NEVER', 'NICHT', 'NIEMALS', 'NIE', 'NAO', 'NIET', 'IKKE', 'INTE', 'JAMAIS', 'NUNCA']);

/**
 * The message says it wants the messages, or not to stop: a stop word or phrase beside one of these is for a person.
 * ("Stop? I want these messages", "Stopp! Ich will mehr Nachrichten", "don't stop", "keep them coming".)
 */
const CONTRADICTIONS: readonly string[][] = phrases(
  'I WANT THESE', 'I WANT THEM', 'I WANT MORE', 'I WANT YOUR', 'I WANT THE MESSAGES', 'I WANT MESSAGES', 'I WANT TEXTS', 'I LIKE THESE',
  'I LIKE THEM', 'I LIKE YOUR', 'I LOVE THESE', 'I LOVE THEM', 'I LOVE YOUR', 'KEEP THEM', 'KEEP SENDING', 'KEEP TEXTING', 'KEEP ME',
  'DONT STOP', 'DO NOT STOP', 'NEVER STOP', 'NOT STOP', 'DONT UNSUBSCRIBE', 'DO NOT UNSUBSCRIBE', 'DONT REMOVE', 'DO NOT REMOVE',
  'ICH WILL MEHR', 'ICH WILL DIE', 'ICH MOCHTE MEHR', 'WEITER SENDEN', 'WEITER SCHICKEN', 'NICHT STOPPEN', 'NICHT ABMELDEN', 'NICHT AUFHOREN',
  'JE VEUX CES', 'JE VEUX LES', 'JE VEUX DES', 'JE VEUX ENCORE', 'CONTINUEZ',
  'QUIERO MAS', 'QUIERO LOS', 'QUIERO ESTOS', 'SIGAN ENVIANDO', 'NO PAREN',
  'VOGLIO ALTRI', 'VOGLIO I', 'CONTINUATE',
  'IK WIL MEER', 'IK WIL DE', 'NIET STOPPEN',
  'JEG VIL HAVE', 'JAG VILL HA', 'JEG VIL HA',
  'HALUAN LISAA',
  'CHCE WIECEJ', 'NIE PRZESTAWAJCIE',
  'QUERO MAIS', 'QUERO AS', 'NAO PAREM', 'CONTINUEM',
);

/** A stop word followed by one of these is a visit or a place, not a request: "stop by", "stop at the shop". */
const STOP_AS_VISIT: ReadonlySet<string> = new Set(['BY', 'AT', 'IN', 'OVER', 'AROUND', 'HERE', 'THERE', 'FOR', 'UNTIL', 'AFTER', 'BEFORE', 'ON', 'INTO']);
/** A stop word after one of these is a place or a thing: "bus stop", "next stop", "full stop". */
const STOP_AS_PLACE: ReadonlySet<string> = new Set(['BUS', 'NEXT', 'LAST', 'FIRST', 'FULL', 'PIT', 'TRUCK', 'ONE', 'NON', 'TRAM', 'TRAIN', 'REST', 'THE', 'A', 'YOUR', 'MY', 'THAT', 'THIS']);

/** Where `needle` occurs in `words` as consecutive words, or -1. */
function indexOfPhrase(words: readonly string[], needle: readonly string[], from = 0): number {
  outer: for (let i = from; i + needle.length <= words.length; i++) {
    for (let j = 0; j < needle.length; j++) if (words[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function firstPhrase(words: readonly string[], list: readonly string[][]): { at: number; phrase: readonly string[] } | null {
  let best: { at: number; phrase: readonly string[] } | null = null;
  for (const p of list) {
    const at = indexOfPhrase(words, p);
    if (at >= 0 && (best === null || at < best.at || (at === best.at && p.length > best.phrase.length))) best = { at, phrase: p };
  }
  return best;
}

/** The stop word at words[i] (one word, a two-word one such as OPT OUT, or the trigger), as its length in words; 0 if none. */
function stopWordAt(words: readonly string[], i: number, isStopWord: (w: string) => boolean): number {
  const pair = i + 1 < words.length ? `${words[i]} ${words[i + 1]}` : null;
  if (pair !== null && isStopWord(pair)) return 2;
  return isStopWord(words[i]!) ? 1 : 0;
}

/** Whether the raw text has a question mark right after the stop word `word` (folded) — "Stop?" asks, it does not tell. */
function askedAbout(raw: string, word: string): boolean {
  const pattern = word.split(' ').map((w) => w.replace(/[^A-Z0-9]/g, '')).join('[^\\p{L}\\p{N}]+');
  return new RegExp(`${pattern}[\\s"'”’»)]*[?？¿]`, 'iu').test(raw.normalize('NFKD').replace(/\p{M}+/gu, ''));
}

/**
 * Whether the message is a request to stop (clear), may be one (review), or neither (null). `words` are the folded
 * words of `raw`; `isStopWord` says whether a folded word or two-word phrase is a stop word (the lists' sentence words
 * and the sender's trigger).
 */
export function readStopRequest(words: readonly string[], raw: string, isStopWord: (w: string) => boolean): StopRequest | null {
  if (words.length === 0) return null;
  const contradiction = firstPhrase(words, CONTRADICTIONS);

  // Every stop word of the message, with where it stands.
  const found: Array<{ at: number; len: number; word: string }> = [];
  for (let i = 0; i < words.length; i++) {
    const len = stopWordAt(words, i, isStopWord);
    if (len > 0) {
      found.push({ at: i, len, word: words.slice(i, i + len).join(' ') });
      i += len - 1;
    }
  }

  // A request phrase anywhere ("remove me", "don't text me"), unless negated just before it ("don't remove me").
  const phrase = firstPhrase(words, STOP_PHRASES);
  if (phrase) {
    const word = phrase.phrase.join(' ');
    const before = words[phrase.at - 1];
    const negated = before !== undefined && NEGATIONS.has(before) && !NEGATIONS.has(phrase.phrase[0]!);
    if (negated || contradiction) return { tier: 'review', reason: 'contradicted', word };
    return { tier: 'clear', reason: 'stop_phrase', word };
  }

  // A stop word at the start or the end that is told, not asked, negated or a place.
  const edge = found.find((f) => f.at === 0 || f.at + f.len === words.length);
  if (edge) {
    const before = words[edge.at - 1];
    const after = words[edge.at + edge.len];
    const negated = before !== undefined && NEGATIONS.has(before);
    const place = (after !== undefined && STOP_AS_VISIT.has(after)) || (before !== undefined && STOP_AS_PLACE.has(before));
    if (negated || contradiction || askedAbout(raw, edge.word)) return { tier: 'review', reason: 'contradicted', word: edge.word };
    if (!place && words.length <= CLEAR_EDGE_MAX_WORDS) return { tier: 'clear', reason: 'stop_word_edge', word: edge.word };
  }
  if (found.length > 0) return { tier: 'review', reason: contradiction ? 'contradicted' : 'stop_word_inside', word: found[0]!.word };

  const complaint = firstPhrase(words, COMPLAINT_PHRASES);
  if (complaint) return { tier: 'review', reason: 'complaint', word: complaint.phrase.join(' ') };
  return null;
}
