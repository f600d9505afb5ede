import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import type { AccountsService } from '../accounts/service.js';
import { assertSessionCsrf } from '../accounts/session-middleware.js';
import { AppError, isAppError } from '../platform/errors.js';
import { field } from '../platform/http/form-fields.js';
import { sendPage } from '../platform/http/pages.js';
import { isId } from '../platform/ids.js';
import type { Logger } from '../platform/logger.js';
import { SendersPage, type ConsentWordsError } from './console-page.js';
import type { SendersService } from './service.js';
import { loggedIn } from '../platform/http/logged-in.js';

/** Fixed confirmations selected by ?done=…; nothing from the request is echoed. */
const NOTICES: Record<string, string> = {
  'consent-words-saved': 'The sender’s consent words were saved. Replies from now on are read with them.',
};

export interface SendersConsoleDeps {
  accounts: Pick<AccountsService, 'get'>;
  senders: Pick<SendersService, 'list' | 'consentWordsOf' | 'setConsentWords'>;
  logger: Logger;
}

/**
 * The console's senders page (/console/senders, mounted behind the console frame's requireLogin): the account's
 * senders as the operator approved them (read-only) and each one's consent words, which the account edits. Every POST
 * carries the session's CSRF token; every query is scoped to the session's account.
 */
export function sendersConsole({ accounts, senders, logger }: SendersConsoleDeps): Router {
  const router = Router();

  const sendersPage = async (req: Request, res: Response, error?: ConsentWordsError, status = 200) => {
    const s = loggedIn(req);
    const user = { email: s.user.email, csrfToken: s.csrfToken };
    const [account, list, consentWords] = await Promise.all([accounts.get(s.accountId), senders.list(s.accountId), senders.consentWordsOf(s.accountId)]);
    const notice = typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined;
    sendPage(res, h(SendersPage, { user, accountName: account.name, timezone: account.timezone, senders: list, consentWords, error, notice }), status);
  };

  router.get('/', (req, res) => sendersPage(req, res));

  router.post('/:id/consent-words', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = String(req.params.id);
    if (!isId('snd', id)) throw new AppError('NOT_FOUND', 'Sender not found');
    const typed = { optOut: field(req, 'optOut'), optIn: field(req, 'optIn'), help: field(req, 'help') };
    const lines = (v: string) => v.split(/\r?\n/);
    try {
      await senders.setConsentWords(s.accountId, id, { optOut: lines(typed.optOut), optIn: lines(typed.optIn), help: lines(typed.help) });
    } catch (err) {
      if (!isAppError(err) || err.code !== 'VALIDATION_ERROR') throw err;
      await sendersPage(req, res, { senderId: id, typed, problems: (err.details ?? []).map((d) => d.message) }, 400);
      return;
    }
    logger.info({ accountId: s.accountId, userId: s.user.id, senderId: id }, 'consent words of a sender saved in console');
    res.redirect(303, `/console/senders?done=consent-words-saved#consent-${id}`);
  });

  return router;
}
