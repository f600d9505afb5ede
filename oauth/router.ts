import { Router } from 'express';
import type { Logger } from '../src/platform/logger.js';
import { safeOAuthErrors } from './error-description.js';
import { authorizeRouter } from './handlers/authorize.js';
import { metadataRouter } from './handlers/metadata.js';
import { registerHandler } from './handlers/register.js';
import { revokeRouter } from './handlers/revoke.js';
import { tokenRouter } from './handlers/token.js';
import type { OAuthService } from './service.js';
import { ENDPOINTS } from './urls.js';

/**
 * The authorization server's protocol endpoints, mounted at the application root like the SDK's
 * mcpAuthRouter (which we do not mount as a whole: it fixes its metadata at start-up, before the
 * port — and so PUBLIC_URL — may be known, and its token endpoint expects plaintext client secrets).
 * The consent page is a page route (handlers/consent.ts) mounted with the sessions.
 */
export function oauthRouter(oauth: OAuthService, logger: Logger): Router {
  const router = Router();
  router.use([ENDPOINTS.authorize, ENDPOINTS.register, ENDPOINTS.token, ENDPOINTS.revoke], safeOAuthErrors());
  router.use(metadataRouter(oauth));
  router.use(ENDPOINTS.authorize, authorizeRouter(oauth, logger));
  router.use(ENDPOINTS.register, registerHandler(oauth));
  router.use(ENDPOINTS.token, tokenRouter(oauth, logger));
  router.use(ENDPOINTS.revoke, revokeRouter(oauth, logger));
  return router;
}
