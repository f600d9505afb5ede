import type { Request, Response } from 'express';

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export interface CookieOptions {
  secure: boolean;
  maxAgeMs?: number;
  httpOnly?: boolean;
  /** Default `/`. */
  path?: string;
}

export function setCookie(res: Response, name: string, value: string, opts: CookieOptions): void {
  res.cookie(name, value, {
    httpOnly: opts.httpOnly ?? true,
    sameSite: 'lax',
    secure: opts.secure,
    path: opts.path ?? '/',
    ...(opts.maxAgeMs !== undefined ? { maxAge: opts.maxAgeMs } : {}),
  });
}

export function clearCookie(res: Response, name: string, secure: boolean): void {
  res.clearCookie(name, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
}
