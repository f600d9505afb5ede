import type { OAuthClientInformationFull } from '@modelcontextprotocol/server';
import type { Config } from '../src/config.js';
import type { Clock } from '../src/platform/clock.js';
import type { Db } from '../src/platform/db/database.js';
import { parseJson } from '../src/platform/db/sql.js';
import type { OAuthClientsTable } from './tables.js';
import { newId } from '../src/platform/ids.js';
import { sha256Hex } from '../src/platform/secrets.js';
import type { ClientMetadata } from './client-metadata.js';
import { METADATA_DOCUMENT_CACHE_MS } from './constants.js';
import { fetchClientMetadataDocument, looksLikeMetadataDocumentUrl, MetadataDocumentError } from './client-metadata-document.js';
import { oauthError, OAuthErrorCode } from './errors.js';
import { checkRedirectUris } from './redirect-uris.js';

export type TokenEndpointAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';
const AUTH_METHODS: readonly TokenEndpointAuthMethod[] = ['none', 'client_secret_post', 'client_secret_basic'];

/** A client as this server knows it. */
export interface StoredClient {
  clientId: string;
  kind: 'registered' | 'metadata_document';
  secretHash: string | null;
  authMethod: TokenEndpointAuthMethod;
  clientName: string | null;
  redirectUris: string[];
  metadata: Record<string, unknown>;
  createdAt: number;
  fetchedAt: number | null;
}

const toStored = (row: OAuthClientsTable): StoredClient => ({
  clientId: row.client_id,
  kind: row.kind,
  secretHash: row.secret_hash,
  authMethod: (AUTH_METHODS as readonly string[]).includes(row.token_endpoint_auth_method) ? (row.token_endpoint_auth_method as TokenEndpointAuthMethod) : 'none',
  clientName: row.client_name,
  redirectUris: parseJson<string[]>(row.redirect_uris, []),
  metadata: parseJson<Record<string, unknown>>(row.metadata, {}),
  createdAt: row.created_at,
  fetchedAt: row.fetched_at,
});

/** A client in RFC 7591's terms (the registration response). Never carries the secret: client authentication checks the hash (middleware/client-auth.ts). */
export function toClientInformation(c: StoredClient): OAuthClientInformationFull {
  return {
    ...(c.metadata as Partial<OAuthClientInformationFull>),
    client_id: c.clientId,
    redirect_uris: c.redirectUris,
    token_endpoint_auth_method: c.authMethod,
    grant_types: ['authorization_code'],
    response_types: ['code'],
    ...(c.clientName ? { client_name: c.clientName } : {}),
    client_id_issued_at: Math.floor(c.createdAt / 1000),
  };
}

export interface ClientsStoreDeps {
  db: Db;
  clock: Clock;
  /** Whether a metadata document may be fetched from a private address (tests, local clients). */
  config: Pick<Config, 'dangerouslyAllowPrivateNetworkTargets'>;
}

/**
 * Clients on the database: dynamically registered ones (RFC 7591, `cli_…` ids, secrets hashed) and
 * Client ID Metadata Document clients (the client_id is an HTTPS URL; the document is fetched and
 * cached here for METADATA_DOCUMENT_CACHE_MS).
 */
export class ClientsStore {
  constructor(private readonly d: ClientsStoreDeps) {}

  /** A stored client without fetching anything (consent page, token endpoint, console). */
  async find(clientId: string): Promise<StoredClient | null> {
    if (clientId.length > 2000) return null;
    const row = await this.d.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    return row ? toStored(row) : null;
  }

  /**
   * A client for a new authorization: registered clients from the table; metadata document
   * clients fetched when unknown or stale. A document that cannot be used is an invalid_client.
   */
  async resolve(clientId: string): Promise<StoredClient | null> {
    if (!looksLikeMetadataDocumentUrl(clientId)) return this.find(clientId);
    const cached = await this.find(clientId);
    const now = this.d.clock.now();
    if (cached && cached.kind === 'metadata_document' && cached.fetchedAt !== null && now - cached.fetchedAt < METADATA_DOCUMENT_CACHE_MS) return cached;
    let doc;
    try {
      doc = await fetchClientMetadataDocument(clientId, { allowPrivateNetwork: this.d.config.dangerouslyAllowPrivateNetworkTargets });
    } catch (err) {
      if (err instanceof MetadataDocumentError) throw oauthError(OAuthErrorCode.InvalidClient, err.message);
      throw err;
    }
    const values = {
      client_id: clientId,
      kind: 'metadata_document' as const,
      secret_hash: null,
      token_endpoint_auth_method: 'none',
      client_name: doc.clientName,
      redirect_uris: JSON.stringify(doc.redirectUris),
      metadata: JSON.stringify(doc.metadata),
      created_at: cached?.createdAt ?? now,
      fetched_at: now,
    };
    await this.d.db
      .insertInto('oauth_clients')
      .values(values)
      .onConflict((oc) =>
        oc.column('client_id').doUpdateSet({ client_name: values.client_name, redirect_uris: values.redirect_uris, metadata: values.metadata, fetched_at: now }),
      )
      .execute();
    return toStored(values);
  }

  /**
   * Registers a client (RFC 7591) behind the registration handler, which has validated the shape
   * and generated the secret. We check what this server accepts, store only the secret's hash, and
   * answer with what we enforce: authorization_code only, no refresh token.
   */
  async registerClient(client: ClientMetadata & { client_secret?: string }): Promise<OAuthClientInformationFull> {
    const method = (client.token_endpoint_auth_method ?? 'client_secret_basic') as TokenEndpointAuthMethod;
    if (!AUTH_METHODS.includes(method)) {
      throw oauthError(OAuthErrorCode.InvalidClientMetadata, `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
    }
    const grants = client.grant_types ?? ['authorization_code'];
    if (!grants.includes('authorization_code') || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
      throw oauthError(OAuthErrorCode.InvalidClientMetadata, 'grant_types must include authorization_code; only authorization_code is supported (refresh_token is accepted and ignored: no refresh tokens are issued)');
    }
    if (client.response_types && client.response_types.some((r) => r !== 'code')) {
      throw oauthError(OAuthErrorCode.InvalidClientMetadata, 'response_types must be ["code"]');
    }
    const redirectProblem = checkRedirectUris(client.redirect_uris, this.d.config.dangerouslyAllowPrivateNetworkTargets);
    if (redirectProblem) throw oauthError(OAuthErrorCode.InvalidRedirectUri, redirectProblem);
    if (method !== 'none' && !client.client_secret) throw oauthError(OAuthErrorCode.InvalidClientMetadata, 'a confidential client needs a secret');
    const clientName = client.client_name?.trim().slice(0, 200) || null;
    const { client_secret: secret, ...rest } = client;
    const metadata = { ...rest, token_endpoint_auth_method: method, grant_types: ['authorization_code'], response_types: ['code'] };
    if (JSON.stringify(metadata).length > 10_000) throw oauthError(OAuthErrorCode.InvalidClientMetadata, 'client metadata is too large');
    const now = this.d.clock.now();
    const row: OAuthClientsTable = {
      client_id: newId('cli', now),
      kind: 'registered',
      secret_hash: method === 'none' ? null : sha256Hex(secret!),
      token_endpoint_auth_method: method,
      client_name: clientName,
      redirect_uris: JSON.stringify(client.redirect_uris),
      metadata: JSON.stringify(metadata),
      created_at: now,
      fetched_at: null,
    };
    await this.d.db.insertInto('oauth_clients').values(row).execute();
    return {
      ...toClientInformation(toStored(row)),
      // The secret is in this response only; the table keeps its SHA-256.
      ...(method === 'none' ? {} : { client_secret: secret!, client_secret_expires_at: 0 }),
    };
  }
}
