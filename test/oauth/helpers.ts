import * as oauth from 'oauth4webapi';
import { expect } from 'vitest';
import type { Permission } from '../../src/platform/permissions.js';
import type { TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';

/** Test servers listen on plain http on loopback. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** THE URL of "an MCP call": the real Streamable HTTP endpoint. */
export const mcpUrl = (t: TestServer): string => `${t.url}/mcp`;

/** Permissions some MCP tool needs (no tool manages webhooks or forms). */
type ToolPermission = Exclude<Permission, 'webhooks:manage' | 'forms:manage'>;

/** A real tool that needs each permission, so a call proves the token's scopes are enforced. */
const TOOL_NEEDING: Record<ToolPermission, string> = {
  'messages:read': 'rcs_jobs',
  'messages:write': 'rcs_batch_cancel',
  'contacts:read': 'count_contacts',
  'contacts:write': 'create_contact',
  'custom-fields:read': 'list_custom_fields',
  'custom-fields:write': 'create_custom_field',
  'groups:read': 'list_groups',
  'groups:write': 'create_group',
  'templates:read': 'list_templates',
  'templates:write': 'create_template',
};

/** A JSON-RPC tools/call on /mcp of a tool that needs `permission`. */
export async function callMcp(t: TestServer, token: string | null, permission: ToolPermission = 'messages:read') {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(mcpUrl(t), {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOL_NEEDING[permission], arguments: {} } }),
  });
  const text = await res.text();
  return { status: res.status, wwwAuthenticate: res.headers.get('www-authenticate'), body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** RFC 8414 discovery with oauth4webapi, from the issuer the protected resource metadata names. */
export async function discover(t: TestServer): Promise<{ as: oauth.AuthorizationServer; rs: oauth.ResourceServer }> {
  const resource = new URL(mcpUrl(t));
  const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure));
  const issuer = new URL(rs.authorization_servers![0]!);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  return { as, rs };
}

export interface RegisteredClient {
  client: oauth.Client;
  auth: oauth.ClientAuth;
  secret?: string;
  redirectUri: string;
}

/** RFC 7591 registration; a confidential client unless `public` is set. */
export async function register(as: oauth.AuthorizationServer, redirectUri: string, opts: { public?: boolean; basic?: boolean; name?: string } = {}): Promise<RegisteredClient> {
  const res = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      redirect_uris: [redirectUri],
      client_name: opts.name ?? 'Test Assistant',
      token_endpoint_auth_method: opts.public ? 'none' : opts.basic ? 'client_secret_basic' : 'client_secret_post',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
    insecure,
  );
  const registered = await oauth.processDynamicClientRegistrationResponse(res);
  const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: registered.token_endpoint_auth_method };
  if (opts.public) return { client, auth: oauth.None(), redirectUri };
  const secret = registered.client_secret as string;
  expect(secret).toBeTruthy();
  return { client, auth: opts.basic ? oauth.ClientSecretBasic(secret) : oauth.ClientSecretPost(secret), secret, redirectUri };
}

export interface AuthorizeOptions {
  scope?: string;
  resource?: string | null;
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string | null;
  redirectUri?: string | null;
  /** When to stop: 'consent' returns the consent page; default answers it. */
  decision?: 'approve' | 'deny';
  /** Scopes ticked on the consent page (default: all offered). */
  grant?: string[];
}

export interface Login {
  email: string;
  password: string;
  totpSecret: string;
  /** Timestamp for the TOTP code (the server's clock). */
  now: () => number;
}

/**
 * Drives the browser part of the authorization over HTTP: /authorize → consent page → (login with
 * password and TOTP when the WebClient has no session) → consent form → the redirect to the client.
 * Returns that final Location (or the first non-redirect answer).
 */
export async function authorizeVia(web: WebClient, as: oauth.AuthorizationServer, rc: RegisteredClient, login: Login, o: AuthorizeOptions = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = o.state ?? oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('client_id', rc.client.client_id);
  url.searchParams.set('response_type', 'code');
  if (o.redirectUri !== null) url.searchParams.set('redirect_uri', o.redirectUri ?? rc.redirectUri);
  url.searchParams.set('code_challenge', o.codeChallenge ?? (await oauth.calculatePKCECodeChallenge(verifier)));
  if (o.codeChallengeMethod !== null) url.searchParams.set('code_challenge_method', o.codeChallengeMethod ?? 'S256');
  if (o.scope) url.searchParams.set('scope', o.scope);
  url.searchParams.set('state', state);
  if (o.resource !== null) url.searchParams.set('resource', o.resource ?? as.issuer + '/mcp');

  const first = await web.get(url.pathname + url.search);
  if (first.status !== 302 || !first.location?.startsWith('/consent?')) {
    return { verifier, state, location: first.location, status: first.status, text: first.text, consentPage: null as string | null };
  }
  const consentPath = first.location;
  let page = await web.get(consentPath);
  if (page.status === 303 && page.location?.startsWith('/login')) {
    const done = await web.login(login.email, login.password, login.totpSecret, consentPath, login.now());
    expect(done.status, done.text).toBe(303);
    expect(done.location).toBe(consentPath);
    page = await web.get(consentPath);
  }
  expect(page.status, page.text).toBe(200);
  const requestId = WebClient.hidden(page.text, 'request');
  const offered = [...page.text.matchAll(/name="scope" value="([^"]+)"/g)].map((m) => m[1]!);
  const csrf = /<form method="post" action="\/consent"[^>]*>\s*<input type="hidden" name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? WebClient.hidden(page.text, 'csrf');
  const form = new URLSearchParams({ csrf, request: requestId, decision: o.decision ?? 'approve' });
  for (const s of o.grant ?? offered) form.append('scope', s);
  const answer = await postForm(web, '/consent', form);
  return { verifier, state, location: answer.location, status: answer.status, text: answer.text, consentPage: page.text, offered };
}

/** A form POST with repeated fields (WebClient.post takes a record), keeping the WebClient's cookies. */
export async function postForm(web: WebClient, path: string, form: URLSearchParams) {
  const headers: Record<string, string> = { Accept: 'text/html', 'Content-Type': 'application/x-www-form-urlencoded' };
  if (web.cookies.size) headers.Cookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(new URL(path, web.baseUrl), { method: 'POST', headers, body: form.toString(), redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text(), headers: res.headers };
}

/** Token request with oauth4webapi; returns the processed response or the thrown OAuth error. */
export async function exchange(as: oauth.AuthorizationServer, rc: RegisteredClient, location: string, state: string, verifier: string, o: { redirectUri?: string; resource?: string } = {}) {
  const params = oauth.validateAuthResponse(as, rc.client, new URL(location), state);
  const res = await oauth.authorizationCodeGrantRequest(as, rc.client, rc.auth, params, o.redirectUri ?? rc.redirectUri, verifier, {
    ...insecure,
    additionalParameters: { resource: o.resource ?? `${as.issuer}/mcp` },
  });
  return oauth.processAuthorizationCodeResponse(as, rc.client, res);
}

/** The OAuth error code of a rejected oauth4webapi call. */
export async function oauthErrorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) return err.error;
    throw err;
  }
  throw new Error('expected the request to fail');
}
