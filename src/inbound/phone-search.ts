import { z } from 'zod';

/** Longest search the virtual phone accepts: a full E.164 number with spaces, or a first and last name. */
export const PHONE_SEARCH_MAX_LENGTH = 64;

/**
 * `?q=` of /phone. Letters (any script), digits, spaces (not tabs or line breaks) and the punctuation of numbers and names
 * (`+ - ( ) . / ' ’`): nothing else can be part of what is searched, so LIKE wildcards, quotes and
 * control characters are refused instead of being quietly searched for.
 */
export const PhoneSearchInputSchema = z
  .string()
  .max(PHONE_SEARCH_MAX_LENGTH, `Search with at most ${PHONE_SEARCH_MAX_LENGTH} characters.`)
  .regex(/^[\p{L}\p{M}\d +\-()./'’]*$/u, 'Search by digits of the number (+, spaces, dashes and brackets are fine) or by letters of a contact’s name.');

/**
 * What a search finds: phone-like text (digits with `+ - ( ) . /` and spaces) matches the digits
 * of the E.164 number anywhere in it; anything else matches the contact's name, ignoring case.
 */
export type PhoneSearch = { kind: 'digits'; digits: string } | { kind: 'name'; text: string };

export type ParsedPhoneSearch = { ok: true; q: string; search: PhoneSearch | null } | { ok: false; q: string; message: string };

/**
 * Parses the raw query value. `q` is what the page shows back in its search box (trimmed, and cut
 * to the maximum when refused). A repeated parameter (`?q=a&q=b`) is refused, not guessed at.
 */
export function parsePhoneSearch(raw: unknown): ParsedPhoneSearch {
  if (raw === undefined) return { ok: true, q: '', search: null };
  if (typeof raw !== 'string') return { ok: false, q: '', message: 'Search with one q parameter.' };
  const parsed = PhoneSearchInputSchema.safeParse(raw.trim());
  if (!parsed.success) return { ok: false, q: raw.trim().slice(0, PHONE_SEARCH_MAX_LENGTH), message: parsed.error.issues[0]?.message ?? 'Invalid search.' };
  const q = parsed.data;
  if (q === '') return { ok: true, q, search: null };
  if (/\d/.test(q) && /^[+\d \-()./]+$/.test(q)) return { ok: true, q, search: { kind: 'digits', digits: q.replace(/\D/g, '') } };
  // Names are stored lower-cased with single spaces (contacts.search_text): search the same way.
  const text = q.toLowerCase().replace(/ +/g, ' ');
  return { ok: true, q, search: { kind: 'name', text } };
}
