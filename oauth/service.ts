import type { Config } from '../src/config.js';
import type { Clock } from '../src/platform/clock.js';
import type { Db } from '../src/platform/db/database.js';
import { credentialLabel, type Principal } from '../src/platform/permissions.js';
import type { Sealer } from '../src/platform/sealing.js';
import { ClientsStore } from './clients.js';
import { ConnectedApps } from './connected-apps.js';
import { Grants } from './grants.js';
import { loadOrCreateSigningKey, type SigningKey } from './keys.js';
import { DatabaseOAuthProvider } from './provider.js';
import { AccessTokens, looksLikeJwt, type VerifyResult } from './tokens.js';
import { oauthUrls, type OAuthUrls } from './urls.js';

export interface OAuthDeps {
  db: Db;
  clock: Clock;
  /** publicUrl is read on each use (it follows the bound port without PUBLIC_URL); the other for metadata document fetches. */
  config: Pick<Config, 'publicUrl' | 'dangerouslyAllowPrivateNetworkTargets'>;
  /** Seals the token signing key at rest. */
  sealer: Sealer;
}

/**
 * The OAuth 2.1 authorization server of the MCP endpoint, built once per process (ctx.services.oauth).
 * URLs are computed from config.publicUrl on each use: without PUBLIC_URL it follows the bound port.
 */
export class OAuthService {
  readonly clients: ClientsStore;
  readonly tokens: AccessTokens;
  readonly grants: Grants;
  readonly provider: DatabaseOAuthProvider;
  readonly connectedApps: ConnectedApps;
  private signingKey: Promise<SigningKey> | null = null;

  constructor(private readonly d: OAuthDeps) {
    const { db, clock, config } = d;
    const issuer = () => this.urls().issuer;
    const mcpResource = () => this.urls().mcpResource;
    // The parts share the signing key and URLs, which live here; they are the OAuth area's own, so built here.
    this.clients = new ClientsStore({ db, clock, config });
    this.tokens = new AccessTokens({ db, clock, key: () => this.key(), issuer });
    this.grants = new Grants({ db, clock, tokens: this.tokens, mcpResource, issuer });
    this.provider = new DatabaseOAuthProvider({ grants: this.grants, tokens: this.tokens, mcpResource });
    this.connectedApps = new ConnectedApps({ db, clock });
  }

  urls(): OAuthUrls {
    return oauthUrls(this.d.config.publicUrl);
  }

  /** Loads the signing key, generating and storing it on the very first start. */
  async init(): Promise<void> {
    await this.key();
  }

  private key(): Promise<SigningKey> {
    if (!this.signingKey) {
      this.signingKey = loadOrCreateSigningKey(this.d.db, this.d.clock.now(), this.d.sealer);
      this.signingKey.catch(() => {
        this.signingKey = null;
      });
    }
    return this.signingKey;
  }

  /** Verifies an access token for the MCP resource (signature, expiry, audience, revocation, active user and account). */
  verifyAccessToken(token: string): Promise<VerifyResult> {
    return this.tokens.verify(token, this.urls().mcpResource);
  }

  /**
   * The CredentialResolver of OAuth access tokens (ctx.credentialResolvers): null for anything
   * that is not one of our valid tokens, so the next resolver (or a 401) takes over.
   */
  async resolveAccessToken(credential: string): Promise<Principal | null> {
    if (!looksLikeJwt(credential)) return null;
    const result = await this.verifyAccessToken(credential);
    if (!result.ok) return null;
    const t = result.token;
    // Tokens are held by assistants: their sends always go through a preview a person approved.
    return {
      accountId: t.accountId,
      permissions: new Set(t.scopes),
      via: 'oauth',
      subjectId: t.userId,
      userId: t.userId,
      sendsNeedApproval: true,
      credential: { id: t.clientId, label: credentialLabel('app', t.clientName ?? t.clientId) },
    };
  }
}
