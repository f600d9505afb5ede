import { parsePhoneNumberFromString, validatePhoneNumberLength } from 'libphonenumber-js/max';
import { PHONE_MAX_DIGITS, PHONE_MIN_DIGITS } from './limits.js';

export type PhoneErrorCode = 'invalid_phone' | 'too_short' | 'too_long';

export type NormalizedPhone =
  | {
      ok: true;
      /** `+4915112345678` */
      e164: string;
      /** `4915112345678`: the stored form (§2.8: country code included, no + or 00). */
      digits: string;
      /** ISO 3166-1 alpha-2, or `001` for non-geographic numbers (+800, +882, …). */
      country: string;
    }
  | { ok: false; code: PhoneErrorCode; message: string };

/** Punctuation people type inside numbers; anything else (letters, extensions) is refused. */
const SEPARATORS = /[\s\-()./]/g;
/** libphonenumber's region code for numbers that belong to no country. */
export const NON_GEOGRAPHIC_REGION = '001';

/**
 * The digits a number is written with once punctuation and the `+` or `00` prefix are removed,
 * before any validation; null when something other than digits is left. A stored number (a
 * contact's phone) is exactly these digits, so callers can find known numbers without parsing.
 */
export function candidateDigits(input: string): string | null {
  // Most lists are E.164 already: no trimming or replacing needed.
  if (E164.test(input)) return input.slice(1);
  let rest = input.trim().replace(SEPARATORS, '');
  if (rest.startsWith('+')) rest = rest.slice(1);
  else if (rest.startsWith('00')) rest = rest.slice(2);
  return DIGITS.test(rest) ? rest : null;
}

const DIGITS = /^\d+$/;
const E164 = /^\+\d+$/;

/**
 * Normalises a phone number to E.164. Accepts `+49…`, `0049…` and bare digits, with spaces,
 * dashes, dots, slashes and parentheses. Bare digits always include the country code (that is how
 * the spec stores numbers), so a national number like `0151…` is refused rather than guessed.
 * Uses libphonenumber's max metadata: the number must be valid for its country, not just long enough.
 */
export function normalizePhone(input: unknown): NormalizedPhone {
  if (typeof input !== 'string' || input.trim() === '') {
    return fail('invalid_phone', 'A phone number is required, e.g. +4915112345678.');
  }
  const rest = candidateDigits(input);
  if (rest === null) {
    return fail('invalid_phone', `"${clip(input)}" is not a phone number: use digits with the country code, e.g. +4915112345678.`);
  }
  if (rest.length < PHONE_MIN_DIGITS) {
    return fail('too_short', `A phone number has at least ${PHONE_MIN_DIGITS} digits including the country code (got ${rest.length}).`);
  }
  if (rest.length > PHONE_MAX_DIGITS) {
    return fail('too_long', `A phone number has at most ${PHONE_MAX_DIGITS} digits including the country code (got ${rest.length}).`);
  }
  if (rest.startsWith('0')) {
    return fail('invalid_phone', `"${clip(input)}" has no country code: write it as +<country code><number>, e.g. +4915112345678.`);
  }
  const e164Candidate = `+${rest}`;
  const parsed = parsePhoneNumberFromString(e164Candidate);
  if (!parsed) {
    const lengthProblem = validatePhoneNumberLength(e164Candidate);
    if (lengthProblem === 'TOO_SHORT') return fail('too_short', `${e164Candidate} is too short to be a phone number.`);
    return fail('invalid_phone', `${e164Candidate} does not start with a known country code.`);
  }
  const country = parsed.country ?? NON_GEOGRAPHIC_REGION;
  if (!parsed.isValid()) {
    const lengthProblem = validatePhoneNumberLength(e164Candidate);
    if (lengthProblem === 'TOO_SHORT') return fail('too_short', `${e164Candidate} is too short for a number of ${countryLabel(country)}.`);
    if (lengthProblem === 'TOO_LONG') return fail('too_long', `${e164Candidate} is too long for a number of ${countryLabel(country)}.`);
    return fail('invalid_phone', `${e164Candidate} is not a valid number of ${countryLabel(country)}.`);
  }
  return { ok: true, e164: parsed.number, digits: parsed.number.slice(1), country };
}

const countryLabel = (country: string): string => (country === NON_GEOGRAPHIC_REGION ? 'its calling code' : country);
const clip = (s: string): string => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
const fail = (code: PhoneErrorCode, message: string): NormalizedPhone => ({ ok: false, code, message });
