import { createHash } from 'node:crypto';
import { checkResourceAllowed } from '@modelcontextprotocol/server';
import type { Clock } from '../src/platform/clock.js';
import type { Db } from '../src/platform/db/database.js';
import { parseJson } from '../src/platform/db/sql.js';
import type { Permission } from '../src/platform/permissions.js';
import { randomToken, safeEqual, sha256Hex } from '../src/platform/secrets.js';
import { oauthErrorDescription } from './error-description.js';
import { oauthError, OAuthErrorCode } from './errors.js';
import { CODE_TTL_MS, DEFAULT_SCOPES, knownScopes, REQUEST_TTL_MS, SCOPES } from './constants.js';
import type { AccessTokens, IssuedToken } from './tokens.js';

export interface NewAuthorizationRequest {
  clientId: string;
  redirectUri: string;
  redirectUriExplicit: boolean;
  codeChallenge: string;
  /** Raw requested scope strings (may be empty). */
  scopes: readonly string[];
  state?: string | undefined;
  resource?: string | undefined;
}

export interface PendingAuthorization {
  clientId: string;
  redirectUri: string;
  redirectUriExplicit: boolean;
  codeChallenge: string;
  scopes: Permission[];
  state: string | null;
  resource: string | null;
  expiresAt: number;
}

/** Where the browser goes after the consent decision. */
export interface AuthorizationResponse {
  redirectTo: string;
}

const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
export const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

export interface GrantsDeps {
  db: Db;
  clock: Clock;
  /** Issues the token a code is exchanged for, and revokes a replayed code's tokens. */
  tokens: Pick<AccessTokens, 'issue' | 'revoke'>;
  /** The MCP resource and issuer URLs, computed on each use: without PUBLIC_URL they follow the bound port. */
  mcpResource: () => string;
  issuer: () => string;
}

/**
 * The authorization code grant on the database: pending requests (validated, waiting for login and
 * consent), single-use codes bound to client, redirect URI, PKCE challenge and resource, and the
 * exchange of a code for a token. Only SHA-256 of request ids and codes is stored.
 */
export class Grants {
  constructor(private readonly d: GrantsDeps) {}

  /**
   * RFC 8707: the only resource this server protects is the MCP endpoint. A request naming another
   * resource is an invalid_target; a request naming none is bound to the MCP endpoint.
   */
  checkResource(requested: string | undefined): string {
    const mcp = this.d.mcpResource();
    if (requested === undefined) return mcp;
    let ok = false;
    try {
      ok = checkResourceAllowed({ requestedResource: requested, configuredResource: mcp });
    } catch {
      ok = false;
    }
    if (!ok) throw oauthError(OAuthErrorCode.InvalidTarget, `This server issues tokens only for the resource ${mcp}`);
    return mcp;
  }

  /** Stores a validated request; the returned id goes into the consent page URL. */
  async createRequest(input: NewAuthorizationRequest): Promise<string> {
    this.checkResource(input.resource);
    const now = this.d.clock.now();
    const requested = knownScopes(input.scopes);
    // No known scope requested (none at all, or only names like "openid"): offer every permission
    // but the management ones, which a client must name; the person can untick what it should not get.
    const scopes = requested.length > 0 ? requested : [...DEFAULT_SCOPES];
    const id = randomToken(24);
    await this.purgeExpired(now);
    await this.d.db
      .insertInto('oauth_requests')
      .values({
        id_hash: sha256Hex(id),
        client_id: input.clientId,
        redirect_uri: input.redirectUri,
        redirect_uri_explicit: input.redirectUriExplicit ? 1 : 0,
        code_challenge: input.codeChallenge,
        scopes: JSON.stringify(scopes),
        state: input.state ?? null,
        resource: input.resource ?? null,
        created_at: now,
        expires_at: now + REQUEST_TTL_MS,
      })
      .execute();
    return id;
  }

  async findRequest(id: string): Promise<PendingAuthorization | null> {
    if (!id || id.length > 100) return null;
    const row = await this.d.db.selectFrom('oauth_requests').selectAll().where('id_hash', '=', sha256Hex(id)).executeTakeFirst();
    if (!row || row.expires_at <= this.d.clock.now()) return null;
    return {
      clientId: row.client_id,
      redirectUri: row.redirect_uri,
      redirectUriExplicit: row.redirect_uri_explicit === 1,
      codeChallenge: row.code_challenge,
      scopes: knownScopes(parseJson<string[]>(row.scopes, [])),
      state: row.state,
      resource: row.resource,
      expiresAt: row.expires_at,
    };
  }

  /**
   * The person's answer. The request is consumed either way (one answer per request). Approval
   * creates a code for the granted scopes (a subset of those requested).
   */
  async decide(id: string, who: { userId: string; accountId: string }, decision: { approve: boolean; scopes: readonly string[] }): Promise<AuthorizationResponse | null> {
    const request = await this.findRequest(id);
    if (!request) return null;
    const granted = knownScopes(decision.scopes).filter((s) => request.scopes.includes(s));
    if (decision.approve && granted.length === 0) throw oauthError(OAuthErrorCode.InvalidRequest, 'Choose at least one permission');
    const res = await this.d.db.deleteFrom('oauth_requests').where('id_hash', '=', sha256Hex(id)).executeTakeFirst();
    if (Number(res.numDeletedRows) !== 1) return null;
    const target = new URL(request.redirectUri);
    if (!decision.approve) {
      const err = oauthError(OAuthErrorCode.AccessDenied, 'The person declined the authorization request');
      target.searchParams.set('error', err.code);
      target.searchParams.set('error_description', oauthErrorDescription(err.message));
    } else {
      const code = randomToken(32);
      const now = this.d.clock.now();
      await this.d.db
        .insertInto('oauth_codes')
        .values({
          code_hash: sha256Hex(code),
          client_id: request.clientId,
          user_id: who.userId,
          account_id: who.accountId,
          redirect_uri: request.redirectUri,
          redirect_uri_explicit: request.redirectUriExplicit ? 1 : 0,
          code_challenge: request.codeChallenge,
          scopes: JSON.stringify(granted),
          resource: this.checkResource(request.resource ?? undefined),
          created_at: now,
          expires_at: now + CODE_TTL_MS,
          used_at: null,
          token_id: null,
        })
        .execute();
      target.searchParams.set('code', code);
    }
    if (request.state !== null) target.searchParams.set('state', request.state);
    // RFC 9207: tells the client which authorization server answered (mix-up defence).
    target.searchParams.set('iss', this.d.issuer());
    return { redirectTo: target.href };
  }

  /**
   * Exchanges a code: it must exist, be unexpired and unused, belong to this client, and match the
   * PKCE verifier (S256), the redirect URI of the authorization request and its resource. A second
   * use of a code fails and revokes the token the first use produced (RFC 6749 §4.1.2).
   */
  async exchange(input: { clientId: string; code: string; codeVerifier: string; redirectUri?: string | undefined; resource?: string | undefined }): Promise<IssuedToken & { resource: string }> {
    const invalid = () => oauthError(OAuthErrorCode.InvalidGrant, 'The authorization code is invalid, expired or already used');
    if (!input.code || input.code.length > 200) throw invalid();
    const hash = sha256Hex(input.code);
    const row = await this.d.db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', hash).executeTakeFirst();
    const now = this.d.clock.now();
    if (!row) throw invalid();
    if (row.used_at !== null) {
      if (row.token_id) await this.d.tokens.revoke(row.token_id);
      throw invalid();
    }
    if (row.expires_at <= now || row.client_id !== input.clientId) throw invalid();
    if (!PKCE_VERIFIER.test(input.codeVerifier)) throw oauthError(OAuthErrorCode.InvalidGrant, 'code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~]');
    if (!safeEqual(s256(input.codeVerifier), row.code_challenge)) throw oauthError(OAuthErrorCode.InvalidGrant, 'code_verifier does not match the code_challenge');
    if (input.redirectUri !== undefined ? input.redirectUri !== row.redirect_uri : row.redirect_uri_explicit === 1) {
      throw oauthError(OAuthErrorCode.InvalidGrant, 'redirect_uri does not match the authorization request');
    }
    if (input.resource !== undefined) {
      let same = false;
      try {
        same = this.checkResource(input.resource) === row.resource;
      } catch {
        same = false;
      }
      if (!same) throw oauthError(OAuthErrorCode.InvalidTarget, 'resource does not match the authorization request');
    }
    // Claim the code before issuing: of two racing exchanges exactly one wins.
    const claimed = await this.d.db.updateTable('oauth_codes').set({ used_at: now }).where('code_hash', '=', hash).where('used_at', 'is', null).executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) throw invalid();
    const issued = await this.d.tokens.issue({
      clientId: row.client_id,
      userId: row.user_id,
      accountId: row.account_id,
      scopes: parseJson<string[]>(row.scopes, []).filter((s): s is Permission => SCOPES.includes(s as Permission)),
      resource: row.resource,
    });
    await this.d.db.updateTable('oauth_codes').set({ token_id: issued.id }).where('code_hash', '=', hash).execute();
    return { ...issued, resource: row.resource };
  }

  /**
   * Old rows are deleted as new requests arrive: expired requests at once, codes a day after expiry
   * (reuse detection needs them a while), token records 30 days after their tokens expired.
   */
  private async purgeExpired(now: number): Promise<void> {
    await this.d.db.deleteFrom('oauth_requests').where('expires_at', '<=', now).execute();
    await this.d.db.deleteFrom('oauth_codes').where('expires_at', '<=', now - 24 * 3_600_000).execute();
    await this.d.db.deleteFrom('oauth_tokens').where('expires_at', '<=', now - 30 * 24 * 3_600_000).execute();
  }
}
