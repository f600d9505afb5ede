/**
 * Which characters may be in text that reaches a carrier (and in the contact data merged into
 * such text). A lone UTF-16 surrogate (only reachable through a JSON `\ud800` escape) has no UTF-8
 * form: SQLite would store U+FFFD while the carrier got the surrogate, so the log would lie about
 * what was sent. NUL and the other C0/C1 control characters are invisible, cut strings short in C
 * carriers (SMPP) and have no place in a message. Tab, CR and LF are ordinary text.
 */
import { z } from 'zod';

export const INVALID_CHARACTER_CODE = 'invalid_character';

// One pass: a control character other than \t \n \r, a high surrogate not followed by a low one,
// or a low surrogate not preceded by a high one.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface ForbiddenCharacter {
  /** UTF-16 index in the string. */
  index: number;
  /** `U+0000 (a control character)` */
  label: string;
}

/** The first character text sent to a phone must not contain, or null. */
export function findForbiddenCharacter(s: string): ForbiddenCharacter | null {
  const m = FORBIDDEN.exec(s);
  if (!m) return null;
  const cp = m[0].charCodeAt(0);
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  const kind = cp >= 0xd800 && cp <= 0xdfff ? 'a lone surrogate, not a character' : 'a control character';
  return { index: m.index, label: `${hex} (${kind})` };
}

export function forbiddenCharacterMessage(what: string, found: ForbiddenCharacter): string {
  return `${what} contains ${found.label} at position ${found.index}; only printable text, tab, CR and LF are allowed.`;
}

/** Adds the rule to a zod string schema (REST bodies, MCP tool inputs), reported as code invalid_character. */
export function printable<T extends z.ZodString>(schema: T): T {
  return schema.superRefine((s, ctx) => {
    const found = findForbiddenCharacter(s);
    if (found) ctx.addIssue({ code: 'custom', message: forbiddenCharacterMessage('The text', found), params: { code: INVALID_CHARACTER_CODE } });
  });
}

/**
 * The first forbidden character in any string of a JSON-like value, with its path: merged content
 * is checked again because contact data stored before this rule existed may carry such characters.
 */
export function findForbiddenIn(value: unknown, path: string): { path: string; found: ForbiddenCharacter } | null {
  if (typeof value === 'string') {
    const found = findForbiddenCharacter(value);
    return found ? { path, found } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findForbiddenIn(value[i], `${path}[${i}]`);
      if (hit) return hit;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      const hit = findForbiddenIn(v, `${path}.${k}`);
      if (hit) return hit;
    }
  }
  return null;
}
