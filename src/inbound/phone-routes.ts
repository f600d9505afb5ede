import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import type { Config } from '../config.js';
import type { AccountsService } from '../accounts/service.js';
import { assertSessionCsrf, requireLogin } from '../accounts/session-middleware.js';
import { AppError, isAppError } from '../platform/errors.js';
import { sendPage } from '../platform/http/pages.js';
import { isSampleUrl, PLACEHOLDER_SRC, sampleSrc } from '../sandbox/samples.js';
import type { Content, MessageType } from '../content/index.js';
import { mediaItems, replacedMediaOf } from '../../preview-pages/phone/media-list.js';
import { MessagePage } from '../../preview-pages/login.js';
import { VirtualPhonePage } from './virtual-phone-page.js';
import type { VirtualPhoneService } from './virtual-phone.js';
import { parsePhoneSearch, type ParsedPhoneSearch } from './phone-search.js';
import { loggedIn } from '../platform/http/logged-in.js';

const field = (req: Request, name: string): string => {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};

/**
 * /phone — the virtual phone, for logged-in people, only while the simulated network is the
 * carrier (`phone` is null otherwise and the page says so). GET shows (`?number=` selects one,
 * `?q=` searches the numbers: a GET form, so it works without script); POST /phone/tap and
 * /phone/reply raise carrier events and redirect back (303), so the page works without script.
 */
export function phoneRoutes({ accounts, virtualPhone: phone, config }: { accounts: AccountsService; virtualPhone: VirtualPhoneService | null; config: Pick<Config, 'publicUrl'> }): Router {
  const router = Router();
  router.use('/phone', requireLogin);

  const render = async (req: Request, res: Response, numberParam: string | undefined, status = 200, error?: string, query?: ParsedPhoneSearch) => {
    const s = loggedIn(req);
    const account = await accounts.get(s.accountId);
    if (!phone) {
      return sendPage(res, h(MessagePage, { title: 'Virtual phone', message: 'The virtual phone belongs to the simulated network; this server sends through real carriers.', status: 'info' }), 404);
    }
    const found = query?.ok ? query : null;
    const { numbers, more } = await phone.numbers(s.accountId, found?.search ?? null);
    const view = numberParam ? await phone.view(s.accountId, await phone.requireNumber(s.accountId, numberParam)) : null;
    sendPage(
      res,
      h(VirtualPhonePage, {
        user: { email: s.user.email, csrfToken: s.csrfToken },
        accountName: account.name,
        numbers,
        more,
        q: query?.q ?? '',
        view,
        timeZone: account.timezone,
        // What a recipient got, without this page contacting the sender's media host: this
        // server's samples load, anything else is a placeholder naming its host.
        mediaSrc: (url: string) => (isSampleUrl(url, config.publicUrl) ? sampleSrc(url, config.publicUrl) : PLACEHOLDER_SRC),
        replacedMedia: (messageType: MessageType, content: Content) => replacedMediaOf(mediaItems(messageType, content), (m) => isSampleUrl(m.url, config.publicUrl)),
        error,
      }),
      status,
    );
  };

  router.get('/phone', async (req, res) => {
    const n = typeof req.query.number === 'string' && req.query.number !== '' ? req.query.number : undefined;
    // A search the page cannot run is a 400 on the page itself, with every number listed.
    const query = parsePhoneSearch(req.query.q);
    await render(req, res, n, query.ok ? 200 : 400, query.ok ? undefined : query.message, query);
  });

  const back = (e164: string, senderId?: string) => `/phone?number=${encodeURIComponent(e164)}${senderId ? `#thread-${senderId}` : ''}`;

  const act = (handler: (accountId: string, e164: string, req: Request) => Promise<string>) => async (req: Request, res: Response) => {
    const s = assertSessionCsrf(req);
    if (!phone) throw new AppError('NOT_FOUND', 'The virtual phone belongs to the simulated network.');
    const e164 = await phone.requireNumber(s.accountId, field(req, 'number'));
    try {
      res.redirect(303, await handler(s.accountId, e164, req));
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      await render(req, res, e164, err.status, err.message);
    }
  };

  router.post(
    '/phone/tap',
    act(async (accountId, e164, req) => {
      const { openPath } = await phone!.tap(accountId, e164, field(req, 'sim'), field(req, 'target'));
      return openPath ?? back(e164);
    }),
  );

  router.post(
    '/phone/reply',
    act(async (accountId, e164, req) => {
      const sender = field(req, 'sender');
      await phone!.reply(accountId, e164, sender, field(req, 'text'));
      return back(e164, sender);
    }),
  );

  return router;
}
