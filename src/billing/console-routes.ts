import { Router } from 'express';
import { h } from 'preact';
import { AppError, isAppError } from '../platform/errors.js';
import { sendPage } from '../platform/http/pages.js';
import { isId } from '../platform/ids.js';
import { USAGE_DAYS, type BudgetsService } from './budgets.js';
import { UsagePage } from './budget-page.js';
import { CreditsPage } from './credits-page.js';
import { LedgerQuerySchema, type LedgerPage } from './schemas.js';
import type { BillingService } from './service.js';
import { loggedIn } from '../platform/http/logged-in.js';

/*
 * Billing's console pages, each a router mounted at its path behind the console frame's requireLogin (src/app.ts).
 * Billing sits below accounts and oauth in layers.json, so what it reads from them comes in as the shapes below
 * (AccountsService, ApiKeysService and OAuthService fit them), not as their types.
 */

/** The account's name and time zone for the console frame (AccountsService.get). */
export interface AccountNamePort {
  get(accountId: string): Promise<{ name: string; timezone: string }>;
}

/** Days in the Credits page's chart. */
export const CHART_DAYS = 30;
const PAGE_SIZE = 25;

/**
 * The Credits page (/console/credits): balance, a chart of the last 30 days and the credit history, paged with the
 * ledger's own cursor. Takes only the services it reads.
 */
export function creditsConsole(d: { billing: Pick<BillingService, 'balance' | 'ledger' | 'daily'>; accounts: AccountNamePort }): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const s = loggedIn(req);
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

export interface UsageConsoleDeps {
  accounts: AccountNamePort;
  /** The account's API keys (ApiKeysService.list). */
  apiKeys: { list(accountId: string): Promise<ReadonlyArray<{ id: string; name: string }>> };
  /** The account's connected OAuth apps (OAuthService.connectedApps.list). */
  oauth: { connectedApps: { list(accountId: string): Promise<ReadonlyArray<{ clientId: string; clientName: string | null }>> } };
  budgets: Pick<BudgetsService, 'overview' | 'daily'>;
}

/** One credential's last 30 days (/console/usage?credential=<key id or client id>, issue #29). */
export function usageConsole({ accounts, apiKeys, oauth, budgets }: UsageConsoleDeps): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const s = loggedIn(req);
    const user = { email: s.user.email, csrfToken: s.csrfToken };
    const accountId = s.accountId;
    const id = typeof req.query.credential === 'string' ? req.query.credential : '';
    const [account, keys, apps] = await Promise.all([accounts.get(accountId), apiKeys.list(accountId), oauth.connectedApps.list(accountId)]);
    const key = isId('key', id) ? keys.find((k) => k.id === id) : undefined;
    const app = key ? undefined : apps.find((a) => a.clientId === id);
    // Another account's key or app, or none: not found, as everywhere.
    if (!key && !app) throw new AppError('NOT_FOUND', 'No API key or connected app of this account has this id');
    const [overview, days] = await Promise.all([budgets.overview(accountId, [id]), budgets.daily(accountId, id, USAGE_DAYS)]);
    sendPage(
      res,
      h(UsagePage, {
        user,
        accountName: account.name,
        active: key ? 'api-keys' : 'apps',
        label: key ? `key “${key.name}”` : `app “${app!.clientName ?? 'Unnamed app'}”`,
        backHref: key ? '/console/api-keys' : '/console/apps',
        budget: overview[id]!,
        days,
      }),
    );
  });
  return router;
}
