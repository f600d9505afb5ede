import type { RequestHandler, Response } from 'express';

/**
 * RFC 6749 §5.2 (and §4.1.2.1): `error_description` values are limited to %x20-21 / %x23-5B /
 * %x5D-7E — printable ASCII without `"` and `\`. Messages come from our handlers and zod (which
 * puts quotes and newlines in its messages), and may echo what a client
 * sent, so every value is passed through this one function on its way out: accents lose their
 * marks, quotes become apostrophes, a backslash a slash, line breaks and tabs spaces, and any
 * other character outside the set a `?`.
 */
export function oauthErrorDescription(message: string): string {
  const out = message
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/["\u201c\u201d]/g, "'")
    .replace(/\\/g, '/')
    .replace(/[\t\n\r\v\f]+/g, ' ')
    .replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?')
    .replace(/ {2,}/g, ' ')
    .trim();
  return out.length > 500 ? `${out.slice(0, 497)}...` : out;
}

/** A JSON error body with its error_description made safe; any other body is returned as is. */
function safeBody(body: unknown): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body) && typeof (body as Record<string, unknown>).error_description === 'string') {
    const b = body as Record<string, unknown>;
    return { ...b, error_description: oauthErrorDescription(b.error_description as string) };
  }
  return body;
}

/** A redirect URL with its error_description parameter made safe. */
export function safeErrorRedirect(url: string): string {
  if (!url.includes('error_description=') || !URL.canParse(url)) return url;
  const u = new URL(url);
  const d = u.searchParams.get('error_description');
  if (d === null) return url;
  u.searchParams.set('error_description', oauthErrorDescription(d));
  return u.href;
}

/**
 * For the protocol endpoints (oauth/router.ts): every JSON error body and every error redirect
 * leaves through oauthErrorDescription, whatever handler built them.
 */
export function safeOAuthErrors(): RequestHandler {
  return (_req, res, next) => {
    const json = res.json.bind(res);
    res.json = ((body: unknown) => json(safeBody(body))) as Response['json'];
    const redirect = res.redirect.bind(res) as (...args: unknown[]) => void;
    res.redirect = ((...args: unknown[]) => {
      const last = args.length - 1;
      if (typeof args[last] === 'string') args[last] = safeErrorRedirect(args[last]);
      redirect(...args);
    });
    next();
  };
}
