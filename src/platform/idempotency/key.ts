import type { Request } from 'express';
import { canonicalJson } from '../canonical-json.js';
import { AppError } from '../errors.js';
import { sha256Hex } from '../secrets.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** 1–255 printable ASCII characters (space through tilde), as Stripe accepts. */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

const invalid = (message: string) =>
  new AppError('VALIDATION_ERROR', message, { details: [{ path: `headers.${IDEMPOTENCY_HEADER}`, code: 'invalid_idempotency_key', message }] });

/** The request's Idempotency-Key, null when absent; a 400 when present but not 1–255 printable ASCII characters, or repeated. */
export function idempotencyKeyOf(req: Request): string | null {
  const values = req.headersDistinct['idempotency-key'];
  if (values === undefined) return null;
  if (values.length !== 1) throw invalid(`Send one ${IDEMPOTENCY_HEADER} header, not ${values.length}`);
  const key = values[0]!;
  if (!KEY_PATTERN.test(key)) throw invalid(`${IDEMPOTENCY_HEADER} must be 1 to 255 printable ASCII characters (got ${key.length === 0 ? 'an empty value' : `${key.length} characters`})`);
  return key;
}

/** What the key is stored as: its SHA-256, never the key itself. */
export const keyHashOf = (key: string): string => sha256Hex(key);

/**
 * The request a key stands for: method, path and the body as canonical JSON (key order and
 * whitespace do not matter), hashed. The same key with another fingerprint is IDEMPOTENCY_MISMATCH.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return sha256Hex(`${method.toUpperCase()} ${path}\n${body === undefined ? '' : canonicalJson(body)}`);
}
