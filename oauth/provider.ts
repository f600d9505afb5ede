import type { AuthInfo, OAuthTokens, OAuthTokenVerifier } from '@modelcontextprotocol/server';
import type { StoredClient } from './clients.js';
import { ACCESS_TOKEN_TTL_MS } from './constants.js';
import { oauthError, OAuthErrorCode } from './errors.js';
import type { Grants } from './grants.js';
import type { AccessTokens } from './tokens.js';

export interface DatabaseOAuthProviderDeps {
  grants: Pick<Grants, 'exchange'>;
  tokens: Pick<AccessTokens, 'verify' | 'identify' | 'revoke'>;
  /** The MCP resource URL, computed on each use. */
  mcpResource: () => string;
}

/**
 * What the token and revocation endpoints do, on our database. Also an OAuthTokenVerifier, so the
 * kept SDK's requireBearerAuth can sit in front of a route with our tokens.
 */
export class DatabaseOAuthProvider implements OAuthTokenVerifier {
  constructor(private readonly d: DatabaseOAuthProviderDeps) {}

  /** The code's bindings (client, PKCE S256, redirect URI, resource) are checked in Grants.exchange. */
  async exchangeAuthorizationCode(
    client: StoredClient,
    authorizationCode: string,
    codeVerifier: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const issued = await this.d.grants.exchange({
      clientId: client.clientId,
      code: authorizationCode,
      codeVerifier,
      redirectUri,
      resource: resource?.href,
    });
    return {
      access_token: issued.token,
      token_type: 'Bearer',
      expires_in: Math.round(ACCESS_TOKEN_TTL_MS / 1000),
      scope: issued.scopes.join(' '),
    };
  }

  /** No refresh tokens: after 30 days the person authorizes again (spec §5.4). */
  async exchangeRefreshToken(): Promise<OAuthTokens> {
    throw oauthError(OAuthErrorCode.UnsupportedGrantType, 'This server issues no refresh tokens; authorize again when the access token expires (30 days)');
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const result = await this.d.tokens.verify(token, this.d.mcpResource());
    if (!result.ok) throw oauthError(OAuthErrorCode.InvalidToken, `The access token is ${result.reason === 'malformed' || result.reason === 'signature' ? 'invalid' : result.reason}`);
    const t = result.token;
    return {
      token,
      clientId: t.clientId,
      scopes: t.scopes,
      expiresAt: Math.floor(t.expiresAt / 1000),
      resource: new URL(t.resource),
      extra: { userId: t.userId, accountId: t.accountId, tokenId: t.id },
    };
  }

  /** RFC 7009: revokes a token of this client; unknown, foreign or malformed tokens are ignored. */
  async revokeToken(client: StoredClient, token: string): Promise<void> {
    const found = await this.d.tokens.identify(token);
    if (found && found.clientId === client.clientId) await this.d.tokens.revoke(found.id);
  }
}
