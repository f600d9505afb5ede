import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError, errorBody, isAppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { INVALID_UTF8_TYPE } from './utf8.js';
import { JSON_TOO_DEEP_TYPE, MAX_JSON_DEPTH } from './json-body.js';
import { unstorableTextError } from '../db/sql-errors.js';

/** Maps what body-parser throws (broken JSON, oversize, wrong charset) onto our codes. */
function fromParserError(err: unknown): AppError | null {
  // The router decodes path parameters; a malformed percent-escape (`/u/%FF`, `%ZZ`) is the caller's mistake.
  if (err instanceof URIError) {
    return new AppError('VALIDATION_ERROR', 'The URL holds a malformed percent-escape', { details: [{ path: 'url', code: 'invalid_escape', message: 'Percent-escapes must be % followed by two hex digits and decode to UTF-8' }] });
  }
  if (typeof err !== 'object' || err === null) return null;
  const type = 'type' in err ? err.type : undefined;
  switch (type) {
    case 'entity.parse.failed':
      return new AppError('INVALID_JSON', 'The request body is not valid JSON');
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported body encoding; send UTF-8 JSON');
    case INVALID_UTF8_TYPE:
      return new AppError('VALIDATION_ERROR', 'The request body is not valid UTF-8', {
        details: [{ path: '', code: 'invalid_utf8', message: 'The body contains bytes that are not UTF-8; send the text encoded as UTF-8' }],
      });
    case JSON_TOO_DEEP_TYPE:
      return new AppError('VALIDATION_ERROR', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`, {
        details: [{ path: '', code: 'too_deep', message: `Arrays and objects may nest at most ${MAX_JSON_DEPTH} levels` }],
      });
    case 'parameters.too.many':
      return new AppError('PAYLOAD_TOO_LARGE', 'The form has too many fields (at most 1,000)');
    case 'querystring.parse.rangeError':
      return new AppError('VALIDATION_ERROR', 'The form body is nested too deeply');
    case 'request.aborted':
      return new AppError('VALIDATION_ERROR', 'The request was aborted');
    default:
      break;
  }
  // zlib's refusal of a body whose Content-Encoding (gzip, deflate, br) does not match its bytes.
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new AppError('VALIDATION_ERROR', 'The request body is not encoded as its Content-Encoding says', {
      details: [{ path: '', code: 'invalid_encoding', message: 'Send the body compressed as Content-Encoding names it, or without Content-Encoding' }],
    });
  }
  // Any other refusal body-parser marks as the client's (4xx, exposable) stays a client error.
  const status = (err as { status?: unknown }).status;
  if ((err as { expose?: unknown }).expose === true && typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError('VALIDATION_ERROR', 'The request body could not be read');
  }
  return null;
}

/** What body-parser threw, as the AppError the caller gets, or null when it is not a body-parser refusal. */
export const bodyParserError = fromParserError;

/** Requests from a browser to a page route get an HTML error page instead of JSON. */
export type HtmlErrorRenderer = (res: Response, err: AppError) => void;

const isApiPath = (p: string) => p.startsWith('/api/') || p === '/api' || p.startsWith('/mcp') || p.startsWith('/.well-known/') || p.startsWith('/oauth/') || p === '/openapi.json';

/** The one error mapper: every REST error leaves here in the shape of DESIGN §4. */
export function errorHandler(logger: Logger, renderHtml?: HtmlErrorRenderer): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = isAppError(err) ? err : (fromParserError(err) ?? unstorableTextError(err));
    if (!appError) {
      logger.error({ err, requestId: req.requestId, route: req.originalUrl }, 'unhandled error');
    }
    const e = appError ?? new AppError('INTERNAL', `Internal error (request ${req.requestId})`);
    if (res.headersSent) return;
    for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v);
    if (renderHtml && !isApiPath(req.path) && req.accepts(['json', 'html']) === 'html') return renderHtml(res, e);
    res.status(e.status).json(errorBody(e));
  };
}

export const notFoundHandler: RequestHandler = (req) => {
  throw new AppError('ROUTE_NOT_FOUND', `No route for ${req.method} ${req.path}`);
};
