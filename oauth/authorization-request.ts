import { oauthError, OAuthErrorCode } from './errors.js';

/** What /authorize needs once client and redirect URI are settled (those errors are never redirected). */
export interface AuthorizationRequestParams {
  codeChallenge: string;
  /** Raw requested scope strings (may be empty); unknown ones are ignored later. */
  scopes: string[];
  state: string | undefined;
  resource: string | undefined;
}

// RFC 7636 §4.2: BASE64URL(SHA-256(verifier)) without padding is always 43 characters.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * One parameter of the request: absent, or a single string. Repeated parameters are refused
 * (RFC 6749 §3.1: "parameters MUST NOT be included more than once"); express hands them as arrays.
 */
export function singleParam(params: Record<string, unknown>, name: string): string | undefined {
  const v = params[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw oauthError(OAuthErrorCode.InvalidRequest, `${name} must be given once, as a string`);
  return v;
}

/**
 * The rest of an authorization request (OAuth 2.1 §4.1.1): response_type=code, a PKCE challenge
 * with method S256 (plain and a missing method, which means plain, are refused), optional scope,
 * state and resource (RFC 8707; whether it names our MCP endpoint is checked when the request is
 * stored). Throws the OAuthError to report to the redirect URI.
 */
export function parseAuthorizationRequest(params: Record<string, unknown>): AuthorizationRequestParams {
  const responseType = singleParam(params, 'response_type');
  if (responseType === undefined || responseType === '') throw oauthError(OAuthErrorCode.InvalidRequest, 'response_type is required (use code)');
  if (responseType !== 'code') throw oauthError(OAuthErrorCode.UnsupportedResponseType, `response_type ${responseType} is not supported; use code`);
  const method = singleParam(params, 'code_challenge_method');
  if (method !== 'S256') {
    throw oauthError(OAuthErrorCode.InvalidRequest, method === undefined ? 'code_challenge_method is required and must be S256 (PKCE)' : `code_challenge_method ${method} is not supported; use S256`);
  }
  const codeChallenge = singleParam(params, 'code_challenge');
  if (!codeChallenge) throw oauthError(OAuthErrorCode.InvalidRequest, 'code_challenge is required (PKCE)');
  if (!S256_CHALLENGE.test(codeChallenge)) throw oauthError(OAuthErrorCode.InvalidRequest, 'code_challenge must be the 43-character base64url SHA-256 of the code verifier');
  const scope = singleParam(params, 'scope');
  if (scope !== undefined && scope.length > 2000) throw oauthError(OAuthErrorCode.InvalidScope, 'scope is too long');
  const state = singleParam(params, 'state');
  if (state !== undefined && state.length > 2000) throw oauthError(OAuthErrorCode.InvalidRequest, 'state is longer than 2000 characters');
  const resource = singleParam(params, 'resource');
  if (resource !== undefined && (resource.length > 2000 || !URL.canParse(resource))) throw oauthError(OAuthErrorCode.InvalidTarget, 'resource must be an absolute URL');
  return { codeChallenge, scopes: scope ? scope.split(' ').filter((s) => s !== '') : [], state, resource };
}
