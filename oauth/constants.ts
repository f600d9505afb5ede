import { DEFAULT_PERMISSIONS, MANAGEMENT_PERMISSIONS, PERMISSIONS, permissionDescription, type Permission } from '../src/platform/permissions.js';

/** Access tokens live 30 days (spec §8); there is no refresh token, the person logs in again. */
export const ACCESS_TOKEN_TTL_MS = 30 * 24 * 3_600_000;
/** Authorization codes are good for one exchange within this time (OAuth 2.1 recommends ≤ 10 min). */
export const CODE_TTL_MS = 5 * 60_000;
/** Time a person has to log in (password + TOTP) and answer the consent page. */
export const REQUEST_TTL_MS = 15 * 60_000;
/** A fetched Client ID Metadata Document is reused this long before it is fetched again. */
export const METADATA_DOCUMENT_CACHE_MS = 10 * 60_000;
/** Size and time limits of a Client ID Metadata Document fetch. */
export const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;
export const METADATA_DOCUMENT_TIMEOUT_MS = 5_000;

/** OAuth scopes are exactly the permission strings (DESIGN §4). */
export const SCOPES: readonly Permission[] = PERMISSIONS;
/** What a request that names no known scope is offered: everything but the management permissions. */
export const DEFAULT_SCOPES: readonly Permission[] = DEFAULT_PERMISSIONS;
/** Granted only when the client asked for them by name and the person ticked them (never pre-ticked). */
export const isManagementScope = (scope: Permission): boolean => MANAGEMENT_PERMISSIONS.includes(scope);

/**
 * The description on the OAuth consent page, where it is always true that a send waits for a person: an app's token
 * sends only through a preview someone approved. (An API key's sends wait only when the key is marked so.)
 */
export const consentScopeDescription = (scope: Permission): string =>
  scope === 'messages:write' ? `${permissionDescription(scope)} (each send waits for your approval on its preview page)` : permissionDescription(scope);

const KNOWN = new Set<string>(PERMISSIONS);
export const isScope = (value: string): value is Permission => KNOWN.has(value);

/**
 * The known permissions among requested scope strings, in canonical order. Unknown strings
 * (`openid`, `offline_access`, a client's own scope name) are ignored, as RFC 6749 §3.3 allows.
 */
export function knownScopes(requested: Iterable<string>): Permission[] {
  const wanted = new Set(requested);
  return PERMISSIONS.filter((p) => wanted.has(p));
}
