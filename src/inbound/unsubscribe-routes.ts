import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import type { Config } from '../config.js';
import { readCookie, setCookie } from '../platform/http/cookies.js';
import { sendPage } from '../platform/http/pages.js';
import { randomToken, safeEqual } from '../platform/secrets.js';
import { UnsubscribeNotFoundPage, UnsubscribePage } from '../../preview-pages/unsubscribe.js';
import type { UnsubscribeService, UnsubscribeView } from './unsubscribe-service.js';

/**
 * The visitor of an unsubscribe link has no session, so the confirm form is protected by a
 * double-submit cookie (as the login form): the hidden value must equal this cookie, which
 * another site can neither read nor set.
 */
export const UNSUBSCRIBE_CSRF_COOKIE = 'rcs_unsub_csrf';

const day = (ms: number | null): string | undefined => (ms === null ? undefined : new Date(ms).toISOString().slice(0, 10));

/**
 * GET /u/:token shows the confirm page; POST /u/:token (one click) opts the number out. Public,
 * no session, no script, not indexed.
 */
export function unsubscribePages({ unsubscribe: service, config }: { unsubscribe: UnsubscribeService; config: Pick<Config, 'secureCookies'> }): Router {
  const router = Router();
  const secure = config.secureCookies;

  const csrfFor = (req: Request, res: Response): string => {
    let csrf = readCookie(req, UNSUBSCRIBE_CSRF_COOKIE);
    if (!csrf || csrf.length < 20 || csrf.length > 100) {
      csrf = randomToken(24);
      setCookie(res, UNSUBSCRIBE_CSRF_COOKIE, csrf, { secure });
    }
    return csrf;
  };

  const show = (req: Request, res: Response, token: string, view: UnsubscribeView | null, status = 200, error?: string) => {
    res.setHeader('X-Robots-Tag', 'noindex, nofollow');
    if (!view) return sendPage(res, h(UnsubscribeNotFoundPage, {}), 404);
    sendPage(
      res,
      h(UnsubscribePage, {
        state: view.state,
        accountName: view.accountName,
        phoneEnding: view.phoneEnding,
        optedOutOn: day(view.optedOutAt),
        ...(view.state === 'confirm' ? { csrf: csrfFor(req, res), action: `/u/${encodeURIComponent(token)}` } : {}),
        error,
      }),
      status,
    );
  };

  router.get('/u/:token', async (req, res) => {
    const token = String(req.params.token);
    show(req, res, token, await service.view(token));
  });

  router.post('/u/:token', async (req, res) => {
    const token = String(req.params.token);
    const cookie = readCookie(req, UNSUBSCRIBE_CSRF_COOKIE);
    const sent = (req.body as Record<string, unknown> | undefined)?.csrf;
    if (!cookie || typeof sent !== 'string' || !safeEqual(cookie, sent)) {
      const view = await service.view(token);
      return show(req, res, token, view, view ? 403 : 404, 'The form expired. Please press the button again.');
    }
    show(req, res, token, await service.confirm(token));
  });

  return router;
}
