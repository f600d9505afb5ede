import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { SessionsService, SessionInfo } from './sessions.js';
import { readCookie } from '../platform/http/cookies.js';
import { AppError } from '../platform/errors.js';
import { safeEqual } from '../platform/secrets.js';

export const SESSION_COOKIE = 'rcs_session';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The person's session on page routes (authenticated or halfway through login). */
      session?: SessionInfo | null;
    }
  }
}

export function loadSession(sessions: SessionsService): RequestHandler {
  return async (req, _res, next) => {
    req.session = await sessions.find(readCookie(req, SESSION_COOKIE));
    next();
  };
}

/** Only `/path` on this origin; anything else (//host, https://…) becomes the default. */
export function safeNext(value: unknown, fallback = '/console'): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\') || value.length > 2000) return fallback;
  return value;
}

/** Pages for logged-in people: otherwise off to /login, coming back here afterwards. */
export function requireLogin(req: Request, res: Response, next: NextFunction): void {
  if (req.session?.authenticated) return next();
  res.redirect(303, `/login?next=${encodeURIComponent(safeNext(req.originalUrl))}`);
}

/** Every state-changing form POST of a logged-in person carries the session's CSRF token. */
export function assertSessionCsrf(req: Request): SessionInfo {
  const session = req.session;
  if (!session?.authenticated) throw new AppError('UNAUTHORIZED', 'Log in first');
  const token = (req.body as Record<string, unknown> | undefined)?.csrf;
  if (typeof token !== 'string' || !safeEqual(token, session.csrfToken)) {
    throw new AppError('CSRF_INVALID', 'The form has expired or did not come from this site. Reload the page and try again.');
  }
  return session;
}
