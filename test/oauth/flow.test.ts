import * as oauth from 'oauth4webapi';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthService } from '../../oauth/service.js';
import { FakeClock } from '../../src/platform/clock.js';
import { DEFAULT_PERMISSIONS, PERMISSIONS } from '../../src/platform/permissions.js';
import { sha256Hex } from '../../src/platform/secrets.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import {
  authorizeVia,
  callMcp,
  discover,
  exchange,
  insecure,
  mcpUrl,
  oauthErrorOf,
  postForm,
  register,
  type Login,
  type RegisteredClient,
} from './helpers.js';

const DAY = 24 * 3_600_000;
const clock = new FakeClock(Date.now());
let t: TestServer;
let as: oauth.AuthorizationServer;
let rc: RegisteredClient;
let web: WebClient;
let login: Login;
const CALLBACK = 'http://127.0.0.1:53682/callback';

const loginOf = (a: TestAccount): Login => ({ email: a.email, password: a.password, totpSecret: a.totpSecret, now: () => clock.now() });

beforeAll(async () => {
  t = await startTestServer({ clock });
  ({ as } = await discover(t));
  rc = await register(as, CALLBACK);
  web = new WebClient(t.url);
  login = loginOf(t.account);
});
afterAll(async () => {
  await t?.close();
});

/** Authorization + token exchange for the shared client and logged-in person. */
async function getToken(o: { scope?: string; client?: RegisteredClient; web?: WebClient; login?: Login } = {}) {
  const client = o.client ?? rc;
  const a = await authorizeVia(o.web ?? web, as, client, o.login ?? login, { scope: o.scope ?? 'contacts:read messages:read' });
  expect(a.status, a.text).toBe(303);
  const tokens = await exchange(as, client, a.location!, a.state, a.verifier);
  return tokens.access_token;
}

describe('discovery', () => {
  it('protected resource metadata (both forms) names this server and the permissions as scopes', async () => {
    const { rs } = await discover(t);
    expect(rs.resource).toBe(mcpUrl(t));
    expect(rs.authorization_servers).toEqual([t.url]);
    expect(rs.scopes_supported).toEqual([...PERMISSIONS]);
    const root = await (await fetch(`${t.url}/.well-known/oauth-protected-resource`)).json();
    expect(root).toEqual(rs);
  });

  it('authorization server metadata: S256 only, registration, revocation, metadata documents, no refresh tokens', async () => {
    expect(as.issuer).toBe(t.url);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.registration_endpoint).toBe(`${t.url}/register`);
    expect(as.revocation_endpoint).toBe(`${t.url}/revoke`);
    expect(as.client_id_metadata_document_supported).toBe(true);
    expect(as.grant_types_supported).toEqual(['authorization_code']);
    expect(as.scopes_supported).toEqual([...PERMISSIONS]);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('/mcp without a credential answers 401 pointing at the resource metadata', async () => {
    const r = await callMcp(t, null);
    expect(r.status).toBe(401);
    expect(r.wwwAuthenticate).toContain(`resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp"`);
    // The management permissions are never suggested: a client must ask for them by name.
    expect(r.wwwAuthenticate).toContain(`scope="${DEFAULT_PERMISSIONS.join(' ')}"`);
    expect(r.wwwAuthenticate).not.toContain('error=');
  });
});

describe('registration', () => {
  it('stores only a hash of the client secret and enforces authorization_code', async () => {
    const row = await t.ctx.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', rc.client.client_id).executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(sha256Hex(rc.secret!));
    expect(JSON.stringify(row)).not.toContain(rc.secret!);
    expect(JSON.parse(row.metadata).grant_types).toEqual(['authorization_code']);
  });

  it('refuses redirect URIs that are not https (except loopback) or that carry a fragment', async () => {
    for (const uri of ['http://evil.example/cb', 'https://app.example/cb#frag', 'javascript:alert(1)']) {
      const r = await fetch(as.registration_endpoint!, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: [uri] }) });
      expect(r.status, uri).toBe(400);
      expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain((await r.json()).error);
    }
  });
});

describe('authorization code flow with PKCE', () => {
  it('discovery → registration → login with TOTP → consent → token → MCP call → revocation → call fails', async () => {
    const a = await authorizeVia(web, as, rc, login, { scope: 'contacts:read messages:read' });
    // The consent page names the client and exactly the requested scopes.
    expect(a.consentPage).toContain('Test Assistant');
    expect(a.offered).toEqual(['contacts:read', 'messages:read']);
    expect(a.status).toBe(303);
    expect(a.location!.startsWith(`${CALLBACK}?`)).toBe(true);
    const cb = new URL(a.location!);
    expect(cb.searchParams.get('iss')).toBe(t.url);
    const codeRow = await t.ctx.db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', sha256Hex(cb.searchParams.get('code')!)).executeTakeFirst();
    expect(codeRow?.expires_at).toBeLessThanOrEqual(clock.now() + 10 * 60_000);

    const tokens = await exchange(as, rc, a.location!, a.state, a.verifier);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(30 * 24 * 3600);
    expect(tokens.scope).toBe('contacts:read messages:read');
    expect(tokens.refresh_token).toBeUndefined();

    const header = decodeProtectedHeader(tokens.access_token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ iss: t.url, aud: mcpUrl(t), scope: 'contacts:read messages:read', client_id: rc.client.client_id });
    expect(claims.exp! - claims.iat!).toBe(30 * 24 * 3600);
    const tokenRow = await t.ctx.db.selectFrom('oauth_tokens').selectAll().where('id', '=', claims.jti!).executeTakeFirstOrThrow();
    expect(tokenRow.account_id).toBe(t.account.accountId);

    const call = await callMcp(t, tokens.access_token, 'messages:read');
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({ result: { structuredContent: { data: expect.any(Array) } } });
    expect((call.body as { result: { isError?: boolean } }).result.isError).toBeFalsy();

    // The REST API accepts the same token with the same permissions (docs/decisions.md).
    const rest = await t.api('GET', '/api/v1/contacts', undefined, { key: null, headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(rest.status).toBe(200);
    const restDenied = await t.api('POST', '/api/v1/contacts', { phone: '+4915112345678' }, { key: null, headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(restDenied.status).toBe(403);
    expect(restDenied.body.error.code).toBe('FORBIDDEN');

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, rc.client, rc.auth, tokens.access_token, insecure));
    const after = await callMcp(t, tokens.access_token);
    expect(after.status).toBe(401);
    expect(after.wwwAuthenticate).toContain('error="invalid_token"');
    expect((await t.api('GET', '/api/v1/contacts', undefined, { key: null, headers: { Authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
  });

  it('a public client (token_endpoint_auth_method none) completes the flow too', async () => {
    const pub = await register(as, 'http://localhost:8123/cb', { public: true, name: 'Public CLI' });
    const token = await getToken({ client: pub });
    expect((await callMcp(t, token)).status).toBe(200);
  });

  it('client_secret_basic works too', async () => {
    const basic = await register(as, CALLBACK, { basic: true, name: 'Basic Client' });
    const token = await getToken({ client: basic });
    expect((await callMcp(t, token)).status).toBe(200);
  });

  it('the signing key is generated once and kept in settings: tokens survive a restart', async () => {
    const token = await getToken();
    const row = await t.ctx.db.selectFrom('settings').selectAll().where('key', '=', 'oauth.jwt_signing_key').executeTakeFirstOrThrow();
    // Sealed at rest (src/platform/sealing.ts): the kid is visible only after opening it.
    expect(row.value).toMatch(/^sealed:v1:/);
    expect(JSON.parse(t.ctx.sealer.open(row.value, 'settings:oauth.jwt_signing_key')).kid).toBe(decodeProtectedHeader(token).kid);
    const restarted = new OAuthService({ db: t.ctx.db, clock, config: t.ctx.config, sealer: t.ctx.sealer });
    await restarted.init();
    expect((await restarted.verifyAccessToken(token)).ok).toBe(true);
    expect(await t.ctx.db.selectFrom('settings').select('key').where('key', '=', 'oauth.jwt_signing_key').execute()).toHaveLength(1);
  });

  it('a token lacking the needed permission gets 403 insufficient_scope with the scope to ask for', async () => {
    const token = await getToken({ scope: 'contacts:read' });
    const r = await callMcp(t, token, 'contacts:write');
    expect(r.status).toBe(403);
    expect(r.wwwAuthenticate).toContain('error="insufficient_scope"');
    expect(r.wwwAuthenticate).toContain('scope="contacts:read contacts:write"');
    expect(r.wwwAuthenticate).toContain('resource_metadata=');
  });

  it('the person can grant fewer scopes than requested, and unknown scopes are ignored', async () => {
    const a = await authorizeVia(web, as, rc, login, { scope: 'openid contacts:read contacts:write', grant: ['contacts:read'] });
    expect(a.offered).toEqual(['contacts:read', 'contacts:write']);
    const tokens = await exchange(as, rc, a.location!, a.state, a.verifier);
    expect(tokens.scope).toBe('contacts:read');
  });

  it('deny sends access_denied back to the client', async () => {
    const a = await authorizeVia(web, as, rc, login, { decision: 'deny' });
    const cb = new URL(a.location!);
    expect(cb.origin + cb.pathname).toBe(CALLBACK);
    expect(cb.searchParams.get('error')).toBe('access_denied');
    expect(cb.searchParams.get('state')).toBe(a.state);
  });

  it('no refresh token grant', async () => {
    const r = await fetch(as.token_endpoint!, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: rc.client.client_id, client_secret: rc.secret! }),
    });
    expect(r.status).toBe(400);
    expect((await r.json()).error).toBe('unsupported_grant_type');
  });

  it('a wrong client secret is invalid_client', async () => {
    const a = await authorizeVia(web, as, rc, login);
    const wrong = { ...rc, auth: oauth.ClientSecretPost('0'.repeat(64)) };
    expect(await oauthErrorOf(exchange(as, wrong, a.location!, a.state, a.verifier))).toBe('invalid_client');
  });
});

describe('refusals', () => {
  it('plain PKCE (and no method, which means plain) is refused at /authorize', async () => {
    for (const method of ['plain', null]) {
      const verifier = oauth.generateRandomCodeVerifier();
      const a = await authorizeVia(web, as, rc, login, { codeChallenge: verifier, codeChallengeMethod: method });
      expect(a.status).toBe(302);
      const cb = new URL(a.location!);
      expect(cb.searchParams.get('error')).toBe('invalid_request');
      expect(cb.searchParams.get('error_description')).toMatch(/code_challenge_method/);
    }
  });

  it('a wrong code verifier is invalid_grant (and does not burn the code for the real client)', async () => {
    const a = await authorizeVia(web, as, rc, login);
    expect(await oauthErrorOf(exchange(as, rc, a.location!, a.state, oauth.generateRandomCodeVerifier()))).toBe('invalid_grant');
    const tokens = await exchange(as, rc, a.location!, a.state, a.verifier);
    expect(tokens.access_token).toBeTruthy();
  });

  it('a code works once; reuse fails and revokes the token the first use produced', async () => {
    const a = await authorizeVia(web, as, rc, login);
    const tokens = await exchange(as, rc, a.location!, a.state, a.verifier);
    expect((await callMcp(t, tokens.access_token)).status).toBe(200);
    expect(await oauthErrorOf(exchange(as, rc, a.location!, a.state, a.verifier))).toBe('invalid_grant');
    expect((await callMcp(t, tokens.access_token)).status).toBe(401);
  });

  it('a code is bound to its client', async () => {
    const other = await register(as, CALLBACK, { name: 'Other' });
    const a = await authorizeVia(web, as, rc, login);
    expect(await oauthErrorOf(exchange(as, other, a.location!, a.state, a.verifier))).toBe('invalid_grant');
  });

  it('an unregistered redirect URI is answered at /authorize, never redirected to — not even a loopback on another port', async () => {
    for (const uri of ['http://127.0.0.1:53683/callback', 'http://127.0.0.1:53682/callback/other', 'https://evil.example/cb']) {
      const a = await authorizeVia(web, as, rc, login, { redirectUri: uri });
      expect(a.status, uri).toBe(400);
      expect(a.location).toBeNull();
      expect(a.text).toContain('redirect_uri is not registered');
    }
  });

  it('the token request must repeat the redirect URI of the authorization request', async () => {
    const a = await authorizeVia(web, as, rc, login);
    expect(await oauthErrorOf(exchange(as, rc, a.location!, a.state, a.verifier, { redirectUri: 'http://127.0.0.1:53682/other' }))).toBe('invalid_grant');
  });

  it('tokens for another resource are refused: at /authorize, at /token, and on /mcp', async () => {
    const a = await authorizeVia(web, as, rc, login, { resource: 'https://other.example/mcp' });
    expect(new URL(a.location!).searchParams.get('error')).toBe('invalid_target');

    const b = await authorizeVia(web, as, rc, login);
    expect(await oauthErrorOf(exchange(as, rc, b.location!, b.state, b.verifier, { resource: 'https://other.example/mcp' }))).toBe('invalid_target');

    // A token we signed ourselves, but for another audience, does not open /mcp.
    const foreign = await t.ctx.services.oauth.tokens.issue({
      clientId: rc.client.client_id,
      userId: (await t.ctx.services.users.listForAccount(t.account.accountId))[0]!.id,
      accountId: t.account.accountId,
      scopes: ['messages:read'],
      resource: 'https://other.example/mcp',
    });
    expect(decodeJwt(foreign.token).aud).toBe('https://other.example/mcp');
    const r = await callMcp(t, foreign.token);
    expect(r.status).toBe(401);
    expect(r.wwwAuthenticate).toContain('error="invalid_token"');
  });

  it('a tampered token (signature) is refused', async () => {
    const token = await getToken();
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, scope: PERMISSIONS.join(' ') })).toString('base64url')}.${s}`;
    expect((await callMcp(t, forged, 'messages:write')).status).toBe(401);
  });

  it('a deactivated user’s tokens stop working', async () => {
    const b = await t.createAccount();
    const webB = new WebClient(t.url);
    const token = await getToken({ web: webB, login: loginOf(b) });
    expect((await callMcp(t, token)).status).toBe(200);
    const user = (await t.ctx.services.users.listForAccount(b.accountId))[0]!;
    await t.ctx.services.users.setActive(user.id, false);
    expect((await callMcp(t, token)).status).toBe(401);
  });

  it('revocation from the console (connected apps)', async () => {
    const token = await getToken();
    const page = await web.get('/console/apps');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Test Assistant');
    const userId = (await t.ctx.services.users.listForAccount(t.account.accountId))[0]!.id;
    const res = await postForm(web, '/console/apps/revoke', new URLSearchParams({ csrf: WebClient.hidden(page.text, 'csrf'), client_id: rc.client.client_id, user_id: userId }));
    expect(res.status).toBe(303);
    expect(res.location).toBe('/console/apps?done=app-revoked');
    expect((await callMcp(t, token)).status).toBe(401);
  });

  it('revocation by another client leaves the token alone (and still answers 200)', async () => {
    const token = await getToken();
    const other = await register(as, CALLBACK, { name: 'Other 2' });
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, other.client, other.auth, token, insecure));
    expect((await callMcp(t, token)).status).toBe(200);
  });

  it('expired tokens are refused (30 days)', async () => {
    const token = await getToken();
    clock.advance(30 * DAY - 60_000);
    expect((await callMcp(t, token)).status).toBe(200);
    clock.advance(60_000);
    const r = await callMcp(t, token);
    expect(r.status).toBe(401);
    expect(r.wwwAuthenticate).toContain('error="invalid_token"');
  });
});
