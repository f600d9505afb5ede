import type { Response } from 'express';
import { InvalidTokenError, UnsupportedGrantTypeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ClientsStore } from './clients.js';
import { ACCESS_TOKEN_TTL_MS } from './constants.js';
import type { Grants } from './grants.js';
import type { AccessTokens } from './tokens.js';
import { ENDPOINTS } from './urls.js';

/** res.locals key set by the authorization guard: whether the request named its redirect_uri. */
export const REDIRECT_URI_EXPLICIT = 'oauthRedirectUriExplicit';

/**
 * The SDK's OAuthServerProvider, on our database. Our handlers (handlers/*.ts) call it; it also
 * works behind the SDK's own handlers and requireBearerAuth.
 */
export class DatabaseOAuthProvider implements OAuthServerProvider {
  /** PKCE is checked inside exchangeAuthorizationCode, with the code's other bindings. */
  readonly skipLocalPkceValidation = true;

  constructor(
    private readonly clients: ClientsStore,
    private readonly grants: Grants,
    private readonly tokens: AccessTokens,
    private readonly mcpResource: () => string,
  ) {}

  get clientsStore(): ClientsStore {
    return this.clients;
  }

  /** Records the validated request and sends the browser to the consent page (login first if needed). */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const explicit = res.locals[REDIRECT_URI_EXPLICIT] !== false;
    const id = await this.grants.createRequest({
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      redirectUriExplicit: explicit,
      codeChallenge: params.codeChallenge,
      scopes: params.scopes ?? [],
      state: params.state,
      resource: params.resource?.href,
    });
    res.redirect(302, `${ENDPOINTS.consent}?request=${encodeURIComponent(id)}`);
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string> {
    return this.grants.challengeFor(client.client_id, authorizationCode);
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
    codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const issued = await this.grants.exchange({
      clientId: client.client_id,
      code: authorizationCode,
      codeVerifier: codeVerifier ?? '',
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
    throw new UnsupportedGrantTypeError('This server issues no refresh tokens; authorize again when the access token expires (30 days)');
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const result = await this.tokens.verify(token, this.mcpResource());
    if (!result.ok) throw new InvalidTokenError(`The access token is ${result.reason === 'malformed' || result.reason === 'signature' ? 'invalid' : result.reason}`);
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
  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    const found = await this.tokens.identify(request.token);
    if (found && found.clientId === client.client_id) await this.tokens.revoke(found.id);
  }
}
