import { Router } from 'express';
import type { Logger } from '../src/platform/logger.js';
import { safeOAuthErrors } from './error-description.js';
import { authorizeRouter } from './handlers/authorize.js';
import { metadataRouter } from './handlers/metadata.js';
import { registerRouter } from './handlers/register.js';
import { revokeRouter } from './handlers/revoke.js';
import { tokenRouter } from './handlers/token.js';
import type { OAuthService } from './service.js';
import { ENDPOINTS } from './urls.js';

/**
 * The authorization server's protocol endpoints, mounted at the application root where MCP
 * clients of every revision look for them (one handler per file under handlers/). Metadata is
 * built per request from PUBLIC_URL, which may follow the bound port. The consent page is a page
 * route (handlers/consent.ts) mounted with the sessions.
 */
export function oauthRouter(oauth: OAuthService, logger: Logger): Router {
  const router = Router();
  router.use([ENDPOINTS.authorize, ENDPOINTS.register, ENDPOINTS.token, ENDPOINTS.revoke], safeOAuthErrors());
  router.use(metadataRouter(oauth));
  router.use(ENDPOINTS.authorize, authorizeRouter(oauth, logger));
  router.use(ENDPOINTS.register, registerRouter(oauth, logger));
  router.use(ENDPOINTS.token, tokenRouter(oauth, logger));
  router.use(ENDPOINTS.revoke, revokeRouter(oauth, logger));
  return router;
}
