/**
 * zod issues of the content schemas → `{path, code, message}` with the stable content codes
 * (issues.ts). The schemas say what is wrong; this file only names it: `required` for a missing
 * value, `too_long`/`too_many`/`too_few`/`empty`/`out_of_range` by what was measured, one
 * `unknown_field` per unknown key at that key's path, and a refinement's own `params.code`.
 */
import type { z } from 'zod';
import { fieldNameOf, formatPath } from '../platform/validation.js';
import type { ContentErrorCode, Issue } from './issues.js';

/** Beyond this many issues the input is garbage; more detail helps nobody and costs time. */
export const ISSUE_CAP = 200;

type ZodIssue = z.core.$ZodIssue;

interface Def {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
}

const defOf = (s: z.core.$ZodType): Def => s._zod.def;

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let s = schema;
  for (let i = 0; i < 8; i++) {
    const d = defOf(s);
    if (d.innerType && (d.type === 'optional' || d.type === 'nullable' || d.type === 'default' || d.type === 'prefault' || d.type === 'readonly')) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else break;
  }
  return s;
}

/** The schema at `path` below `root` (as written, wrappers kept), or undefined. */
function schemaAt(root: z.core.$ZodType, path: ReadonlyArray<PropertyKey>): z.core.$ZodType | undefined {
  let s: z.core.$ZodType | undefined = root;
  for (const seg of path) {
    if (!s) return undefined;
    const d = defOf(unwrap(s));
    if (d.type === 'object' && typeof seg === 'string') s = d.shape?.[seg];
    else if (d.type === 'array' && typeof seg === 'number') s = d.element;
    else return undefined;
  }
  return s;
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

const leafOf = fieldNameOf;

const ARRAY_NOUNS: Readonly<Record<string, string>> = {
  cardActions: 'card buttons per card',
  suggestions: 'chips in total',
  cardContents: 'cards in a carousel',
};

/** What to do instead, for enums where the usual fix is not another value. */
const ENUM_HINTS: Readonly<Record<string, string>> = {
  contentType: '; for file and audio messages omit it and the type is taken from the file',
};

const TYPE_ARTICLE: Readonly<Record<string, string>> = { object: 'an object', array: 'an array', string: 'a string', number: 'a number', boolean: 'a boolean' };

/** A null where a value is required is a missing value; where the field is optional, a wrong type. */
function missing(root: z.core.$ZodType | undefined, path: ReadonlyArray<PropertyKey>, input: unknown): boolean {
  if (input === undefined) return true;
  if (input !== null) return false;
  if (typeof path[path.length - 1] === 'number') return true;
  const s = root ? schemaAt(root, path) : undefined;
  return s === undefined || s._zod.optin !== 'optional';
}

function one(root: z.core.$ZodType | undefined, issue: ZodIssue, prefix: string, out: Issue<ContentErrorCode>[]): void {
  const path = formatPath(issue.path, prefix);
  const leaf = leafOf(issue.path) === 'value' && prefix ? prefix.replace(/^.*\./, '') : leafOf(issue.path);
  const input = (issue as { input?: unknown }).input;
  const push = (code: ContentErrorCode, message: string, at = path) => out.push({ path: at, code, message });
  switch (issue.code) {
    case 'invalid_type':
      if (missing(root, issue.path, input)) {
        const last = issue.path[issue.path.length - 1];
        push('required', typeof last === 'number' ? `Item ${last} of ${leaf} is null; give ${TYPE_ARTICLE[issue.expected] ?? 'a value'} or remove it.` : `${leaf} is required.`);
      }
      else push('invalid_type', `${leaf} must be ${TYPE_ARTICLE[issue.expected] ?? issue.expected}, got ${describeValue(input)}.`);
      return;
    case 'invalid_value': {
      const allowed = issue.values.map(String).join(', ');
      if (missing(root, issue.path, input)) {
        push('required', `${leaf} is required (one of ${allowed}).`);
        return;
      }
      const got = typeof input === 'string' ? `"${input.length > 40 ? `${input.slice(0, 40)}…` : input}"` : describeValue(input);
      push('invalid_enum', `${leaf} must be one of ${allowed} (got ${got})${ENUM_HINTS[leaf] ?? ''}.`);
      return;
    }
    case 'too_big': {
      const n = Array.isArray(input) || typeof input === 'string' ? input.length : input;
      if (issue.origin === 'string') push('too_long', `${leaf} must be at most ${String(issue.maximum)} characters (got ${String(n)}).`);
      else if (issue.origin === 'array') push('too_many', `At most ${String(issue.maximum)} ${ARRAY_NOUNS[leaf] ?? `items in ${leaf}`} (got ${String(n)}).`);
      else push('out_of_range', `${leaf} must be at most ${String(issue.maximum)} (got ${String(n)}).`);
      return;
    }
    case 'too_small': {
      const n = Array.isArray(input) || typeof input === 'string' ? input.length : input;
      if (issue.origin === 'string') push('empty', `${leaf} must not be empty.`);
      else if (issue.origin === 'array') {
        const hint = leaf === 'cardContents' ? '; use a richCard for one' : '';
        push('too_few', `At least ${String(issue.minimum)} ${ARRAY_NOUNS[leaf] ?? `items in ${leaf}`} (got ${String(n)})${hint}.`);
      } else push('out_of_range', `${leaf} must be at least ${String(issue.minimum)} (got ${String(n)}).`);
      return;
    }
    case 'unrecognized_keys': {
      const parent = root ? schemaAt(root, issue.path) : undefined;
      const shape = parent ? defOf(unwrap(parent)).shape : undefined;
      const allowed = shape ? Object.keys(shape) : [];
      const hint = shape === undefined ? '' : allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : ' (it must be an empty object)';
      const what = path === 'content' ? 'content field' : 'field';
      for (const key of issue.keys) push('unknown_field', `Unknown ${what} "${key}"${hint}.`, formatPath([...issue.path, key], prefix));
      return;
    }
    case 'custom': {
      const code: unknown = issue.params?.code;
      push(typeof code === 'string' ? (code as ContentErrorCode) : 'invalid_type', issue.message.replaceAll('$field', leaf));
      return;
    }
    default:
      push('invalid_type', `${leaf}: ${issue.message}`);
  }
}

/**
 * The issues (`error.issues`) of a failed parse of `root` as content issues, in schema order, each (path, code)
 * once, at most ISSUE_CAP. Parse with `{ reportInput: true }` so messages can say what arrived.
 * `prefix` is prepended to every path (merged values are checked on their own).
 */
export function contentIssues(issues: readonly ZodIssue[], root?: z.core.$ZodType, prefix = ''): Issue<ContentErrorCode>[] {
  const out: Issue<ContentErrorCode>[] = [];
  for (const issue of issues) {
    one(root, issue, prefix, out);
    if (out.length >= ISSUE_CAP) break;
  }
  const seen = new Set<string>();
  const unique = out.filter((i) => {
    const k = `${i.path}\u0000${i.code}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return unique.slice(0, ISSUE_CAP);
}
