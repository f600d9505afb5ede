/**
 * The OAuth 2.1 authorization server of the MCP endpoint. What other areas use:
 * - OAuthService (ctx.services.oauth): resolveAccessToken (a CredentialResolver), verifyAccessToken,
 *   connectedApps (console), urls().
 * - sendMcpUnauthorized / sendMcpInsufficientScope / mcpBearerChallenge: the 401/403 of /mcp.
 * - oauthRouter (protocol endpoints), consentRoutes (page) and appsConsole (the console's connected apps page),
 *   mounted in src/app.ts.
 */
export { OAuthService } from './service.js';
export { oauthRouter } from './router.js';
export { consentRoutes } from './handlers/consent.js';
export { appsConsole } from './console-routes.js';
export { mcpBearerChallenge, sendMcpInsufficientScope, sendMcpUnauthorized, type BearerChallenge } from './challenge.js';
export { oauthUrls, MCP_PATH, type OAuthUrls } from './urls.js';
export type { ConnectedApp } from './schemas.js';
