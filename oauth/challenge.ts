import type { Response } from 'express';
import { errorBody, AppError } from '../src/platform/errors.js';
import { ALL_PERMISSIONS, DEFAULT_PERMISSIONS, type Permission } from '../src/platform/permissions.js';
import { oauthErrorDescription } from './error-description.js';
import { oauthUrls } from './urls.js';

export interface BearerChallenge {
  /** RFC 6750 error code; leave out when no credential was presented at all (RFC 6750 §3.1). */
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  /** Human-readable; passed through oauthErrorDescription (RFC 6749's character set). */
  description?: string;
  /** Scopes the client should request (MCP authorization: scope selection from WWW-Authenticate). */
  scope?: readonly string[];
}

const quoted = (v: string) => `"${v.replace(/["\\\r\n]/g, '')}"`;

/**
 * The WWW-Authenticate value for the MCP endpoint:
 * `Bearer resource_metadata="<PUBLIC_URL>/.well-known/oauth-protected-resource/mcp", scope="…"[, error="…", error_description="…"]`.
 */
export function mcpBearerChallenge(publicUrl: string, challenge: BearerChallenge = {}): string {
  const parts = [`resource_metadata=${quoted(oauthUrls(publicUrl).protectedResourceMetadata)}`];
  if (challenge.scope && challenge.scope.length > 0) parts.push(`scope=${quoted(challenge.scope.join(' '))}`);
  if (challenge.error) parts.push(`error=${quoted(challenge.error)}`);
  if (challenge.description) parts.push(`error_description=${quoted(oauthErrorDescription(challenge.description))}`);
  return `Bearer ${parts.join(', ')}`;
}

/**
 * 401 for /mcp: no credential, or one no resolver accepted. The header sends OAuth clients to
 * discovery; the body is our usual error JSON. `credentialPresented` adds error="invalid_token".
 */
export function sendMcpUnauthorized(res: Response, publicUrl: string, opts: { credentialPresented: boolean; scope?: readonly Permission[] }): void {
  // The management permissions are not suggested: a client must ask for them by name.
  const scope = opts.scope ?? DEFAULT_PERMISSIONS;
  const err = new AppError(
    'UNAUTHORIZED',
    opts.credentialPresented ? 'The API key or token is invalid, expired or revoked' : 'Missing credentials: send Authorization: Bearer <token or key> or X-API-Key',
  );
  res.setHeader(
    'WWW-Authenticate',
    mcpBearerChallenge(publicUrl, opts.credentialPresented ? { error: 'invalid_token', description: err.message, scope } : { scope }),
  );
  res.status(401).json(errorBody(err));
}

/**
 * 403 for /mcp when the credential is valid but lacks permissions: `error="insufficient_scope"`
 * and `scope=` naming what to ask for, so an OAuth client can ask the person again (step-up).
 * Pass the principal's current permissions as `granted` so the scope asked for keeps them too
 * (a new token replaces the old one; MCP authorization, scope challenge handling).
 */
export function sendMcpInsufficientScope(res: Response, publicUrl: string, required: readonly Permission[], granted: Iterable<Permission> = []): void {
  const wanted = new Set<Permission>([...granted, ...required]);
  const scope = ALL_PERMISSIONS.filter((p) => wanted.has(p));
  const err = new AppError('FORBIDDEN', `This token or key lacks the permission ${required.join(', ')}`, {
    extra: { requiredPermission: required[0], requiredPermissions: [...required] },
  });
  res.setHeader('WWW-Authenticate', mcpBearerChallenge(publicUrl, { error: 'insufficient_scope', description: err.message, scope }));
  res.status(403).json(errorBody(err));
}
