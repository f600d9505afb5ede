import { randomBytes } from 'node:crypto';
import { Router } from 'express';
import type { Logger } from '../../src/platform/logger.js';
import { ClientMetadataSchema, firstIssue } from '../client-metadata.js';
import { oauthError, OAuthErrorCode } from '../errors.js';
import { allowedMethods } from '../middleware/allowed-methods.js';
import { openCors } from '../middleware/cors.js';
import { oauthRateLimit, sendOAuthError } from '../middleware/errors.js';
import type { OAuthService } from '../service.js';

/**
 * POST /register (RFC 7591), kept for 2025 clients: the 2026-07-28 authorization spec deprecates
 * it in favour of client ID metadata documents (docs/decisions.md). Shape validation here, at most
 * 20 registrations per hour per address; the store checks redirect URIs, grant and response
 * types, assigns a `cli_…` id and keeps only the secret's SHA-256. Confidential clients get a
 * 256-bit secret that does not expire (client_secret_expires_at: 0).
 */
export function registerRouter(oauth: OAuthService, logger: Logger): Router {
  const router = Router();
  router.use(openCors(['POST']));
  router.use(allowedMethods(['POST']));
  router.use(oauthRateLimit(60 * 60_000, 20, 'client registration'));
  router.post('/', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    try {
      const parsed = ClientMetadataSchema.safeParse(req.body ?? {});
      if (!parsed.success) throw oauthError(OAuthErrorCode.InvalidClientMetadata, firstIssue(parsed.error, 'invalid client metadata'));
      const metadata = parsed.data;
      const secret = metadata.token_endpoint_auth_method === 'none' ? undefined : randomBytes(32).toString('hex');
      const registered = await oauth.clients.registerClient({ ...metadata, ...(secret ? { client_secret: secret } : {}) });
      res.status(201).json(registered);
    } catch (err) {
      sendOAuthError(res, err, logger);
    }
  });
  return router;
}
