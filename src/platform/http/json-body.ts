import type { IncomingMessage, ServerResponse } from 'node:http';
import { requireUtf8 } from './utf8.js';

/** The body-parser error type for JSON nested deeper than MAX_JSON_DEPTH (mapped to VALIDATION_ERROR in errors.ts). */
export const JSON_TOO_DEEP_TYPE = 'entity.too.deep';

/**
 * Deepest nesting of arrays and objects a JSON body may have. The deepest legitimate body (a
 * JSON-RPC call of a carousel card's calendar action) is about 12 levels; 64 leaves room and stops
 * what JSON.parse accepts but every recursive walk after it (JSON.stringify, schema validation)
 * would overflow the stack on: 100,000 nested brackets fit in a 2 MB body.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** How deep the brackets of a JSON text go, outside strings; stops counting past `limit`. One pass over the bytes. */
export function jsonDepthExceeds(buf: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** body-parser `verify` hook of every JSON body: UTF-8 (requireUtf8) and at most MAX_JSON_DEPTH deep. */
export function checkJsonBody(req: IncomingMessage, res: ServerResponse, buf: Buffer, encoding: string | null): void {
  requireUtf8(req, res, buf, encoding);
  if (jsonDepthExceeds(buf, MAX_JSON_DEPTH)) {
    throw Object.assign(new Error(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`), { status: 400, type: JSON_TOO_DEEP_TYPE });
  }
}
