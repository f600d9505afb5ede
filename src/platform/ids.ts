import { randomBytes } from 'node:crypto';
import { AppError } from './errors.js';

/** Type prefixes of every id we mint (DESIGN §4). */
export const ID_PREFIXES = [
  'acc', 'usr', 'key', 'snd', 'msg', 'job', 'ct', 'fld', 'grp', 'tpl', 'tg', 'prv', 'whk', 'evt', 'frm', 'sbx',
  'ses', 'dlv', 'sub', 'cnv', 'int', 'cli', 'tok',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

let lastTime = -1;
let lastRandom: number[] = [];

/**
 * A ULID: 48-bit millisecond time + 80 random bits, Crockford base32. Monotonic within one
 * millisecond (the random part is incremented), so ids minted in a tight loop still sort in
 * creation order — cursor pagination relies on that.
 */
export function ulid(now: number = Date.now()): string {
  if (now <= lastTime) {
    now = lastTime;
    for (let i = lastRandom.length - 1; i >= 0; i--) {
      const digit = lastRandom[i]!;
      if (digit < 31) {
        lastRandom[i] = digit + 1;
        break;
      }
      lastRandom[i] = 0;
    }
  } else {
    lastTime = now;
    const bytes = randomBytes(16);
    lastRandom = Array.from({ length: 16 }, (_, i) => bytes[i]! & 31);
  }
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + lastRandom.map((d) => CROCKFORD[d]).join('');
}

export function newId(prefix: IdPrefix, now?: number): string {
  return `${prefix}_${ulid(now)}`;
}

export function isId(prefix: IdPrefix, value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const p = `${prefix}_`;
  return value.startsWith(p) && ULID_RE.test(value.slice(p.length));
}

/** Throws the 400 INVALID_ID every route uses for a malformed id (unknown ids are a 404 later). */
export function assertId(prefix: IdPrefix, value: unknown, what = 'id'): string {
  if (!isId(prefix, value)) {
    throw new AppError('INVALID_ID', `Invalid ${what}: expected an id starting with "${prefix}_"`, {
      details: [{ path: what, code: 'invalid_id', message: `must look like ${prefix}_01J…` }],
    });
  }
  return value;
}
