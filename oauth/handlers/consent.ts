import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import type { AccountsService } from '../../src/accounts/service.js';
import type { Logger } from '../../src/platform/logger.js';
import { assertSessionCsrf, requireLogin } from '../../src/accounts/session-middleware.js';
import { sendPage } from '../../src/platform/http/pages.js';
import { ConsentPage } from '../../preview-pages/consent.js';
import { MessagePage } from '../../preview-pages/login.js';
import { consentScopeDescription, isManagementScope } from '../constants.js';
import { isOAuthError, OAuthErrorCode } from '../errors.js';
import type { PendingAuthorization } from '../grants.js';
import { formActionSource } from '../redirect-uris.js';
import type { OAuthService } from '../service.js';
import { ENDPOINTS } from '../urls.js';
import { field, fieldList } from '../../src/platform/http/form-fields.js';
import { loggedIn } from '../../src/platform/http/logged-in.js';

/**
 * The CSP's form-action also governs where a submitted form may be redirected (Chromium enforces
 * it), so the consent page allows exactly this request's redirect target besides 'self'.
 */
function allowRedirectTarget(res: Response, redirectUri: string): void {
  const source = formActionSource(redirectUri);
  const csp = res.getHeader('Content-Security-Policy');
  if (!source || typeof csp !== 'string') return;
  res.setHeader('Content-Security-Policy', csp.replace(/form-action ([^;]*)/, (_m, v: string) => `form-action ${v} ${source}`));
}

const expired = (res: Response) =>
  sendPage(
    res,
    h(MessagePage, { title: 'Request expired', message: 'This authorization request is unknown, already answered or expired. Start the connection again from your assistant.', status: 'error' }),
    400,
  );

/** GET/POST /consent: after login (password + TOTP), the person allows or denies the app. */
export function consentRoutes({ oauth, accounts, logger }: { oauth: OAuthService; accounts: AccountsService; logger: Logger }): Router {
  const router = Router();

  const render = async (req: Request, res: Response, id: string, pending: PendingAuthorization, opts: { error?: string; chosen?: string[] } = {}) => {
    const s = loggedIn(req);
    const client = await oauth.clients.find(pending.clientId);
    if (!client) return expired(res);
    const account = await accounts.get(s.accountId);
    allowRedirectTarget(res, pending.redirectUri);
    sendPage(
      res,
      h(ConsentPage, {
        user: { email: s.user.email, csrfToken: s.csrfToken },
        accountName: account.name,
        requestId: id,
        client: { clientId: client.clientId, name: client.clientName, kind: client.kind, redirectUri: pending.redirectUri },
        // Management scopes start unticked: the person must choose them, not just click Allow.
        scopes: pending.scopes.map((scope) => ({
          scope,
          description: consentScopeDescription(scope),
          checked: opts.chosen ? opts.chosen.includes(scope) : !isManagementScope(scope),
          management: isManagementScope(scope),
        })),
        error: opts.error,
      }),
      opts.error ? 400 : 200,
    );
  };

  router.get(ENDPOINTS.consent, requireLogin, async (req, res) => {
    const id = typeof req.query.request === 'string' ? req.query.request : '';
    const pending = await oauth.grants.findRequest(id);
    if (!pending) return expired(res);
    await render(req, res, id, pending);
  });

  router.post(ENDPOINTS.consent, requireLogin, async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = field(req, 'request');
    const pending = await oauth.grants.findRequest(id);
    if (!pending) return expired(res);
    const approve = field(req, 'decision') === 'approve';
    const chosen = fieldList(req, 'scope');
    try {
      const answer = await oauth.grants.decide(id, { userId: s.user.id, accountId: s.accountId }, { approve, scopes: chosen });
      if (!answer) return expired(res);
      logger.info({ clientId: pending.clientId, accountId: s.accountId, userId: s.user.id, approved: approve }, 'oauth consent');
      res.redirect(303, answer.redirectTo);
    } catch (err) {
      if (isOAuthError(err, OAuthErrorCode.InvalidRequest)) return render(req, res, id, pending, { error: err.message, chosen });
      throw err;
    }
  });

  return router;
}
