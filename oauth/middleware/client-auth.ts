import type { RequestHandler } from 'express';
import type { Logger } from '../../src/platform/logger.js';
import { safeEqual, sha256Hex } from '../../src/platform/secrets.js';
import type { ClientsStore, StoredClient } from '../clients.js';
import { isOAuthError, oauthError, OAuthErrorCode } from '../errors.js';
import { sendOAuthError } from './errors.js';

/** res.locals key of the authenticated client. */
export const AUTHENTICATED_CLIENT = 'oauthClient';

const formDecode = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));

function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  if (!header) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw oauthError(OAuthErrorCode.InvalidRequest, 'Malformed Basic credentials');
  try {
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw oauthError(OAuthErrorCode.InvalidRequest, 'Malformed Basic credentials');
  }
}

/**
 * Client authentication at the token and revocation endpoints: `client_secret_basic`,
 * `client_secret_post`, or `none` for public clients (client_id only; PKCE protects the code).
 * Secrets are compared as SHA-256 in constant time: the table never holds them.
 */
export function authenticateClient(clients: ClientsStore, logger: Logger): RequestHandler {
  return async (req, res, next) => {
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const basic = basicCredentials(req.headers.authorization);
      const bodyId = typeof body.client_id === 'string' ? body.client_id : undefined;
      const bodySecret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
      if (basic && bodySecret !== undefined) throw oauthError(OAuthErrorCode.InvalidRequest, 'Use one client authentication method, not two');
      if (basic && bodyId !== undefined && bodyId !== basic.id) throw oauthError(OAuthErrorCode.InvalidRequest, 'client_id does not match the Basic credentials');
      const clientId = basic?.id ?? bodyId;
      if (!clientId) throw oauthError(OAuthErrorCode.InvalidRequest, 'client_id is required');
      const secret = basic?.secret ?? bodySecret;
      const client: StoredClient | null = await clients.find(clientId);
      if (!client) throw oauthError(OAuthErrorCode.InvalidClient, 'Unknown client');
      if (client.secretHash !== null) {
        if (!secret) throw oauthError(OAuthErrorCode.InvalidClient, 'Client authentication failed');
        if (!safeEqual(sha256Hex(secret), client.secretHash)) throw oauthError(OAuthErrorCode.InvalidClient, 'Client authentication failed');
      }
      res.locals[AUTHENTICATED_CLIENT] = client;
      next();
    } catch (err) {
      // RFC 6749 §5.2: a failed Basic authentication is a 401 with a Basic challenge.
      if (isOAuthError(err, OAuthErrorCode.InvalidClient) && /^Basic\s/i.test(req.headers.authorization ?? '')) res.setHeader('WWW-Authenticate', 'Basic realm="oauth", charset="UTF-8"');
      sendOAuthError(res, err, logger);
    }
  };
}
