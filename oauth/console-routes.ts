import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import type { AccountsService } from '../src/accounts/service.js';
import { assertSessionCsrf } from '../src/accounts/session-middleware.js';
import type { BudgetsService } from '../src/billing/budgets.js';
import { limitsOfForm } from '../src/billing/limits-form.js';
import { AppError, isAppError } from '../src/platform/errors.js';
import { field } from '../src/platform/http/form-fields.js';
import { sendPage } from '../src/platform/http/pages.js';
import { isId } from '../src/platform/ids.js';
import type { Logger } from '../src/platform/logger.js';
import { AppsPage } from './apps-page.js';
import type { ConnectedApps } from './connected-apps.js';
import { loggedIn } from '../src/platform/http/logged-in.js';

/** Fixed confirmations selected by ?done=…; nothing from the request is echoed. */
const NOTICES: Record<string, string> = {
  'app-revoked': 'The app’s access was revoked. It has to be authorized again to connect.',
  'limits-saved': 'Limits saved. They hold from the next send or preview.',
};

export interface AppsConsoleDeps {
  accounts: Pick<AccountsService, 'get'>;
  oauth: { connectedApps: Pick<ConnectedApps, 'list' | 'revoke'> };
  /** Budgets per app: their limits and use (issue #29). */
  budgets: Pick<BudgetsService, 'overview' | 'setLimits'>;
  logger: Logger;
}

/**
 * The console's connected OAuth apps page (/console/apps, mounted behind the console frame's requireLogin): the apps
 * people of the account authorized, with their budgets; limits and revoke. Every POST carries the session's CSRF
 * token; every query is scoped to the session's account.
 */
export function appsConsole({ accounts, oauth, budgets, logger }: AppsConsoleDeps): Router {
  const router = Router();

  const appsPage = async (req: Request, res: Response, limitsError?: string, status = 200) => {
    const s = loggedIn(req);
    const user = { email: s.user.email, csrfToken: s.csrfToken };
    const [account, apps] = await Promise.all([accounts.get(s.accountId), oauth.connectedApps.list(s.accountId)]);
    const appBudgets = await budgets.overview(s.accountId, [...new Set(apps.map((a) => a.clientId))]);
    const notice = typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined;
    sendPage(res, h(AppsPage, { user, accountName: account.name, timezone: account.timezone, apps, budgets: appBudgets, limitsError, notice }), status);
  };

  router.get('/', (req, res) => appsPage(req, res));

  router.post('/limits', async (req, res) => {
    const s = assertSessionCsrf(req);
    const clientId = field(req, 'client_id');
    if (!clientId || clientId.length > 2000) throw new AppError('NOT_FOUND', 'Connected app not found');
    try {
      const limits = await budgets.setLimits(s.accountId, { id: clientId, kind: 'app' }, limitsOfForm(req));
      logger.info({ accountId: s.accountId, userId: s.user.id, clientId, limits }, 'oauth app limits changed in console');
      res.redirect(303, '/console/apps?done=limits-saved');
    } catch (err) {
      if (!isAppError(err) || err.code !== 'VALIDATION_ERROR') throw err;
      await appsPage(req, res, err.message, 400);
    }
  });

  router.post('/revoke', async (req, res) => {
    const s = assertSessionCsrf(req);
    const clientId = field(req, 'client_id');
    const userId = field(req, 'user_id');
    if (!clientId || !isId('usr', userId)) throw new AppError('NOT_FOUND', 'Connected app not found');
    const n = await oauth.connectedApps.revoke(s.accountId, clientId, userId);
    logger.info({ accountId: s.accountId, userId: s.user.id, clientId, tokens: n }, 'oauth app revoked in console');
    res.redirect(303, '/console/apps?done=app-revoked');
  });

  return router;
}
