/**
 * `{{ name }}`: spaces/tabs allowed inside the braces, the name is letters, digits and
 * underscores (the custom-field tag alphabet of §2.9). Names are case-sensitive.
 */
export const PLACEHOLDER_SOURCE = String.raw`\{\{[ \t]*([A-Za-z0-9_]+)[ \t]*\}\}`;

export const placeholderPattern = (): RegExp => new RegExp(PLACEHOLDER_SOURCE, 'g');

const WHOLE_UNSUBSCRIBE = /^\{\{[ \t]*unsubscribe_link[ \t]*\}\}$/;
const ANY_UNSUBSCRIBE = /\{\{[ \t]*unsubscribe_link[ \t]*\}\}/;
const WHOLE_PLACEHOLDER = new RegExp(`^${PLACEHOLDER_SOURCE}$`);
const LEADING_PLACEHOLDER = new RegExp(`^${PLACEHOLDER_SOURCE}`);

/** Shared for exec/replace loops: both reset lastIndex themselves, and nothing here is re-entrant. */
const SHARED = new RegExp(PLACEHOLDER_SOURCE, 'g');

/** Distinct placeholder names in order of first appearance. */
export function findPlaceholders(text: string): string[] {
  if (typeof text !== 'string' || text.indexOf('{{') === -1) return [];
  const names: string[] = [];
  SHARED.lastIndex = 0;
  for (let m = SHARED.exec(text); m !== null; m = SHARED.exec(text)) {
    const name = m[1] as string;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * Brace runs that are not a well-formed placeholder (`{{first name}}`, `{{name}`), which
 * would otherwise reach the recipient verbatim. Returns the offending fragments.
 */
export function findMalformedPlaceholders(text: string): string[] {
  if (typeof text !== 'string' || (text.indexOf('{{') === -1 && text.indexOf('}}') === -1)) return [];
  const rest = text.replace(SHARED, ' ');
  if (rest.indexOf('{{') === -1 && rest.indexOf('}}') === -1) return [];
  const bad: string[] = [];
  for (const m of rest.matchAll(/\{\{[^{}]{0,40}\}?\}?|\}\}/g)) {
    if (!bad.includes(m[0])) bad.push(m[0]);
  }
  return bad;
}

export const isUnsubscribePlaceholder = (text: string): boolean => WHOLE_UNSUBSCRIBE.test(text);
export const containsUnsubscribePlaceholder = (text: string): boolean => ANY_UNSUBSCRIBE.test(text);
export const isWholePlaceholder = (text: string): boolean => WHOLE_PLACEHOLDER.test(text);
export const startsWithPlaceholder = (text: string): boolean => LEADING_PLACEHOLDER.test(text);
