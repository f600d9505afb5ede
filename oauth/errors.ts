import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';

/**
 * OAuth error responses (RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2, RFC 8707): the kept SDK's
 * one OAuthError class, which carries its RFC error code, instead of a class per code. Every
 * endpoint throws these; middleware/errors.ts turns them into `{error, error_description}`.
 */
export { OAuthError, OAuthErrorCode };

export const oauthError = (code: OAuthErrorCode, message: string): OAuthError => new OAuthError(code, message);

/** Whether `err` is an OAuth error with this code. */
export const isOAuthError = (err: unknown, code?: OAuthErrorCode): err is OAuthError =>
  err instanceof OAuthError && (code === undefined || (err.code as OAuthErrorCode) === code);

/** HTTP status of an OAuth error response: 401 for invalid_client (RFC 6749 §5.2), 405/429/500 where they apply, else 400. */
const STATUS: Partial<Record<string, number>> = {
  [OAuthErrorCode.InvalidClient]: 401,
  [OAuthErrorCode.MethodNotAllowed]: 405,
  [OAuthErrorCode.TooManyRequests]: 429,
  [OAuthErrorCode.ServerError]: 500,
};

export function oauthErrorStatus(err: OAuthError): number {
  return STATUS[err.code] ?? 400;
}
