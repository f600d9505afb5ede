import { Router } from 'express';
import { h } from 'preact';
import type { ApiKeysService } from '../accounts/api-keys.js';
import type { AccountsService } from '../accounts/service.js';
import { requireLogin } from '../accounts/session-middleware.js';
import type { SendersService } from '../senders/service.js';
import type { OAuthService } from '../../oauth/service.js';
import { sendPage, type PageLocalValues } from '../platform/http/pages.js';
import { OverviewPage } from './overview-page.js';
import type { ConsoleSources } from './sources.js';
import { loggedIn } from '../platform/http/logged-in.js';

/**
 * One console page of an area: the path it is mounted at and its router, whose routes are relative to that path
 * (src/app.ts lists them, in order, the way it lists the REST areas).
 */
export type ConsolePage = [base: `/console/${string}`, router: Router];

/** What the overview reads itself; the other areas' data comes in as ConsoleSources. */
export interface ConsoleDeps {
  accounts: Pick<AccountsService, 'get'>;
  apiKeys: Pick<ApiKeysService, 'list'>;
  senders: Pick<SendersService, 'list'>;
  oauth: { connectedApps: Pick<OAuthService['connectedApps'], 'list'> };
}

/**
 * The account console (/console/*) for logged-in people: the frame every page shares (the login check, the count
 * beside the Approvals tab), the overview (/console: counts, pending previews, batch progress, recent messages — data
 * from ConsoleSources) and each area's pages, mounted in the order given. Every query is scoped to the session's account.
 */
export function consoleRoutes({ accounts, apiKeys, senders, oauth }: ConsoleDeps, sources: ConsoleSources, pages: readonly ConsolePage[]): Router {
  const router = Router();
  router.use('/console', requireLogin);
  // The count beside the Approvals tab, on every console page (read by ConsoleFrame through sendPage).
  if (sources.approvalsWaiting) {
    const waiting = sources.approvalsWaiting;
    router.use('/console', async (req, res, next) => {
      (res.locals as { page?: PageLocalValues }).page = { approvalsWaiting: await waiting(loggedIn(req).accountId) };
      next();
    });
  }

  router.get('/console', async (req, res) => {
    const s = loggedIn(req);
    const user = { email: s.user.email, csrfToken: s.csrfToken };
    const accountId = s.accountId;
    const [account, keys, apps, senderList, pendingPreviews, recentMessages, batchJobs] = await Promise.all([
      accounts.get(accountId),
      apiKeys.list(accountId),
      oauth.connectedApps.list(accountId),
      senders.list(accountId),
      sources.pendingPreviews ? sources.pendingPreviews(accountId) : Promise.resolve(null),
      sources.recentMessages ? sources.recentMessages(accountId) : Promise.resolve(null),
      sources.batchJobs ? sources.batchJobs(accountId) : Promise.resolve(null),
    ]);
    sendPage(
      res,
      h(OverviewPage, {
        user,
        account: { name: account.name, credits: account.credits, timezone: account.timezone, approvalRequired: account.approvalRequired },
        counts: { activeKeys: keys.filter((k) => k.revokedAt === null).length, connectedApps: apps.length, senders: senderList.length },
        pendingPreviews,
        recentMessages,
        batchJobs,
      }),
    );
  });

  // Behind the login check and the Approvals count above.
  for (const [base, page] of pages) router.use(base, page);
  return router;
}
