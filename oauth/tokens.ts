import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../src/platform/clock.js';
import type { Db } from '../src/platform/db/database.js';
import { parseJson } from '../src/platform/db/sql.js';
import { isId, newId } from '../src/platform/ids.js';
import type { Permission } from '../src/platform/permissions.js';
import { ACCESS_TOKEN_TTL_MS, knownScopes } from './constants.js';
import { JWT_ALG, type SigningKey } from './keys.js';

/** RFC 9068 media type of JWT access tokens. */
const TOKEN_TYP = 'at+jwt';
const LAST_USED_RESOLUTION_MS = 60_000;
const MAX_TOKEN_LENGTH = 4096;

export interface IssuedToken {
  token: string;
  id: string;
  expiresAt: number;
  scopes: Permission[];
}

export interface VerifiedToken {
  id: string;
  clientId: string;
  /** The client's name when the token was issued (as on the consent page); null when it has none. */
  clientName: string | null;
  userId: string;
  accountId: string;
  scopes: Permission[];
  resource: string;
  expiresAt: number;
}

/** Why a token was refused: for logs and the WWW-Authenticate error_description, never secrets. */
export type TokenRejection = 'malformed' | 'signature' | 'expired' | 'audience' | 'issuer' | 'revoked' | 'inactive';

export type VerifyResult = { ok: true; token: VerifiedToken } | { ok: false; reason: TokenRejection };

/** Cheap shape test so API keys and other credentials skip JWT work entirely. */
export const looksLikeJwt = (credential: string): boolean =>
  credential.length <= MAX_TOKEN_LENGTH && /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(credential);

export interface AccessTokensDeps {
  db: Db;
  clock: Clock;
  /** The signing key, loaded (or made on the very first start) by OAuthService. */
  key: () => Promise<SigningKey>;
  /** The issuer URL, computed on each use: without PUBLIC_URL it follows the bound port. */
  issuer: () => string;
}

/**
 * Access tokens: ES256 JWTs (RFC 9068 profile) with iss, sub (usr_…), aud (the MCP resource),
 * client_id, scope, iat, exp and jti. The JWT is never stored; its jti is the row id in
 * oauth_tokens, which records scopes, expiry and revocation. Verification checks the signature,
 * expiry, issuer and audience, then the row (revoked?) and that user and account are still active.
 */
export class AccessTokens {
  constructor(private readonly d: AccessTokensDeps) {}

  async issue(input: { clientId: string; userId: string; accountId: string; scopes: readonly Permission[]; resource: string }): Promise<IssuedToken> {
    const now = this.d.clock.now();
    const id = newId('tok', now);
    const expiresAt = now + ACCESS_TOKEN_TTL_MS;
    const key = await this.d.key();
    const scopes = knownScopes(input.scopes);
    const token = await new SignJWT({ client_id: input.clientId, scope: scopes.join(' '), acc: input.accountId })
      .setProtectedHeader({ alg: JWT_ALG, typ: TOKEN_TYP, kid: key.kid })
      .setIssuer(this.d.issuer())
      .setSubject(input.userId)
      .setAudience(input.resource)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(expiresAt / 1000))
      .setJti(id)
      .sign(key.privateKey);
    await this.d.db
      .insertInto('oauth_tokens')
      .values({
        id,
        client_id: input.clientId,
        user_id: input.userId,
        account_id: input.accountId,
        scopes: JSON.stringify(scopes),
        resource: input.resource,
        created_at: now,
        expires_at: expiresAt,
        revoked_at: null,
        last_used_at: null,
        // The name the person saw on the consent page moments ago, kept with the token.
        client_name: (eb) => eb.selectFrom('oauth_clients').select('oauth_clients.client_name').where('oauth_clients.client_id', '=', input.clientId),
      })
      .execute();
    return { token, id, expiresAt, scopes };
  }

  /** Full verification for a protected resource whose identifier is `audience`. */
  async verify(token: string, audience: string): Promise<VerifyResult> {
    const claims = await this.checkJwt(token, { audience, checkExpiry: true });
    if (!claims.ok) return claims;
    const row = await this.d.db
      .selectFrom('oauth_tokens')
      .innerJoin('users', 'users.id', 'oauth_tokens.user_id')
      .innerJoin('accounts', 'accounts.id', 'oauth_tokens.account_id')
      .select([
        'oauth_tokens.id',
        'oauth_tokens.client_id',
        'oauth_tokens.client_name',
        'oauth_tokens.user_id',
        'oauth_tokens.account_id',
        'oauth_tokens.scopes',
        'oauth_tokens.resource',
        'oauth_tokens.expires_at',
        'oauth_tokens.revoked_at',
        'oauth_tokens.last_used_at',
        'users.active as user_active',
        'users.account_id as user_account_id',
        'accounts.active as account_active',
      ])
      .where('oauth_tokens.id', '=', claims.jti)
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) return { ok: false, reason: 'revoked' };
    if (row.user_id !== claims.sub || row.client_id !== claims.clientId || row.resource !== audience) return { ok: false, reason: 'revoked' };
    const now = this.d.clock.now();
    if (row.expires_at <= now) return { ok: false, reason: 'expired' };
    if (row.user_active !== 1 || row.account_active !== 1 || row.user_account_id !== row.account_id) return { ok: false, reason: 'inactive' };
    if (row.last_used_at === null || now - row.last_used_at > LAST_USED_RESOLUTION_MS) {
      await this.d.db.updateTable('oauth_tokens').set({ last_used_at: now }).where('id', '=', row.id).execute();
    }
    return {
      ok: true,
      token: {
        id: row.id,
        clientId: row.client_id,
        clientName: row.client_name,
        userId: row.user_id,
        accountId: row.account_id,
        scopes: knownScopes(parseJson<string[]>(row.scopes, [])),
        resource: row.resource,
        expiresAt: row.expires_at,
      },
    };
  }

  /**
   * The token's id and client when the signature and issuer are ours, expired or not (revocation
   * accepts expired tokens and answers 200 either way, RFC 7009 §2.2).
   */
  async identify(token: string): Promise<{ id: string; clientId: string } | null> {
    const claims = await this.checkJwt(token, { checkExpiry: false });
    return claims.ok ? { id: claims.jti, clientId: claims.clientId } : null;
  }

  async revoke(id: string): Promise<void> {
    await this.d.db.updateTable('oauth_tokens').set({ revoked_at: this.d.clock.now() }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  }

  private async checkJwt(
    token: string,
    opts: { audience?: string; checkExpiry: boolean },
  ): Promise<{ ok: true; jti: string; sub: string; clientId: string } | { ok: false; reason: TokenRejection }> {
    if (!looksLikeJwt(token)) return { ok: false, reason: 'malformed' };
    const key = await this.d.key();
    try {
      const header = decodeProtectedHeader(token);
      if (header.alg !== JWT_ALG || header.typ !== TOKEN_TYP) return { ok: false, reason: 'malformed' };
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    try {
      const { payload } = await jwtVerify(token, key.publicKey, {
        algorithms: [JWT_ALG],
        typ: TOKEN_TYP,
        issuer: this.d.issuer(),
        ...(opts.audience !== undefined ? { audience: opts.audience } : {}),
        currentDate: new Date(opts.checkExpiry ? this.d.clock.now() : 0),
        requiredClaims: ['exp', 'iat', 'sub', 'jti', 'aud'],
      });
      const jti = payload.jti;
      const clientId = payload.client_id;
      if (!isId('tok', jti) || typeof payload.sub !== 'string' || typeof clientId !== 'string') return { ok: false, reason: 'malformed' };
      return { ok: true, jti, sub: payload.sub, clientId };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) return { ok: false, reason: 'expired' };
      if (err instanceof joseErrors.JWTClaimValidationFailed) {
        if (err.claim === 'aud') return { ok: false, reason: 'audience' };
        if (err.claim === 'iss') return { ok: false, reason: 'issuer' };
        return { ok: false, reason: 'malformed' };
      }
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) return { ok: false, reason: 'signature' };
      return { ok: false, reason: 'malformed' };
    }
  }
}
