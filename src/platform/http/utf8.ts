import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The body-parser error type for a body that is not UTF-8 (mapped to VALIDATION_ERROR in errors.ts). */
export const INVALID_UTF8_TYPE = 'entity.invalid.utf8';

/**
 * body-parser `verify` hook: a UTF-8 body must really be UTF-8. Without it invalid bytes are
 * silently replaced by U+FFFD, so what we store and send is not what the client wrote. isUtf8 is
 * the strict decoder's check (a TextDecoder with fatal: true) without building the string twice;
 * it also refuses encoded surrogates and overlong forms.
 */
export function requireUtf8(_req: IncomingMessage, _res: ServerResponse, buf: Buffer, encoding: string | null): void {
  if (encoding !== null && encoding.toLowerCase() !== 'utf-8' && encoding.toLowerCase() !== 'utf8') return;
  if (!isUtf8(buf)) {
    throw Object.assign(new Error('The request body is not valid UTF-8'), { status: 400, type: INVALID_UTF8_TYPE });
  }
}
