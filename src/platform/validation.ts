import type { z } from 'zod';
import { AppError, type ErrorDetail } from './errors.js';

/** `["content","suggestions",3,"reply","text"]` → `content.suggestions[3].reply.text`. */
export function formatPath(path: ReadonlyArray<PropertyKey>, prefix = ''): string {
  let out = prefix;
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

/** The field a path ends in, for messages: `content.cardActions[0].text` → `text`. */
export function fieldNameOf(path: ReadonlyArray<PropertyKey>): string {
  for (let i = path.length - 1; i >= 0; i--) if (typeof path[i] === 'string') return path[i] as string;
  return 'value';
}

/**
 * Maps zod issues to our detail items, with stable codes a client can switch on. A refinement that
 * does not know where it runs writes `$field` for the field's name (content/schemas.ts); it is
 * filled in here, so no message reaches a caller with a placeholder in it.
 */
export function zodDetails(error: z.ZodError, prefix = ''): ErrorDetail[] {
  return error.issues.map((issue) => ({
    path: formatPath(issue.path, prefix),
    code: issueCode(issue),
    message: issue.message.replaceAll('$field', fieldNameOf(issue.path)),
  }));
}

function issueCode(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array' ? 'too_long' : 'too_big';
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array' ? 'too_short' : 'too_small';
    case 'invalid_type':
      // zod 4 does not keep the input on issues by default; its message names what it received.
      return issue.message.endsWith('received undefined') ? 'required' : 'invalid_type';
    case 'unrecognized_keys':
      return 'unknown_field';
    case 'invalid_value':
      return 'invalid_enum';
    case 'custom':
      // A refinement may name its own stable code (content/characters.ts: invalid_character).
      return typeof issue.params?.code === 'string' ? issue.params.code : 'custom';
    default:
      return issue.code;
  }
}

/** Parses or throws the 400 VALIDATION_ERROR with one detail per problem. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what = 'Request body'): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const details = zodDetails(result.error);
    const first = details[0];
    throw new AppError(
      'VALIDATION_ERROR',
      `${what} is invalid${first ? `: ${first.path ? `${first.path}: ` : ''}${first.message}` : ''}`,
      { details },
    );
  }
  return result.data;
}
