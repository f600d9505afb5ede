/**
 * Counted words in texts people and assistants read: "1 recipient", "9,996 recipients", "3 flagged values".
 * One helper for every text (issue #42 found "9,996 mores" and "3 flaggeds": three copies each added an "s" to any
 * word). The count is written with thousands separators; the last word of the phrase takes the plural, unless it
 * is a word English does not inflect ("more", "flagged", "other" …), and a caller may give the plural itself.
 * Pure and dependency-free: the in-chat preview's bundled view uses it too.
 */

/** Last words that stay as they are after a count: "9,996 more", "3 flagged", "2 new". */
const INVARIANT = new Set(['more', 'other', 'others', 'new', 'left', 'each', 'total', 'pending', 'waiting', 'sent', 'flagged', 'deferred', 'rejected', 'accepted', 'failed', 'blocked', 'approved', 'expired', 'scheduled', 'cancelled', 'changed', 'deleted', 'dropped']);

/** The plural of one English noun as these texts use them ("value" → "values", "match" → "matches", "reply" → "replies"). */
function pluralWord(word: string): string {
  const lower = word.toLowerCase();
  if (INVARIANT.has(lower) || lower.endsWith('ed')) return word;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${word}es`;
  if (/[^aeiou]y$/.test(lower)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

/** The phrase for a count other than one: its last word takes the plural ("more flagged value" → "more flagged values"). */
export function pluralPhrase(phrase: string): string {
  const at = phrase.lastIndexOf(' ');
  return at === -1 ? pluralWord(phrase) : `${phrase.slice(0, at + 1)}${pluralWord(phrase.slice(at + 1))}`;
}

/** "1 recipient", "9,996 more", "3 flagged", "2 different values"; `many` overrides the plural phrase. */
export function plural(n: number, one: string, many?: string): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : (many ?? pluralPhrase(one))}`;
}
