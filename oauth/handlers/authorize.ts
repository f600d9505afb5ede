import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { InvalidClientError, InvalidRequestError, OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { Logger } from '../../src/platform/logger.js';
import { sendPage } from '../../src/platform/http/pages.js';
import { MessagePage } from '../../preview-pages/login.js';
import { oauthErrorStatus, oauthRateLimit } from '../middleware/errors.js';
import { REDIRECT_URI_EXPLICIT } from '../provider.js';
import { redirectUriRegistered } from '../redirect-uris.js';
import type { OAuthService } from '../service.js';

/**
 * GET/POST /authorize. Our guard runs first and settles what must never be answered by a redirect:
 * the client (registered, or a metadata document fetched now) and an exactly registered redirect
 * URI — the SDK's handler would accept a loopback redirect URI on any port. The SDK's
 * authorizationHandler then validates the rest (response_type=code, PKCE with S256 only, scope,
 * state, resource) and reports those errors to the redirect URI; it calls provider.authorize, which
 * records the request and sends the browser to the consent page.
 */
export function authorizeRouter(oauth: OAuthService, logger: Logger): Router {
  const router = Router();
  router.use(oauthRateLimit(15 * 60_000, 100, 'authorization'));
  router.all('/', async (req: Request, res: Response, next) => {
    const params = ((req.method === 'POST' ? req.body : req.query) ?? {}) as Record<string, unknown>;
    const clientId = params.client_id;
    if (typeof clientId !== 'string' || clientId === '') return next();
    try {
      const client = await oauth.clients.resolve(clientId);
      if (!client) throw new InvalidClientError('Unknown client_id: register the client first or use a client ID metadata document URL');
      const redirectUri = params.redirect_uri;
      if (redirectUri !== undefined) {
        if (typeof redirectUri !== 'string' || !redirectUriRegistered(redirectUri, client.redirectUris)) {
          throw new InvalidRequestError('redirect_uri is not registered for this client (redirect URIs must match exactly)');
        }
      } else if (client.redirectUris.length !== 1) {
        throw new InvalidRequestError('redirect_uri is required when the client has several redirect URIs');
      }
      res.locals[REDIRECT_URI_EXPLICIT] = redirectUri !== undefined;
      next();
    } catch (err) {
      if (!(err instanceof OAuthError)) {
        logger.error({ err }, 'authorization request failed');
        return next(err);
      }
      // Never redirect when client or redirect URI are in doubt: answer here (RFC 6749 §4.1.2.1).
      res.setHeader('Cache-Control', 'no-store');
      if (req.accepts(['json', 'html']) === 'html') {
        sendPage(res, h(MessagePage, { title: 'Cannot connect this app', message: `${err.message}.`.replace(/\.\.$/, '.'), status: 'error' }), oauthErrorStatus(err) === 401 ? 400 : oauthErrorStatus(err));
      } else {
        res.status(400).json(err.toResponseObject());
      }
    }
  });
  router.use(authorizationHandler({ provider: oauth.provider, rateLimit: false }));
  return router;
}
