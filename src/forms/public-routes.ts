import { Router, type Request, type Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { h } from 'preact';
import type { Config } from '../config.js';
import type { RateLimitCounters } from '../platform/http/rate-limit-store.js';
import { isAppError } from '../platform/errors.js';
import { readCookie, setCookie } from '../platform/http/cookies.js';
import { sendPage } from '../platform/http/pages.js';
import { randomToken, safeEqual } from '../platform/secrets.js';
import { ConfirmNotFoundPage, ConfirmPage, FormNotFoundPage, FormPage, FormSentPage } from './form-pages.js';
import type { PublicForm, SubmitResult } from './schemas.js';
import { FormInputError, type FormsService } from './service.js';
import { field } from '../platform/http/form-fields.js';

/** The visitor has no session: forms carry a double-submit token equal to this cookie. */
export const FORM_CSRF_COOKIE = 'rcs_form_csrf';
/** Submissions per client address and form per window (confirmations: three times as many per address). */
export const FORM_POSTS_PER_WINDOW = 10;
export const FORM_POST_WINDOW_MS = 10 * 60_000;
/** Shown on the form when a cap on confirmation SMS (account settings) held the submission's SMS back. */
export const CONFIRMATION_LIMITED_MESSAGE = 'We cannot send more confirmation messages right now. Please try again later.';


/**
 * Public opt-in pages (spec §3.6): GET/POST /f/<slug> (the form), GET /f/<slug>/sent, GET/POST
 * /f/confirm/<token> (the link in the confirmation SMS). No session, no script; CSRF by
 * double-submit cookie; POSTs rate-limited per client address; not indexed.
 */
export function formPages({ forms, config, rateLimits }: { forms: FormsService; config: Pick<Config, 'secureCookies'>; rateLimits: RateLimitCounters }): Router {
  const router = Router();
  const secure = config.secureCookies;

  const csrfFor = (req: Request, res: Response): string => {
    let csrf = readCookie(req, FORM_CSRF_COOKIE);
    if (!csrf || csrf.length < 20 || csrf.length > 100) {
      csrf = randomToken(24);
      setCookie(res, FORM_CSRF_COOKIE, csrf, { secure });
    }
    return csrf;
  };
  const csrfOk = (req: Request): boolean => {
    const cookie = readCookie(req, FORM_CSRF_COOKIE);
    const sent = field(req, 'csrf');
    return !!cookie && sent !== '' && safeEqual(cookie, sent);
  };
  const noindex = (res: Response) => res.setHeader('X-Robots-Tag', 'noindex, nofollow');

  const tooMany = (_req: Request, res: Response) => {
    noindex(res);
    res.status(429).type('text/plain').send('Too many attempts from your network. Please wait a few minutes and try again.');
  };
  // Submissions per client address and form (a shared network must not block every form at once);
  // confirmations per client address. Counted in the database, so the limits hold in total across
  // instances.
  const submitLimiter = rateLimit({
    windowMs: FORM_POST_WINDOW_MS,
    limit: FORM_POSTS_PER_WINDOW,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    keyGenerator: (req) => `${ipKeyGenerator(req.ip ?? 'unknown')}|${String(req.params.slug)}`,
    handler: tooMany,
    store: rateLimits.store('form-submit'),
  });
  const confirmLimiter = rateLimit({
    windowMs: FORM_POST_WINDOW_MS,
    limit: FORM_POSTS_PER_WINDOW * 3,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    handler: tooMany,
    store: rateLimits.store('form-confirm'),
  });

  const showForm = (req: Request, res: Response, form: PublicForm, status = 200, extra: { values?: Record<string, string>; errors?: Record<string, string>; error?: string } = {}) => {
    noindex(res);
    sendPage(res, h(FormPage, { form, csrf: csrfFor(req, res), ...extra }), status);
  };

  // ---- the confirmation link (before /f/:slug so "confirm" is never taken for a slug) ----------
  router.get('/f/confirm/:token', async (req, res) => {
    noindex(res);
    const token = String(req.params.token);
    const view = await forms.confirmView(token);
    if (!view) return sendPage(res, h(ConfirmNotFoundPage, {}), 404);
    sendPage(res, h(ConfirmPage, { view, ...(view.state === 'confirm' ? { csrf: csrfFor(req, res), action: `/f/confirm/${encodeURIComponent(token)}` } : {}) }));
  });

  router.post('/f/confirm/:token', confirmLimiter, async (req, res) => {
    noindex(res);
    const token = String(req.params.token);
    if (!csrfOk(req)) {
      const view = await forms.confirmView(token);
      if (!view) return sendPage(res, h(ConfirmNotFoundPage, {}), 404);
      return sendPage(res, h(ConfirmPage, { view, csrf: csrfFor(req, res), action: `/f/confirm/${encodeURIComponent(token)}`, error: 'The page expired. Please press the button again.' }), 403);
    }
    const view = await forms.confirm(token, req.ip ?? null);
    if (!view) return sendPage(res, h(ConfirmNotFoundPage, {}), 404);
    sendPage(res, h(ConfirmPage, { view }));
  });

  // ---- the form ----------------------------------------------------------------------------
  router.get('/f/:slug', async (req, res) => {
    const form = await forms.publicForm(String(req.params.slug));
    if (!form) {
      noindex(res);
      return sendPage(res, h(FormNotFoundPage, {}), 404);
    }
    showForm(req, res, form);
  });

  router.get('/f/:slug/sent', async (req, res) => {
    noindex(res);
    const form = await forms.publicForm(String(req.params.slug));
    if (!form) return sendPage(res, h(FormNotFoundPage, {}), 404);
    sendPage(res, h(FormSentPage, { form, doubleOptIn: form.doubleOptIn }));
  });

  router.post('/f/:slug', submitLimiter, async (req, res) => {
    const slug = String(req.params.slug);
    const form = await forms.publicForm(slug);
    if (!form) {
      noindex(res);
      return sendPage(res, h(FormNotFoundPage, {}), 404);
    }
    const values: Record<string, string> = { phone: field(req, 'phone'), firstName: field(req, 'firstName'), email: field(req, 'email') };
    const custom: Record<string, string> = {};
    for (const f of form.customFields) {
      custom[f.fieldId] = field(req, `cf_${f.fieldId}`);
      values[`cf_${f.fieldId}`] = custom[f.fieldId]!;
    }
    if (!csrfOk(req)) return showForm(req, res, form, 403, { values, error: 'The form expired. Please submit it again.' });
    // The bot trap: answer as if it worked, record nothing.
    if (field(req, 'website').trim() !== '') return res.redirect(303, `/f/${form.slug}/sent`);
    let result: SubmitResult;
    try {
      result = await forms.submit(slug, { phone: values.phone!, firstName: values.firstName, email: values.email, custom }, req.ip ?? null);
    } catch (err) {
      if (err instanceof FormInputError) return showForm(req, res, form, 400, { values, errors: err.fieldErrors, error: 'Please check the highlighted fields.' });
      if (isAppError(err) && (err.code === 'COUNTRY_NOT_SUPPORTED' || err.code === 'VALIDATION_ERROR')) {
        return showForm(req, res, form, 400, { values, errors: { phone: err.message } });
      }
      throw err;
    }
    // A cap on confirmation SMS held it back: recorded, but the visitor must not be told to check their phone.
    if (result.confirmationLimited) return showForm(req, res, form, 429, { values, error: CONFIRMATION_LIMITED_MESSAGE });
    res.redirect(303, `/f/${form.slug}/sent`);
  });

  return router;
}
