import { Router } from 'express';
import { h } from 'preact';
import type { AccountsService } from '../accounts/service.js';
import { sendPage } from '../platform/http/pages.js';
import { isAppError } from '../platform/errors.js';
import { ApprovalsPage } from './approvals-page.js';
import { INBOX_STATES, type InboxState } from './audit.js';
import { sendApprovalsCsv } from './csv-export.js';
import type { PreviewsService } from './service.js';
import { loggedIn } from '../platform/http/logged-in.js';

const PAGE = 50;

/**
 * The console's approvals inbox (mounted at /console/approvals behind the console frame's
 * requireLogin, src/app.ts): previews by state (waiting first), newest first, cursor-paged, each
 * linking to its share page; and the approval history as CSV. Scoped to the session's account.
 */
export function approvalsConsole({ accounts, previews }: { accounts: AccountsService; previews: PreviewsService }): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const s = loggedIn(req);
    const raw = typeof req.query.status === 'string' ? req.query.status : 'waiting';
    // Anything that is not a state (or "all") shows the waiting ones; a bad cursor starts again.
    const state: InboxState | null = raw === 'all' ? null : (INBOX_STATES as readonly string[]).includes(raw) ? (raw as InboxState) : 'waiting';
    const asked = typeof req.query.cursor === 'string' && req.query.cursor !== '' ? req.query.cursor : undefined;
    const list = async (cursor: string | undefined) => previews.inbox(s.accountId, { ...(state ? { status: state } : {}), limit: PAGE, cursor });
    let page;
    let cursor = asked;
    try {
      page = await list(cursor);
    } catch (err) {
      if (!isAppError(err) || err.code !== 'INVALID_CURSOR') throw err;
      cursor = undefined;
      page = await list(undefined);
    }
    const account = await accounts.get(s.accountId);
    sendPage(
      res,
      h(ApprovalsPage, {
        user: { email: s.user.email, csrfToken: s.csrfToken },
        accountName: account.name,
        timezone: account.timezone,
        state,
        items: page.data,
        nextCursor: page.pagination.nextCursor,
        continued: cursor !== undefined,
      }),
    );
  });

  router.get('/export.csv', async (req, res) => {
    await sendApprovalsCsv(res, previews, loggedIn(req).accountId);
  });

  return router;
}
