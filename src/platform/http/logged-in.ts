import type { Request } from 'express';
import { AppError } from '../errors.js';

/**
 * The logged-in person's session of a page request. Console pages are mounted behind one login
 * check (src/console/routes.ts) and area pages behind their own; should a page ever be mounted
 * without one, this refuses with 401 (the error pages offer the login) instead of reading a missing
 * session and failing with a 500. `req.session` is declared by accounts/session-middleware.ts.
 */
export function loggedIn(req: Request): NonNullable<Request['session']> {
  const s = req.session;
  if (!s?.authenticated) throw new AppError('UNAUTHORIZED', 'Log in first');
  return s;
}
