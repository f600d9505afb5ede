const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'ftp:', 'ws:', 'wss:']);
export const MAX_REDIRECT_URIS = 20;
const MAX_URI_LENGTH = 2000;
// DNS names and IP literals only (WHATWG URL would also accept `;` or `,` in a host).
const HOSTNAME = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])$/i;

/**
 * Why a redirect URI cannot be registered, or null when it can. Allowed: https URLs; http only to
 * loopback hosts (native apps, RFC 8252 §7.3) unless private-network targets are allowed; private-use
 * schemes of native apps (`com.example.app:/cb`, `cursor://…`, RFC 8252 §7.1). Never a fragment
 * or user info (RFC 6749 §3.1.2).
 */
export function redirectUriProblem(uri: string, allowInsecure: boolean): string | null {
  if (uri.length > MAX_URI_LENGTH) return `redirect URI longer than ${MAX_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `redirect URI ${uri} is not an absolute URL`;
  }
  if (url.hash || uri.includes('#')) return `redirect URI ${uri} must not contain a fragment`;
  if (url.username || url.password) return `redirect URI ${uri} must not contain user info`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `redirect URI scheme ${url.protocol} is not allowed`;
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname) && !allowInsecure) {
    return `redirect URI ${uri} must use https (plain http only for localhost, 127.0.0.1 or [::1])`;
  }
  if ((url.protocol === 'https:' || url.protocol === 'http:') && !HOSTNAME.test(url.hostname)) return `redirect URI ${uri} has no valid host name`;
  return null;
}

/** Validates a whole list; throws the first problem as a message. */
export function checkRedirectUris(uris: readonly string[], allowInsecure: boolean): string | null {
  if (uris.length === 0) return 'at least one redirect URI is required';
  if (uris.length > MAX_REDIRECT_URIS) return `at most ${MAX_REDIRECT_URIS} redirect URIs are allowed`;
  for (const uri of uris) {
    const problem = redirectUriProblem(uri, allowInsecure);
    if (problem) return problem;
  }
  return null;
}

/**
 * Exact string comparison (OAuth 2.1 §4.1.3 / MCP authorization): no port relaxation for loopback,
 * no normalisation. A native client that needs a variable port registers each URI it uses.
 */
export const redirectUriRegistered = (requested: string, registered: readonly string[]): boolean => registered.includes(requested);

/** The CSP source that lets a form on our page be redirected to this URI (form-action applies to redirects). */
export function formActionSource(uri: string): string | null {
  try {
    const url = new URL(uri);
    if (url.protocol === 'http:' || url.protocol === 'https:') return HOSTNAME.test(url.hostname) ? url.origin : null;
    return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? url.protocol : null;
  } catch {
    return null;
  }
}
