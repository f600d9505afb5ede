/*
 * The tables the oauth area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

/**
 * Tables of the OAuth 2.1 authorization server (oauth/). Secrets are stored only as SHA-256:
 * client secrets, pending-authorization ids and authorization codes. Access tokens are JWTs that
 * are never stored; their `jti` (a public id, not a secret) is the row id, so a token can be
 * revoked and listed. See docs/storage.md.
 */
export interface OAuthClientsTable {
  /**
   * The client_id: `cli_` + ULID for dynamically registered clients, or the HTTPS URL of a Client
   * ID Metadata Document.
   */
  client_id: string;
  kind: 'registered' | 'metadata_document';
  /** SHA-256 hex of the client secret of a confidential registered client; null for public clients. */
  secret_hash: string | null;
  /** `none`, `client_secret_post` or `client_secret_basic`. */
  token_endpoint_auth_method: string;
  client_name: string | null;
  /** JSON list of redirect URIs, compared exactly. */
  redirect_uris: string;
  /** JSON of the client metadata as registered or fetched (RFC 7591 names), for display and audit. */
  metadata: string;
  created_at: number;
  /** When the metadata document was last fetched; null for registered clients. */
  fetched_at: number | null;
}

/** An authorization request that passed validation and waits for the person's login and consent. */
export interface OAuthRequestsTable {
  /** SHA-256 hex of the random id carried in the consent page URL. */
  id_hash: string;
  client_id: string;
  redirect_uri: string;
  /** 1 when the request named redirect_uri (then the token request must repeat it). */
  redirect_uri_explicit: number;
  /** PKCE S256 challenge (base64url SHA-256 of the verifier). */
  code_challenge: string;
  /** JSON list of requested permissions (unknown scope strings already dropped). */
  scopes: string;
  state: string | null;
  /** RFC 8707 resource as requested; null when the client sent none. */
  resource: string | null;
  created_at: number;
  expires_at: number;
}

export interface OAuthCodesTable {
  /** SHA-256 hex of the authorization code. */
  code_hash: string;
  client_id: string;
  user_id: string;
  account_id: string;
  redirect_uri: string;
  redirect_uri_explicit: number;
  code_challenge: string;
  /** JSON list of granted permissions. */
  scopes: string;
  /** RFC 8707 resource the token will be bound to (the MCP resource URL). */
  resource: string;
  created_at: number;
  expires_at: number;
  /** Set when the code is exchanged; a second exchange fails and revokes the token. */
  used_at: number | null;
  /** The access token issued for this code. */
  token_id: string | null;
}

export interface OAuthTokensTable {
  /** The JWT's `jti` (`tok_` + ULID). The token itself is never stored. */
  id: string;
  client_id: string;
  user_id: string;
  account_id: string;
  /** JSON list of granted permissions (the token's `scope`). */
  scopes: string;
  /** The audience (`aud`): the MCP resource URL. */
  resource: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  /** Updated at most once a minute; a hint for the console. */
  last_used_at: number | null;
  /**
   * Migration 026: the client's name when the token was issued (right after the person's consent),
   * so what the token writes is labelled with the name the person saw; null when the client has none.
   */
  client_name: string | null;
}

export interface OAuthTables {
  oauth_clients: OAuthClientsTable;
  oauth_requests: OAuthRequestsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
}

declare module '../src/platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the oauth area's tables join the database's type
  interface Database extends OAuthTables {}
}
