import { Router } from 'express';
import { h } from 'preact';
import type { AccountsService } from '../accounts/service.js';
import { requireLogin } from '../accounts/session-middleware.js';
import { isAppError } from '../platform/errors.js';
import { sendPage } from '../platform/http/pages.js';
import { CreditsPage } from '../billing/credits-page.js';
import { LedgerQuerySchema, type LedgerPage } from '../billing/schemas.js';
import type { BillingService } from '../billing/service.js';

/** Days in the Credits page's chart. */
export const CHART_DAYS = 30;
const PAGE_SIZE = 25;

/**
 * The console's Credits page (/console/credits): balance, a chart of the last 30 days and the
 * credit history, paged with the ledger's own cursor. Takes only the services it reads.
 */
export function creditsConsoleRoutes(d: { billing: Pick<BillingService, 'balance' | 'ledger' | 'daily'>; accounts: Pick<AccountsService, 'get'> }): Router {
  const router = Router();
  router.get('/console/credits', requireLogin, async (req, res) => {
    const s = req.session!;
    const cursor = typeof req.query.cursor === 'string' && req.query.cursor !== '' ? req.query.cursor : undefined;
    let history: LedgerPage | null = null;
    let error: string | undefined;
    try {
      history = await d.billing.ledger(s.accountId, LedgerQuerySchema.parse({ limit: PAGE_SIZE, ...(cursor !== undefined ? { cursor } : {}) }));
    } catch (err) {
      // A hand-edited or stale link: say so and show nothing rather than guess a position.
      if (!isAppError(err) || (err.code !== 'INVALID_CURSOR' && err.code !== 'VALIDATION_ERROR')) throw err;
      error = 'That page of the history does not exist. Start again from the newest entries.';
    }
    const [account, balance, days] = await Promise.all([d.accounts.get(s.accountId), d.billing.balance(s.accountId), d.billing.daily(s.accountId, CHART_DAYS)]);
    const next = history?.pagination.nextCursor ?? null;
    sendPage(
      res,
      h(CreditsPage, {
        user: { email: s.user.email, csrfToken: s.csrfToken },
        accountName: account.name,
        timezone: account.timezone,
        balance: balance.credits,
        days,
        entries: history?.data ?? [],
        olderHref: next ? `/console/credits?cursor=${encodeURIComponent(next)}` : null,
        paged: cursor !== undefined,
        error,
      }),
      error ? 400 : 200,
    );
  });
  return router;
}
