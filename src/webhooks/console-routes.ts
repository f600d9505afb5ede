import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import type { AccountsService } from '../accounts/service.js';
import type { Logger } from '../platform/logger.js';
import { assertSessionCsrf } from '../accounts/session-middleware.js';
import { AppError, isAppError } from '../platform/errors.js';
import { sendPage } from '../platform/http/pages.js';
import { isId } from '../platform/ids.js';
import { WebhookDetailPage, WebhooksPage, type EventChoice } from './console-page.js';
import { EVENT_DESCRIPTIONS, WEBHOOK_EVENTS } from './events.js';
import type { AttemptReport, WebhookSecret } from './schemas.js';
import type { WebhooksService } from './service.js';
import { field, fieldList } from '../platform/http/form-fields.js';
import { loggedIn } from '../platform/http/logged-in.js';

const EVENTS: EventChoice[] = WEBHOOK_EVENTS.map((e) => ({ value: e, description: EVENT_DESCRIPTIONS[e] }));
const NOTICES: Record<string, string> = {
  saved: 'Webhook saved.',
  deleted: 'The webhook was deleted.',
  rotated: 'The secret was rotated. Reveal the new one below; the previous one keeps signing until the overlap ends.',
};

const problemOf = (err: unknown): string => {
  if (!isAppError(err)) throw err;
  if (err.code === 'VALIDATION_ERROR' || err.code === 'CONFLICT') return err.details?.[0] ? `${err.details[0].path ? `${err.details[0].path}: ` : ''}${err.details[0].message}` : err.message;
  throw err;
};

/**
 * The console's webhooks page (mounted at /console/webhooks behind the console frame's
 * requireLogin, src/app.ts): endpoints with health, create (secret shown once), settings, reveal
 * and rotate the secret, send a test event, the delivery log with manual redelivery. Every POST
 * carries the session's CSRF token; every call is scoped to the session's account.
 */
export function webhooksConsole({ accounts, webhooks, logger }: { accounts: AccountsService; webhooks: WebhooksService; logger: Logger }): Router {
  const router = Router();

  const who = (req: Request) => {
    const s = loggedIn(req);
    return { user: { email: s.user.email, csrfToken: s.csrfToken }, accountId: s.accountId, userId: s.user.id };
  };
  const idOf = (req: Request): string => {
    const id = String(req.params.id);
    if (!isId('whk', id)) throw new AppError('NOT_FOUND', 'Webhook not found');
    return id;
  };

  const listPage = async (req: Request, res: Response, extra: Partial<Parameters<typeof WebhooksPage>[0]> = {}, status = 200) => {
    const { user, accountId } = who(req);
    const [account, list] = await Promise.all([accounts.get(accountId), webhooks.list(accountId)]);
    const notice = typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined;
    sendPage(res, h(WebhooksPage, { user, accountName: account.name, timezone: account.timezone, webhooks: list.data, events: EVENTS, notice, ...extra }), status);
  };

  const detailPage = async (
    req: Request,
    res: Response,
    id: string,
    extra: { revealed?: WebhookSecret; revealedTitle?: string; attempt?: AttemptReport; error?: string } = {},
    status = 200,
  ) => {
    const { user, accountId } = who(req);
    const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : undefined;
    const [account, webhook, log] = await Promise.all([accounts.get(accountId), webhooks.get(accountId, id), webhooks.deliveries(accountId, id, { limit: 25, ...(cursor ? { cursor } : {}) })]);
    const notice = typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined;
    // After a test or redelivery (POST, then 303 here): the attempt's outcome.
    const attemptId = typeof req.query.attempt === 'string' && isId('dlv', req.query.attempt) ? req.query.attempt : null;
    if (attemptId && !extra.attempt) {
      const attempt = await webhooks.lastAttempt(accountId, id, attemptId);
      if (attempt) extra = { ...extra, attempt };
    }
    res.setHeader('Cache-Control', 'no-store');
    sendPage(
      res,
      h(WebhookDetailPage, { user, accountName: account.name, timezone: account.timezone, webhook, events: EVENTS, deliveries: log.data, nextCursor: log.pagination.nextCursor, notice, ...extra }),
      status,
    );
  };

  router.get('/', (req, res) => listPage(req, res));

  router.post('/', async (req, res) => {
    const s = assertSessionCsrf(req);
    const form = { url: field(req, 'url').trim(), description: field(req, 'description'), events: fieldList(req, 'events') };
    try {
      const created = await webhooks.create(s.accountId, { url: form.url, description: form.description, events: form.events as never });
      logger.info({ accountId: s.accountId, userId: s.user.id, webhookId: created.id }, 'webhook created in console');
      // The secret is rendered into this response only.
      await listPage(req, res, { created }, 201);
    } catch (err) {
      await listPage(req, res, { error: problemOf(err), form }, 400);
    }
  });

  router.get('/:id', async (req, res) => detailPage(req, res, idOf(req)));

  router.post('/:id', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = idOf(req);
    try {
      await webhooks.update(s.accountId, id, {
        url: field(req, 'url').trim(),
        description: field(req, 'description'),
        events: fieldList(req, 'events') as never,
        enabled: field(req, 'enabled') === 'on',
      });
    } catch (err) {
      return detailPage(req, res, id, { error: problemOf(err) }, 400);
    }
    res.redirect(303, `/console/webhooks/${id}?done=saved`);
  });

  router.post('/:id/reveal', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = idOf(req);
    const revealed = await webhooks.revealSecret(s.accountId, id);
    logger.info({ accountId: s.accountId, userId: s.user.id, webhookId: id }, 'webhook secret revealed in console');
    await detailPage(req, res, id, { revealed, revealedTitle: 'Signing secret' });
  });

  // State-changing actions answer 303 to a GET (reloading the page must not rotate or post again).
  router.post('/:id/rotate', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = idOf(req);
    const overlapHours = Number(field(req, 'overlapHours') || '24');
    await webhooks.rotateSecret(s.accountId, id, { overlapHours: Number.isFinite(overlapHours) ? overlapHours : 24 });
    logger.info({ accountId: s.accountId, userId: s.user.id, webhookId: id, overlapHours }, 'webhook secret rotated in console');
    res.redirect(303, `/console/webhooks/${id}?done=rotated`);
  });

  router.post('/:id/test', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = idOf(req);
    const attempt = await webhooks.test(s.accountId, id);
    res.redirect(303, `/console/webhooks/${id}?attempt=${attempt.deliveryId}`);
  });

  router.post('/:id/deliveries/:deliveryId/redeliver', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = idOf(req);
    const deliveryId = String(req.params.deliveryId);
    if (!isId('dlv', deliveryId)) throw new AppError('NOT_FOUND', 'Delivery not found');
    try {
      await webhooks.redeliver(s.accountId, id, deliveryId);
    } catch (err) {
      if (isAppError(err) && err.code === 'CONFLICT') return detailPage(req, res, id, { error: err.message }, 409);
      throw err;
    }
    res.redirect(303, `/console/webhooks/${id}?attempt=${deliveryId}`);
  });

  router.post('/:id/delete', async (req, res) => {
    const s = assertSessionCsrf(req);
    const id = idOf(req);
    await webhooks.delete(s.accountId, id);
    logger.info({ accountId: s.accountId, userId: s.user.id, webhookId: id }, 'webhook deleted in console');
    res.redirect(303, '/console/webhooks?done=deleted');
  });

  return router;
}
