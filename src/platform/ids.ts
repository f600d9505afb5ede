import { randomFillSync } from 'node:crypto';
import { AppError } from './errors.js';

/** Type prefixes of every id we mint (DESIGN §4). */
export const ID_PREFIXES = [
  'acc', 'usr', 'key', 'snd', 'msg', 'job', 'ct', 'fld', 'grp', 'tpl', 'tg', 'prv', 'whk', 'evt', 'frm', 'sbx',
  'ses', 'dlv', 'sub', 'cnv', 'int', 'cli', 'tok', 'led', 'apv', 'cev', 'crv',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

let lastTime = -1;
const lastRandom: number[] = new Array<number>(16).fill(0);
let timeTextOf = -1;
let timeText = '';
const CROCKFORD_CODES = Array.from(CROCKFORD, (c) => c.charCodeAt(0));
const randomCodes: number[] = new Array<number>(16).fill(0);

// randomBytes(16) per millisecond costs ~5 µs (under load that is once per request: every request
// gets a ULID as its id); the same CSPRNG filling a 4 KiB pool serves 256 of them per call.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

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
    if (poolAt + 16 > pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    for (let i = 0; i < 16; i++) lastRandom[i] = pool[poolAt + i]! & 31;
    poolAt += 16;
  }
  // One request id per request under load: the time part is encoded once per millisecond and the
  // random part from character codes, not through an array of one-character strings.
  if (now !== timeTextOf) {
    let time = '';
    let t = now;
    for (let i = 0; i < 10; i++) {
      time = CROCKFORD[t % 32] + time;
      t = Math.floor(t / 32);
    }
    timeText = time;
    timeTextOf = now;
  }
  for (let i = 0; i < 16; i++) randomCodes[i] = CROCKFORD_CODES[lastRandom[i]!]!;
  return timeText + String.fromCharCode.apply(null, randomCodes);
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
