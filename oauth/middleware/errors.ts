import type { Response } from 'express';
import { rateLimit, type RateLimitRequestHandler } from 'express-rate-limit';
import type { Logger } from '../../src/platform/logger.js';
import { OAuthError, oauthError, OAuthErrorCode, oauthErrorStatus } from '../errors.js';

export { oauthErrorStatus };

/** Sends `{error, error_description}`; anything that is not an OAuthError is logged and becomes server_error. */
export function sendOAuthError(res: Response, err: unknown, logger: Logger): void {
  const e = err instanceof OAuthError ? err : oauthError(OAuthErrorCode.ServerError, 'Internal Server Error');
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
    message: oauthError(OAuthErrorCode.TooManyRequests, `Too many ${what} requests; try again later`).toResponseObject(),
  });
}
