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

export function assertPermission(principal: Principal, permission: Permission): void {
  if (!principal.permissions.has(permission)) {
    throw new AppError('FORBIDDEN', `This key lacks the permission ${permission}`, { extra: { requiredPermission: permission } });
  }
}

/**
 * What a credential whose sends need approval (Principal.sendsNeedApproval) may not do on a route:
 * 'send' — the route sends or schedules messages directly; 'secret' — the answer reveals a webhook
 * signing secret (whoever holds it can forge events to the customer's receiver); 'automated-send' — the
 * route configures messages the server later sends on its own without a person looking (an opt-in
 * form's confirmation SMS, whose text and form name the caller chooses, goes to any number typed
 * into the public form); 'audit' — the answer is the approval audit trail (the people who approved,
 * their addresses and browsers): the credential being audited does not read its auditors' records.
 */
export type ApprovalBoundRefusal = 'send' | 'secret' | 'automated-send' | 'audit' | 'consent-decision';

/** The preview flow an approval-bound credential uses instead of the direct send routes. */
export const REST_PREVIEW_FLOW =
  'POST /api/rcs/previews/send (or /api/rcs/previews/send-batch, /api/rcs/previews/send-sms) with the same body, have a person approve it at its share_url, then POST /api/rcs/previews/{id}/send';

/** The one place the approval-bound rules of REST are enforced (route option `approvalBound`). */
export function assertNotApprovalBound(principal: Principal, refusal: ApprovalBoundRefusal): void {
  if (!principal.sendsNeedApproval) return;
  const credential = principal.via === 'oauth' ? 'An OAuth access token' : 'This API key';
  if (refusal === 'send') {
    throw new AppError('APPROVAL_REQUIRED', `${credential} can only send messages a person approved. Use the preview flow instead: ${REST_PREVIEW_FLOW}.`, {
      extra: { previewRoutes: ['/api/rcs/previews/send', '/api/rcs/previews/send-batch', '/api/rcs/previews/send-sms', '/api/rcs/previews/{id}/send'] },
    });
  }
  if (refusal === 'automated-send') {
    throw new AppError('APPROVAL_REQUIRED', `${credential} can only send messages a person approved, and an opt-in form sends its confirmation SMS to whoever fills it in without anyone approving it. Create or change forms in the console, or with an automation key without "sends need approval" (with forms:manage).`);
  }
  if (refusal === 'audit') {
    throw new AppError('FORBIDDEN', `${credential} needs approval for its sends, so it may not read the approval history (who approved, from which address and browser). A person reads it in the console (Approvals), or use an automation key without "sends need approval".`);
  }
  if (refusal === 'consent-decision') {
    throw new AppError('FORBIDDEN', `${credential} needs approval for its sends, so it may not decide a consent review: whether a reply was a request to stop is a person's decision. A person decides in the console (Consent), or use an automation key without "sends need approval" (with contacts:write).`);
  }
  throw new AppError('FORBIDDEN', `${credential} needs approval for its sends, so it may not see webhook signing secrets. Use an automation key without "sends need approval" (with webhooks:manage), or the console.`);
}
