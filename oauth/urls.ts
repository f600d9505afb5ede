/** Path of the MCP endpoint (BASE.mcp in src/app.ts); its absolute URL is the protected resource. */
export const MCP_PATH = '/mcp';

export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** Endpoints of the authorization server, at the root where MCP 2025-03-26 clients look for them without metadata. */
export const ENDPOINTS = {
  authorize: '/authorize',
  token: '/token',
  register: '/register',
  revoke: '/revoke',
  /** The consent page people see after logging in (a page route, not part of the protocol). */
  consent: '/consent',
} as const;

export interface OAuthUrls {
  /**
   * The issuer identifier: PUBLIC_URL exactly as configured, without a trailing slash. The same
   * string is in the authorization server metadata, the protected resource metadata, the `iss`
   * of tokens and the `iss` authorization response parameter, so clients comparing strings agree.
   */
  issuer: string;
  /** RFC 8707 resource identifier and token audience: `${PUBLIC_URL}/mcp`. */
  mcpResource: string;
  /** RFC 9728 path-inserted metadata URL of the MCP resource (what WWW-Authenticate points to). */
  protectedResourceMetadata: string;
  authorizationServerMetadata: string;
  authorization: string;
  token: string;
  registration: string;
  revocation: string;
}

/** All URLs derive from PUBLIC_URL at call time: without PUBLIC_URL it follows the bound port. */
export function oauthUrls(publicUrl: string): OAuthUrls {
  const base = publicUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  const basePath = new URL(base).pathname.replace(/\/+$/, '');
  return {
    issuer: base,
    mcpResource: `${base}${MCP_PATH}`,
    protectedResourceMetadata: `${origin}${PROTECTED_RESOURCE_METADATA_PATH}${basePath}${MCP_PATH}`,
    authorizationServerMetadata: `${origin}${AUTHORIZATION_SERVER_METADATA_PATH}${basePath}`,
    authorization: `${base}${ENDPOINTS.authorize}`,
    token: `${base}${ENDPOINTS.token}`,
    registration: `${base}${ENDPOINTS.register}`,
    revocation: `${base}${ENDPOINTS.revoke}`,
  };
}
