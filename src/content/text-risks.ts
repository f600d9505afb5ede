/**
 * What a person approving a message must not miss in a piece of text (DESIGN §6, issue #27): the
 * one place that decides which text is risky and how a link is shown. The share page, the REST and
 * MCP preview warnings, the in-chat view and the content validator all call these functions, so a
 * value flagged in one place is flagged in every place. Pure: no I/O.
 *
 * The rules (docs/decisions.md "Risky text"):
 * - bidi controls (U+202A–E, U+2066–9, U+200E/F, U+061C) reorder what a reader sees ("exe.nacs" shown
 *   as "scan.exe"); invisible characters (zero-width, word joiner, BOM, soft hyphen, Hangul fillers, tag
 *   characters) hide text or split words a filter would catch. Both are flagged wherever they appear and
 *   refused inside URLs. A zero-width joiner between emoji is how emoji sequences are written: not flagged.
 * - a link inside a merged value is flagged: a scheme, `www.`, or a bare host whose last label is a
 *   top-level domain of the root zone (tlds.ts), with `.` or the dots IDNA maps to it (U+3002, U+FF0E,
 *   U+FF61) between labels — what a phone's linkifier makes clickable ("bank-secure.support/login"),
 *   while "e.g.", "Mr.Smith" and "v1.2" end in no top-level domain. A link whose host reads as another
 *   (internationalised, mixing scripts, or written with look-alike dots or full-width letters) is
 *   flagged `lookalike_host` as well. A phone number (7 or more digits with the usual separators) or an
 *   e-mail address is flagged too: a merge field is for a name or a date, not for a new call to action.
 * - mixed scripts: letters of more than one script in one word (Cyrillic "а" in "аpple"), except the
 *   combinations UTS #39 calls highly restrictive (Latin with Han, Hiragana, Katakana, Hangul or Bopomofo).
 * - a host that is not plain ASCII is shown as its punycode beside the Unicode form; a host label mixing
 *   scripts is a warning.
 */
// Not node:url: the in-chat preview bundles this module for the browser. WHATWG URL gives the ASCII
// host (IDNA mapping as browsers do); the punycode package decodes it back for display.
import punycode from 'punycode/punycode.js';
import { TOP_LEVEL_DOMAINS } from './tlds.js';

/** The host as a browser resolves it (punycode), or null when it is not a valid host. */
function asciiHost(host: string): string | null {
  try {
    return new URL(`https://${host}/`).hostname;
  } catch {
    return null;
  }
}

function unicodeHost(ascii: string): string {
  try {
    return punycode.toUnicode(ascii);
  } catch {
    return ascii;
  }
}

export type TextRiskCode =
  | 'lookalike_host'
  | 'contains_link'
  | 'contains_phone'
  | 'contains_email'
  | 'bidi_control'
  | 'invisible_character'
  | 'mixed_scripts'
  | 'unusual_length'
  | 'written_by_assistant';
export type LinkRiskCode = 'bidi_control' | 'invisible_character' | 'idn_host' | 'mixed_script_host';

export interface TextRisk {
  code: TextRiskCode;
  /** A sentence for the person: what was found, shown with invisible characters made visible. */
  message: string;
}

/**
 * Most serious first, by what the value can do to a recipient (issue #42): send them to a site that
 * imitates another, then to any site, then make them call or write to someone, then hide or disguise
 * text; a value merely unusually long or written by an assistant comes after every one of those.
 * previews/merge-report.ts lists flagged values in this order.
 */
export const RISK_ORDER: readonly TextRiskCode[] = ['lookalike_host', 'contains_link', 'contains_phone', 'contains_email', 'bidi_control', 'invisible_character', 'mixed_scripts', 'unusual_length', 'written_by_assistant'];

const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const BIDI_ALL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
// Zero-width space/non-joiner/joiner, word joiner and invisible operators, BOM, soft hyphen, Mongolian
// vowel separator, Hangul fillers, combining grapheme joiner, tag characters.
// eslint-disable-next-line no-misleading-character-class -- these are the characters being looked for
const INVISIBLE_ALL = /[\u00ad\u034f\u115f\u1160\u180e\u200b-\u200d\u2060-\u2064\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]/gu;
// eslint-disable-next-line no-control-regex -- the whole ASCII range, NUL included
const NON_ASCII = /[^\x00-\x7f]/;
const PICTO = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\ufe0f/u;

/** `.` and the dots IDNA maps to it (ideographic, full-width and half-width ideographic full stops). */
const DOTS = '.\u3002\uff0e\uff61';
const DOT_SPLIT = /[.\u3002\uff0e\uff61]/u;
const LABEL = '[\\p{L}\\p{N}\\p{M}](?:[\\p{L}\\p{N}\\p{M}-]{0,61}[\\p{L}\\p{N}\\p{M}])?';
/**
 * A link with a scheme or `www.` (whole match), or a bare host (group 1: labels and dots; group 2: port
 * and path) starting where no word, dot or e-mail runs into it. Bare hosts are checked against the
 * root zone by bareLink.
 */
const URL_IN_TEXT = new RegExp(
  `\\b(?:https?://|www[${DOTS}])[^\\s<>"]+|(?<![\\p{L}\\p{N}\\p{M}_@${DOTS}-])((?:${LABEL}[${DOTS}])+${LABEL})(?![\\p{L}\\p{N}\\p{M}_@-])((?::\\d{1,5})?(?:[/?#][^\\s<>"]*)?)`,
  'giu',
);
// Bounded parts: an unbounded run before "@" makes the search quadratic on long text without one.
const EMAIL_IN_TEXT = /[^\s@<>()"]{1,64}@[^\s@<>()"]{1,255}\.[\p{L}]{2,63}/u;
/** Text beyond this many characters is not inspected (every field's limit is far below it). */
const INSPECT_MAX = 8192;
const PHONE_IN_TEXT = /(?:\+|\b)\d(?:[\s().\-/]{0,2}\d){6,}/u;

const HIGHLY_RESTRICTIVE: readonly (readonly string[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];
const SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Armenian', 'Hebrew', 'Arabic', 'Devanagari', 'Bengali', 'Thai', 'Georgian', 'Han', 'Hiragana', 'Katakana', 'Hangul', 'Bopomofo', 'Cherokee', 'Ethiopic', 'Tamil', 'Telugu', 'Gujarati', 'Gurmukhi', 'Kannada', 'Malayalam', 'Sinhala', 'Khmer', 'Lao', 'Myanmar', 'Tibetan', 'Mongolian', 'Coptic', 'Runic', 'Ogham'] as const;
const SCRIPT_RES = SCRIPTS.map((s) => [s, new RegExp(`\\p{Script=${s}}`, 'u')] as const);

/** The script of one letter, or 'Other' for a letter of a script not listed. */
function scriptOf(ch: string): string {
  // Most letters of most values: skip the script tables.
  if (ch <= 'z') return 'Latin';
  for (const [name, re] of SCRIPT_RES) if (re.test(ch)) return name;
  return 'Other';
}

/** Scripts of the letters of a word (Common and Inherited characters — digits, marks, punctuation — have none). */
export function scriptsOf(word: string): Set<string> {
  const out = new Set<string>();
  for (const ch of word) if (/\p{L}/u.test(ch)) out.add(scriptOf(ch));
  return out;
}

/** True when a word's letters come from scripts a reader would not expect together. */
export function mixesScripts(word: string): boolean {
  if (/^[ -~]*$/.test(word)) return false;
  const scripts = scriptsOf(word);
  if (scripts.size <= 1) return false;
  return !HIGHLY_RESTRICTIVE.some((allowed) => [...scripts].every((s) => allowed.includes(s)));
}

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** Bidi controls in the text, as U+ codes (none: empty). */
export function bidiControls(s: string): string[] {
  return [...new Set(s.match(BIDI_ALL) ?? [])].map((c) => hex(c.codePointAt(0)!));
}

// eslint-disable-next-line no-misleading-character-class -- these are the characters being looked for
const INVISIBLE_ONE = /^[\u00ad\u034f\u115f\u1160\u180e\u200b-\u200d\u2060-\u2064\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]$/u;
const BIDI_ONE = /^[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]$/u;

/** Whether the character `ch` at UTF-16 index `at` of `s` is invisible (a joiner between emoji is not). */
function invisibleAt(s: string, at: number, ch: string): boolean {
  if (!INVISIBLE_ONE.test(ch)) return false;
  if (ch === '\u200d' || ch === '\u200c') {
    const before = s.slice(Math.max(0, at - 2), at);
    const after = s.slice(at + 1, at + 3);
    if (PICTO.test(before) && PICTO.test(after)) return false;
  }
  return true;
}

/** Invisible characters in the text, as U+ codes; a zero-width joiner inside an emoji sequence is not one. */
export function invisibleCharacters(s: string): string[] {
  const found = new Set<string>();
  for (const m of s.matchAll(INVISIBLE_ALL)) if (invisibleAt(s, m.index, m[0])) found.add(hex(m[0].codePointAt(0)!));
  return [...found];
}

/**
 * The text with every bidi control and invisible character replaced by a visible `⟦U+202E⟧`, so a
 * page can print what a value really holds (a reversed "exe.nacs" stays reversed, marked).
 */
export function visibleText(s: string): string {
  if (!BIDI.test(s) && invisibleCharacters(s).length === 0) return s;
  let out = '';
  let at = 0;
  for (const ch of s) {
    out += BIDI_ONE.test(ch) || invisibleAt(s, at, ch) ? `⟦${hex(ch.codePointAt(0)!)}⟧` : ch;
    at += ch.length;
  }
  return out;
}

const quote = (s: string, max = 80) => {
  const v = visibleText(s);
  return `"${v.length > max ? `${v.slice(0, max - 1)}…` : v}"`;
};

/** Whether a label is a top-level domain of the root zone (any case, full-width letters, or its Unicode form). */
export function isTopLevelDomain(label: string): boolean {
  const l = label.normalize('NFKC').toLowerCase();
  if (TOP_LEVEL_DOMAINS.has(l)) return true;
  if (!NON_ASCII.test(l)) return false;
  try {
    return TOP_LEVEL_DOMAINS.has(punycode.toASCII(l));
  } catch {
    return false;
  }
}

/**
 * A bare host as a linkifier takes it: up to its last label that is a top-level domain ("paypal.com" of
 * "paypal.com.x", as Android's Linkify stops at a word boundary after a known TLD), with its port and
 * path only when nothing was cut; null when no label after the first is a top-level domain.
 */
function bareLink(host: string, rest: string): string | null {
  const labels = host.split(DOT_SPLIT);
  let last = -1;
  for (let i = labels.length - 1; i >= 1; i--) {
    if (isTopLevelDomain(labels[i]!)) {
      last = i;
      break;
    }
  }
  if (last === -1) return null;
  if (last === labels.length - 1) return host + rest;
  let end = 0;
  for (let i = 0; i <= last; i++) end += labels[i]!.length + (i < last ? 1 : 0);
  return host.slice(0, end);
}

/** Links in free text (scheme, www., or a bare host ending in a top-level domain), e-mail addresses excluded. */
export function linksIn(text: string): string[] {
  const s = text.length > INSPECT_MAX ? text.slice(0, INSPECT_MAX) : text;
  const withoutEmails = s.includes('@') ? s.replace(/[^\s@<>()"]{1,64}@[^\s@<>()"]{1,255}/gu, ' ') : s;
  const out: string[] = [];
  for (const m of withoutEmails.matchAll(URL_IN_TEXT)) {
    const link = m[1] === undefined ? m[0] : bareLink(m[1], m[2] ?? '');
    if (link !== null) out.push(link);
  }
  return out;
}

/**
 * Why a link's host reads as another, or null: an internationalised name (shown as its Unicode form,
 * going to its punycode), a label mixing scripts, or a host written with look-alike dots or full-width
 * letters that a browser folds into a plain name (a filter looking for "paypal.com" misses "paypal。com").
 */
function lookalike(link: string, v: LinkView): string | null {
  if (!v.host) return null;
  const shown = v.unicodeHost ? ` (shown as ${visibleText(v.unicodeHost)})` : '';
  if (v.risks.some((r) => r.code === 'mixed_script_host')) return `${v.host}${shown} mixes scripts in its name: a look-alike of another site`;
  if (v.unicodeHost) return `${v.host}${shown} is an internationalised name that can imitate another site`;
  const written = hostPart(link);
  if (written !== null && written.toLowerCase() !== v.host && (/[\u3002\uff0e\uff61]/u.test(written) || written.normalize('NFKC') !== written)) {
    return `${v.host} is written ${quote(written)}, with look-alike characters a filter does not see`;
  }
  return null;
}

export interface TextRiskOptions {
  /** The merge field the value fills: its own kind of value is expected (an e-mail in contact_email). */
  field?: string;
}

/**
 * The risks of one piece of text (a merged value, a literal string of the content). Length and
 * authorship depend on the other values and on who wrote them; the caller adds those.
 */
export function textRisks(text: string, opts: TextRiskOptions = {}): TextRisk[] {
  const s = text.length > INSPECT_MAX ? text.slice(0, INSPECT_MAX) : text;
  const out: TextRisk[] = [];
  hiddenRisks(s, out);
  const expects = opts.field;
  const links = expects === 'company_website' ? [] : linksIn(s);
  if (links.length) {
    const odd = links.map((l) => lookalike(l, linkView(l))).filter((x): x is string => x !== null);
    if (odd.length) out.push({ code: 'lookalike_host', message: `links to a host that reads as another: ${odd.slice(0, 3).join('; ')}` });
    out.push({ code: 'contains_link', message: `contains a link: ${links.slice(0, 3).map((l) => linkLabel(l)).join(', ')}` });
  }
  if (expects !== 'contact_phone' && expects !== 'company_phone' && expects !== 'gdpr_phone' && PHONE_IN_TEXT.test(s)) out.push({ code: 'contains_phone', message: `contains a phone number: ${quote(PHONE_IN_TEXT.exec(s)![0])}` });
  if (expects !== 'contact_email' && expects !== 'company_email' && expects !== 'gdpr_email' && EMAIL_IN_TEXT.test(s)) out.push({ code: 'contains_email', message: `contains an e-mail address: ${quote(EMAIL_IN_TEXT.exec(s)![0])}` });
  mixedScriptRisk(s, out);
  return out;
}

/** Bidi controls and invisible characters of `s` (already cut to INSPECT_MAX), in textRisks' order and words. */
function hiddenRisks(s: string, out: TextRisk[]): void {
  const bidi = bidiControls(s);
  if (bidi.length) out.push({ code: 'bidi_control', message: `holds a text-direction control (${bidi.join(', ')}) that changes the order a reader sees: ${quote(s)}` });
  const invisible = invisibleCharacters(s);
  if (invisible.length) out.push({ code: 'invisible_character', message: `holds invisible characters (${invisible.join(', ')}): ${quote(s)}` });
}

/** The first word of `s` mixing scripts, as textRisks words it. */
function mixedScriptRisk(s: string, out: TextRisk[]): void {
  const mixed = s.split(/[\s\p{P}\p{S}\d]+/u).find((w) => w !== '' && mixesScripts(w));
  if (mixed) out.push({ code: 'mixed_scripts', message: `mixes scripts in one word (${[...scriptsOf(mixed)].join(' and ')}): ${quote(mixed)} — a look-alike letter can pass for another` });
}

/** How a link is shown to the person: the host as it resolves (punycode) beside its Unicode form. */
export interface LinkView {
  /** The URL as written (with invisible characters made visible). */
  url: string;
  /** The host a browser connects to (punycode for internationalised names); '' when there is none. */
  host: string;
  /** The Unicode form of the host when it differs from `host`, else null. */
  unicodeHost: string | null;
  risks: { code: LinkRiskCode; message: string }[];
}

function hostPart(url: string): string | null {
  const t = url.trim();
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(t) ?? /^(www[.\u3002\uff0e\uff61][^/?#\s]*)/iu.exec(t) ?? /^([^/?#\s@]+[.\u3002\uff0e\uff61][^/?#\s@]+)(?:[/?#]|$)/u.exec(t);
  if (!m) return null;
  const authority = m[1]!;
  const at = authority.lastIndexOf('@');
  const hostPort = at === -1 ? authority : authority.slice(at + 1);
  return hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : hostPort.replace(/:\d*$/, '');
}

/** What a person must know about a link before approving it. */
export function linkView(url: string): LinkView {
  const risks: LinkView['risks'] = [];
  const bidi = bidiControls(url);
  if (bidi.length) risks.push({ code: 'bidi_control', message: `The link holds a text-direction control (${bidi.join(', ')}): ${quote(url)}` });
  const invisible = invisibleCharacters(url);
  if (invisible.length) risks.push({ code: 'invisible_character', message: `The link holds invisible characters (${invisible.join(', ')}): ${quote(url)}` });
  const host = hostView(url, risks);
  if (host === null) return { url: visibleText(url), host: '', unicodeHost: null, risks };
  return { url: visibleText(url), host: host.ascii, unicodeHost: host.idn ? host.unicode : null, risks };
}

/** The host of a link as it resolves and as it is shown, adding its idn_host / mixed_script_host risks; null without a host. */
function hostView(url: string, risks: LinkView['risks']): { ascii: string; unicode: string; idn: boolean } | null {
  const raw = hostPart(url);
  if (raw === null || raw === '') return null;
  const ascii = raw.startsWith('[') ? raw : (asciiHost(raw) ?? raw.toLowerCase());
  const unicode = raw.startsWith('[') ? raw : unicodeHost(ascii);
  const idn = ascii !== unicode;
  if (idn) risks.push({ code: 'idn_host', message: `The link's host is internationalised: it is ${ascii} (shown as ${visibleText(unicode)}). Check it is the site you expect.` });
  const mixedLabel = unicode.split('.').find((label) => mixesScripts(label));
  if (mixedLabel) risks.push({ code: 'mixed_script_host', message: `The link's host mixes scripts (${[...scriptsOf(mixedLabel)].join(' and ')}) in "${visibleText(mixedLabel)}": a look-alike of another site. It really goes to ${ascii}.` });
  return { ascii, unicode, idn };
}

/** A short label for a link: its host as it resolves, with the Unicode form when it differs. */
export function linkLabel(url: string): string {
  const v = linkView(url);
  if (!v.host) return quote(url);
  return v.unicodeHost ? `${v.host} (shown as ${visibleText(v.unicodeHost)})` : v.host;
}

/** True when a URL must be refused: bidi controls or invisible characters have no place in a link. */
export function urlHasHiddenCharacters(url: string): boolean {
  // Every bidi control and invisible character is outside ASCII, and most URLs are ASCII.
  if (!NON_ASCII.test(url)) return false;
  return BIDI.test(url) || invisibleCharacters(url).length > 0;
}

/** A warning about written text (not a merged value): what the approver must look at twice. */
export interface TextWarning {
  path: string;
  code: 'bidi_control' | 'invisible_character' | 'mixed_scripts' | 'idn_host' | 'mixed_script_host';
  message: string;
}

const URL_KEYS = new Set(['url', 'fileUrl', 'thumbnailUrl', 'webhookUrl']);

/**
 * Hidden and look-alike text in a message as written (content strings, SMS text): bidi controls,
 * invisible characters, words mixing scripts, and links whose host is internationalised or mixes
 * scripts — in URL fields and in links written inside text. Walks every string of `value`.
 */
export function textWarnings(value: unknown, path: string, out: TextWarning[] = [], depth = 0): TextWarning[] {
  if (out.length >= 50 || depth > 8) return out;
  if (typeof value === 'string') {
    if (cannotHide(value)) return out;
    const key = path.replace(/\[\d+\]$/, '').split('.').pop() ?? '';
    const isUrl = URL_KEYS.has(key);
    // Only the written-text risks: links, phone numbers and e-mail addresses are for merged values.
    const s = value.length > INSPECT_MAX ? value.slice(0, INSPECT_MAX) : value;
    const risks: TextRisk[] = [];
    hiddenRisks(s, risks);
    if (!isUrl) mixedScriptRisk(s, risks);
    for (const r of risks) out.push({ path, code: r.code as TextWarning['code'], message: `${key || 'The text'} ${r.message}.` });
    for (const link of isUrl ? [value] : linksIn(value)) {
      const hostRisks: LinkView['risks'] = [];
      hostView(link, hostRisks);
      for (const r of hostRisks) out.push({ path, code: r.code, message: r.message });
    }
    return out;
  }
  if (Array.isArray(value)) value.forEach((v, i) => textWarnings(v, `${path}[${i}]`, out, depth + 1));
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) textWarnings(v, `${path}.${k}`, out, depth + 1);
  return out;
}

/**
 * True when a written string cannot carry any textWarnings risk, decided without the full scan: most
 * content is plain ASCII. Bidi controls, invisible characters and letters of a second script are all
 * outside ASCII; an ASCII host stays ASCII through WHATWG URL's host parser and punycode's decoding
 * unless it holds a percent-escape (`%` and two hex digits, decoded before IDNA mapping; a lone `%`
 * as in "20% off" is not one) or an `xn--` label.
 */
function cannotHide(s: string): boolean {
  return !NON_ASCII.test(s) && !/xn--|%[0-9a-f]{2}/i.test(s);
}
