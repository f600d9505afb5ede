import { Router } from 'express';
import { z } from 'zod';
import type { Logger } from '../../src/platform/logger.js';
import type { StoredClient } from '../clients.js';
import { oauthError, OAuthErrorCode } from '../errors.js';
import { allowedMethods } from '../middleware/allowed-methods.js';
import { AUTHENTICATED_CLIENT, authenticateClient } from '../middleware/client-auth.js';
import { openCors } from '../middleware/cors.js';
import { oauthRateLimit, sendOAuthError } from '../middleware/errors.js';
import type { OAuthService } from '../service.js';

/** RFC 7009 §2.1: the token, and a hint this server does not need (it only issues access tokens). */
const RevocationRequest = z.object({ token: z.string(), token_type_hint: z.string().optional() });

/**
 * POST /revoke (RFC 7009). The client authenticates as at the token endpoint; a token it holds is
 * revoked at once. Unknown, expired, malformed or other clients' tokens get the same 200, so the
 * endpoint tells nobody whether a token exists.
 */
export function revokeRouter(oauth: OAuthService, logger: Logger): Router {
  const router = Router();
  router.use(openCors(['POST']));
  router.use(allowedMethods(['POST']));
  router.use(oauthRateLimit(15 * 60_000, 100, 'revocation'));
  router.use(authenticateClient(oauth.clients, logger));
  router.post('/', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    try {
      const parsed = RevocationRequest.safeParse(req.body ?? {});
      if (!parsed.success) throw oauthError(OAuthErrorCode.InvalidRequest, 'token is required');
      await oauth.provider.revokeToken(res.locals[AUTHENTICATED_CLIENT] as StoredClient, parsed.data.token);
      res.status(200).json({});
    } catch (err) {
      sendOAuthError(res, err, logger);
    }
  });
  return router;
}
