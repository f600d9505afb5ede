import { Router, type NextFunction, type Request, type Response } from 'express';
import { h } from 'preact';
import type { Logger } from '../../src/platform/logger.js';
import { sendPage } from '../../src/platform/http/pages.js';
import { MessagePage } from '../../preview-pages/login.js';
import { parseAuthorizationRequest, singleParam } from '../authorization-request.js';
import type { StoredClient } from '../clients.js';
import { oauthErrorDescription } from '../error-description.js';
import { OAuthError, oauthError, OAuthErrorCode, oauthErrorStatus } from '../errors.js';
import { allowedMethods } from '../middleware/allowed-methods.js';
import { oauthRateLimit } from '../middleware/errors.js';
import { redirectUriRegistered } from '../redirect-uris.js';
import type { OAuthService } from '../service.js';
import { ENDPOINTS } from '../urls.js';

/** Client and redirect URI of a request, settled before anything may be sent to that URI. */
interface Destination {
  client: StoredClient;
  redirectUri: string;
  /** Whether the request named its redirect_uri (then the token request must repeat it). */
  explicit: boolean;
}

/**
 * Phase 1: the client (registered, or a metadata document fetched now) and an exactly registered
 * redirect URI — no port relaxation for loopback URIs. Until both are known, errors are answered
 * here and never redirected (RFC 6749 §4.1.2.1).
 */
async function destinationOf(oauth: OAuthService, params: Record<string, unknown>): Promise<Destination> {
  const clientId = singleParam(params, 'client_id');
  if (!clientId) throw oauthError(OAuthErrorCode.InvalidRequest, 'client_id is required');
  const client = await oauth.clients.resolve(clientId);
  if (!client) throw oauthError(OAuthErrorCode.InvalidClient, 'Unknown client_id: register the client first or use a client ID metadata document URL');
  const redirectUri = singleParam(params, 'redirect_uri');
  if (redirectUri !== undefined) {
    if (!redirectUriRegistered(redirectUri, client.redirectUris)) {
      throw oauthError(OAuthErrorCode.InvalidRequest, 'redirect_uri is not registered for this client (redirect URIs must match exactly)');
    }
    return { client, redirectUri, explicit: true };
  }
  if (client.redirectUris.length !== 1) throw oauthError(OAuthErrorCode.InvalidRequest, 'redirect_uri is required when the client has several redirect URIs');
  return { client, redirectUri: client.redirectUris[0]!, explicit: false };
}

/** A phase 1 error: a page for a person's browser, the OAuth JSON for anything else. */
function answerHere(req: Request, res: Response, err: OAuthError): void {
  if (req.accepts(['json', 'html']) === 'html') {
    const status = oauthErrorStatus(err);
    sendPage(res, h(MessagePage, { title: 'Cannot connect this app', message: `${err.message}.`.replace(/\.\.$/, '.'), status: 'error' }), status === 401 ? 400 : status);
  } else {
    res.status(oauthErrorStatus(err) === 500 ? 500 : 400).json(err.toResponseObject());
  }
}

/** A phase 2 error, sent to the client's redirect URI with state and iss (RFC 9207). */
function errorRedirect(redirectUri: string, err: OAuthError, state: string | undefined, issuer: string): string {
  const target = new URL(redirectUri);
  target.searchParams.set('error', err.code);
  target.searchParams.set('error_description', oauthErrorDescription(err.message));
  if (state !== undefined) target.searchParams.set('state', state);
  target.searchParams.set('iss', issuer);
  return target.href;
}

/**
 * GET/POST /authorize. Phase 1 settles client and redirect URI (answered here on error); phase 2
 * validates the rest (response_type=code, PKCE S256, scope, state, resource) and reports errors to
 * the redirect URI. A valid request is stored and the browser goes to the consent page (which
 * asks for login first when needed).
 */
export function authorizeRouter(oauth: OAuthService, logger: Logger): Router {
  const router = Router();
  router.use(allowedMethods(['GET', 'POST']));
  router.use(oauthRateLimit(15 * 60_000, 100, 'authorization'));
  router.all('/', async (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    const params = ((req.method === 'POST' ? req.body : req.query) ?? {}) as Record<string, unknown>;
    let destination: Destination;
    try {
      destination = await destinationOf(oauth, params);
    } catch (err) {
      if (!(err instanceof OAuthError)) {
        logger.error({ err }, 'authorization request failed');
        return next(err);
      }
      return answerHere(req, res, err);
    }
    const rawState = params.state;
    const state = typeof rawState === 'string' ? rawState : undefined;
    try {
      const request = parseAuthorizationRequest(params);
      const id = await oauth.grants.createRequest({
        clientId: destination.client.clientId,
        redirectUri: destination.redirectUri,
        redirectUriExplicit: destination.explicit,
        codeChallenge: request.codeChallenge,
        scopes: request.scopes,
        state: request.state,
        resource: request.resource,
      });
      res.redirect(302, `${ENDPOINTS.consent}?request=${encodeURIComponent(id)}`);
    } catch (err) {
      if (!(err instanceof OAuthError)) logger.error({ err }, 'authorization request failed');
      const e = err instanceof OAuthError ? err : oauthError(OAuthErrorCode.ServerError, 'Internal Server Error');
      res.redirect(302, errorRedirect(destination.redirectUri, e, state, oauth.urls().issuer));
    }
  });
  return router;
}
