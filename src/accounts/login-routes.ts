import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import type { Config } from '../config.js';
import { KNOWN_DEVICE_TTL_MS, type LoginService } from './login.js';
import type { SessionsService } from './sessions.js';
import { AppError, isAppError } from '../platform/errors.js';
import { clearCookie, readCookie, setCookie } from '../platform/http/cookies.js';
import { sendPage } from '../platform/http/pages.js';
import { randomToken, safeEqual } from '../platform/secrets.js';
import { LoginPage, MessagePage, TotpPage } from '../../preview-pages/login.js';
import { assertSessionCsrf, safeNext, SESSION_COOKIE } from './session-middleware.js';
import { field } from '../platform/http/form-fields.js';

// Before login there is no session to hold a CSRF token, so the login form uses a double-submit
// cookie: the form's hidden value must equal this cookie, which another site can neither read nor set.
const LOGIN_CSRF_COOKIE = 'rcs_login_csrf';
// A browser that finished a login keeps a random token here (only its SHA-256 is stored, bound to
// the user): its attempts are not slowed by strangers' failures (see login.ts). Sent only to /login.
const DEVICE_COOKIE = 'rcs_device';
const DEVICE_COOKIE_PATH = '/login';

export function loginRoutes({ sessions, login, config }: { sessions: SessionsService; login: LoginService; config: Pick<Config, 'secureCookies' | 'sessionTtlMs'> }): Router {
  const secure = config.secureCookies;
  const router = Router();

  const showLogin = (req: Request, res: Response, status = 200, error?: string) => {
    let csrf = readCookie(req, LOGIN_CSRF_COOKIE);
    if (!csrf || csrf.length < 20) {
      csrf = randomToken(24);
      setCookie(res, LOGIN_CSRF_COOKIE, csrf, { secure });
    }
    sendPage(res, h(LoginPage, { csrf, next: safeNext(req.query.next ?? field(req, 'next')), error, email: field(req, 'email') || undefined, slowed: status === 429 }), status);
  };

  /** Both factors passed: the full session, the known-device cookie, and the login form's CSRF cookie gone. */
  const finishLogin = (res: Response, full: { cookie: string }, device: string) => {
    setCookie(res, SESSION_COOKIE, full.cookie, { secure, maxAgeMs: config.sessionTtlMs });
    setCookie(res, DEVICE_COOKIE, device, { secure, maxAgeMs: KNOWN_DEVICE_TTL_MS, path: DEVICE_COOKIE_PATH });
    clearCookie(res, LOGIN_CSRF_COOKIE, secure);
  };

  router.get('/login', (req, res) => {
    if (req.session?.authenticated) return res.redirect(303, safeNext(req.query.next));
    showLogin(req, res);
  });

  router.post('/login', async (req, res) => {
    const cookie = readCookie(req, LOGIN_CSRF_COOKIE);
    const token = field(req, 'csrf');
    if (!cookie || !token || !safeEqual(cookie, token)) {
      return showLogin(req, res, 403, 'The form has expired. Please try again.');
    }
    // The code is optional here: given with the password, the login finishes in one step, and it is
    // the one way in while strangers' failures slow this email (login.ts, issue #42).
    const code = field(req, 'code').trim();
    try {
      const { userId, accountId, deviceToken } = await login.checkPassword(field(req, 'email'), field(req, 'password'), req.ip ?? 'unknown', readCookie(req, DEVICE_COOKIE), code === '' ? undefined : code);
      await sessions.destroy(readCookie(req, SESSION_COOKIE));
      if (deviceToken !== undefined) {
        finishLogin(res, await sessions.create(userId, accountId, true), deviceToken);
        return res.redirect(303, safeNext(field(req, 'next')));
      }
      const pending = await sessions.create(userId, accountId, false);
      setCookie(res, SESSION_COOKIE, pending.cookie, { secure });
      res.redirect(303, `/login/totp?next=${encodeURIComponent(safeNext(field(req, 'next')))}`);
    } catch (err) {
      if (!isAppError(err)) throw err;
      for (const [k, v] of Object.entries(err.headers ?? {})) res.setHeader(k, v);
      showLogin(req, res, err.status, err.message);
    }
  });

  router.get('/login/totp', (req, res) => {
    const s = req.session;
    if (!s) return res.redirect(303, '/login');
    if (s.authenticated) return res.redirect(303, safeNext(req.query.next));
    sendPage(res, h(TotpPage, { csrf: s.csrfToken, next: safeNext(req.query.next) }));
  });

  router.post('/login/totp', async (req, res) => {
    const s = req.session;
    const cookie = readCookie(req, SESSION_COOKIE);
    if (!s || !cookie || s.authenticated) return res.redirect(303, '/login');
    if (!safeEqual(field(req, 'csrf'), s.csrfToken)) {
      return sendPage(res, h(TotpPage, { csrf: s.csrfToken, next: safeNext(field(req, 'next')), error: 'The form has expired. Please try again.' }), 403);
    }
    let device: string;
    try {
      ({ deviceToken: device } = await login.checkTotp(s.user.id, field(req, 'code'), req.ip ?? 'unknown', readCookie(req, DEVICE_COOKIE)));
    } catch (err) {
      if (!isAppError(err)) throw err;
      // A slowed attempt keeps the half-finished login: the person may try again after Retry-After.
      for (const [k, v] of Object.entries(err.headers ?? {})) res.setHeader(k, v);
      return sendPage(res, h(TotpPage, { csrf: s.csrfToken, next: safeNext(field(req, 'next')), error: err.message }), err.status);
    }
    finishLogin(res, await sessions.promote(cookie, s.user.id, s.accountId), device);
    res.redirect(303, safeNext(field(req, 'next')));
  });

  router.post('/logout', async (req, res) => {
    try {
      assertSessionCsrf(req);
    } catch (err) {
      if (isAppError(err) && err.code === 'UNAUTHORIZED') return res.redirect(303, '/login');
      throw err;
    }
    await sessions.destroy(readCookie(req, SESSION_COOKIE));
    clearCookie(res, SESSION_COOKIE, secure);
    res.redirect(303, '/login');
  });

  router.get('/', (req, res) => res.redirect(303, req.session?.authenticated ? '/console' : '/login'));

  return router;
}

/** Page routes answer errors as pages, not JSON. */
export function pageError(res: Response, err: unknown): void {
  const e = isAppError(err) ? err : new AppError('INTERNAL', 'Something went wrong');
  sendPage(res, h(MessagePage, { title: e.status === 403 ? 'Not allowed' : 'Error', message: e.message, status: 'error' }), e.status);
}
