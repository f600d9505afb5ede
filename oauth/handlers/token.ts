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

/** A required form parameter: absent and repeated (an array) get different answers. */
const requiredParam = (name: string, why = '') =>
  z.string({ error: (issue) => (issue.input === undefined ? `${name} is required${why}` : `${name} must be given once, as a string`) }).min(1, `${name} is required${why}`);

const CodeGrant = z.object({
  code: requiredParam('code').max(200, 'code is longer than 200 characters'),
  code_verifier: requiredParam('code_verifier', ' (PKCE)').max(200, 'code_verifier is longer than 200 characters'),
  redirect_uri: z.string({ error: 'redirect_uri must be given once, as a string' }).max(2000, 'redirect_uri is longer than 2000 characters').optional(),
  resource: z.string({ error: 'resource must be given once, as a string' }).max(2000, 'resource is longer than 2000 characters').optional(),
});

/**
 * POST /token. Only the authorization_code grant: the code must be unused and unexpired, issued to
 * this client, and match the PKCE verifier (S256), redirect URI and resource of its request. The
 * answer is a 30-day JWT access token and no refresh token.
 */
export function tokenRouter(oauth: OAuthService, logger: Logger): Router {
  const router = Router();
  router.use(openCors(['POST']));
  router.use(allowedMethods(['POST']));
  router.use(oauthRateLimit(15 * 60_000, 100, 'token'));
  router.use(authenticateClient(oauth.clients, logger));
  router.post('/', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    try {
      const client = res.locals[AUTHENTICATED_CLIENT] as StoredClient;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const grantType = body.grant_type;
      if (typeof grantType !== 'string' || grantType === '') throw oauthError(OAuthErrorCode.InvalidRequest, 'grant_type is required');
      if (grantType === 'refresh_token') return void (await oauth.provider.exchangeRefreshToken());
      if (grantType !== 'authorization_code') throw oauthError(OAuthErrorCode.UnsupportedGrantType, `grant_type ${grantType} is not supported; use authorization_code`);
      const parsed = CodeGrant.safeParse(body);
      if (!parsed.success) throw oauthError(OAuthErrorCode.InvalidRequest, parsed.error.issues[0]?.message ?? 'invalid token request');
      const { code, code_verifier, redirect_uri, resource } = parsed.data;
      let resourceUrl: URL | undefined;
      if (resource !== undefined) {
        if (!URL.canParse(resource)) throw oauthError(OAuthErrorCode.InvalidTarget, 'resource must be an absolute URL');
        resourceUrl = new URL(resource);
      }
      const tokens = await oauth.provider.exchangeAuthorizationCode(client, code, code_verifier, redirect_uri, resourceUrl);
      res.status(200).json(tokens);
    } catch (err) {
      sendOAuthError(res, err, logger);
    }
  });
  return router;
}
