import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors.js';
import type { Permission, Principal } from '../permissions.js';
import './types.js';

/**
 * Turns a presented credential into a principal. API keys are one resolver; OAuth access tokens
 * are another, added by the OAuth area. The first resolver that recognises the credential wins.
 */
export type CredentialResolver = (credential: string) => Promise<Principal | null>;

export function presentedCredential(req: Request): string | null {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1]!;
  }
  return null;
}

export async function resolvePrincipal(req: Request, resolvers: readonly CredentialResolver[]): Promise<Principal | null> {
  const credential = presentedCredential(req);
  if (!credential) return null;
  for (const resolve of resolvers) {
    const principal = await resolve(credential);
    if (principal) return principal;
  }
  return null;
}

/** 401 unless a valid credential is presented (spec §5.1, §5.3). */
export function requireAuth(resolvers: readonly CredentialResolver[]): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const principal = await resolvePrincipal(req, resolvers);
    if (!principal) {
      const presented = presentedCredential(req) !== null;
      throw new AppError('UNAUTHORIZED', presented ? 'The API key or token is invalid, expired or revoked' : 'Missing credentials: send an X-API-Key header or Authorization: Bearer <key>');
    }
    req.principal = principal;
    next();
  };
}

/** The authenticated principal of a route behind requireAuth. */
export function principalOf(req: Request): Principal {
  if (!req.principal) throw new AppError('UNAUTHORIZED', 'Not authenticated');
  return req.principal;
}

export function assertPermission(principal: Principal, permission: Permission): void {
  if (!principal.permissions.has(permission)) {
    throw new AppError('FORBIDDEN', `This key lacks the permission ${permission}`, { extra: { requiredPermission: permission } });
  }
}

/** 403 naming the permission when the principal lacks it. */
export function requirePermission(permission: Permission): RequestHandler {
  return (req, _res, next) => {
    assertPermission(principalOf(req), permission);
    next();
  };
}
