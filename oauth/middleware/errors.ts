import type { Response } from 'express';
import { rateLimit, type RateLimitRequestHandler } from 'express-rate-limit';
import { InvalidClientError, OAuthError, ServerError, TooManyRequestsError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { Logger } from '../../src/platform/logger.js';

/** Status of an OAuth error response (RFC 6749 §5.2): 401 for invalid_client, 500/429 where they apply, else 400. */
export function oauthErrorStatus(err: OAuthError): number {
  if (err instanceof InvalidClientError) return 401;
  if (err instanceof ServerError) return 500;
  if (err instanceof TooManyRequestsError) return 429;
  return 400;
}

/** Sends `{error, error_description}`; anything that is not an OAuthError is logged and becomes server_error. */
export function sendOAuthError(res: Response, err: unknown, logger: Logger): void {
  const e = err instanceof OAuthError ? err : new ServerError('Internal Server Error');
  if (!(err instanceof OAuthError)) logger.error({ err }, 'oauth endpoint failed');
  res.setHeader('Cache-Control', 'no-store');
  res.status(oauthErrorStatus(e)).json(e.toResponseObject());
}

/** Per-address limits on the protocol endpoints, answering in OAuth's error shape. */
export function oauthRateLimit(windowMs: number, limit: number, what: string): RateLimitRequestHandler {
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    message: new TooManyRequestsError(`Too many ${what} requests; try again later`).toResponseObject(),
  });
}
