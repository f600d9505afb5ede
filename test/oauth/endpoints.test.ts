import fs from 'node:fs';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { discover, register, type RegisteredClient } from './helpers.js';

/**
 * The protocol endpoints' own handling of bad input (they are the project's code now, not the
 * 1.x SDK's): every refusal is an OAuth error with a clear description, and errors that may be
 * sent to a client's redirect URI carry state and iss.
 */
const CALLBACK = 'http://127.0.0.1:53682/callback';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

let t: TestServer;
let as: oauth.AuthorizationServer;
let rc: RegisteredClient;
beforeAll(async () => {
  t = await startTestServer({ workers: false });
  ({ as } = await discover(t));
  rc = await register(as, CALLBACK);
});
afterAll(async () => {
  await t?.close();
});

const authorizeUrl = (params: Record<string, string | string[]>) => {
  const url = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(k, one);
  return url;
};
const valid = () => ({ client_id: rc.client.client_id, redirect_uri: CALLBACK, response_type: 'code', code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 'st-1' });

/** The error a redirect carries, with its state and iss. */
async function redirectedError(params: Record<string, string | string[]>) {
  const res = await fetch(authorizeUrl(params), { redirect: 'manual' });
  expect(res.status).toBe(302);
  const loc = new URL(res.headers.get('location')!);
  expect(loc.origin + loc.pathname).toBe(CALLBACK);
  return { error: loc.searchParams.get('error'), description: loc.searchParams.get('error_description') ?? '', state: loc.searchParams.get('state'), iss: loc.searchParams.get('iss') };
}

describe('/authorize', () => {
  it('a valid request goes to the consent page, not yet to the client', async () => {
    const res = await fetch(authorizeUrl(valid()), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^\/consent\?request=/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    [{ response_type: 'token' }, 'unsupported_response_type', /response_type token/],
    [{ response_type: '' }, 'invalid_request', /response_type is required/],
    [{ code_challenge: '' }, 'invalid_request', /code_challenge is required/],
    [{ code_challenge: 'short' }, 'invalid_request', /43-character base64url/],
    [{ code_challenge: `${CHALLENGE.slice(0, 42)}=` }, 'invalid_request', /43-character base64url/],
    [{ code_challenge_method: 'S512' }, 'invalid_request', /code_challenge_method S512 is not supported/],
    [{ resource: 'not a url' }, 'invalid_target', /absolute URL/],
    [{ resource: 'https://other.example/mcp' }, 'invalid_target', /only for the resource/],
    [{ state: ['a', 'b'] }, 'invalid_request', /state must be given once/],
    [{ code_challenge: [CHALLENGE, CHALLENGE] }, 'invalid_request', /code_challenge must be given once/],
  ])('%j is reported to the redirect URI as %s, with state and iss', async (override, error, description) => {
    const r = await redirectedError({ ...valid(), ...override });
    expect(r.error).toBe(error);
    expect(r.description).toMatch(description);
    expect(r.iss).toBe(t.url);
    // A repeated state is not echoed (which one would be the client's?); a single one always is.
    expect(r.state).toBe(Array.isArray((override as Record<string, unknown>).state) ? null : 'st-1');
  });

  it('client and redirect URI problems are answered here, never redirected', async () => {
    const cases: Array<[Record<string, string | string[]>, string, RegExp]> = [
      [{ ...valid(), client_id: '' }, 'invalid_request', /client_id is required/],
      [{ ...valid(), client_id: 'cli_unknown' }, 'invalid_client', /Unknown client_id/],
      [{ ...valid(), client_id: [rc.client.client_id, 'cli_other'] }, 'invalid_request', /client_id must be given once/],
      [{ ...valid(), redirect_uri: 'not a url' }, 'invalid_request', /redirect_uri is not registered/],
      [{ ...valid(), redirect_uri: [CALLBACK, CALLBACK] }, 'invalid_request', /redirect_uri must be given once/],
    ];
    for (const [params, error, description] of cases) {
      const res = await fetch(authorizeUrl(params), { redirect: 'manual', headers: { Accept: 'application/json' } });
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      const body = await res.json();
      expect(body.error).toBe(error);
      expect(body.error_description).toMatch(description);
    }
  });

  it('a browser gets a page for those problems', async () => {
    const res = await fetch(authorizeUrl({ ...valid(), client_id: 'cli_unknown' }), { redirect: 'manual', headers: { Accept: 'text/html' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toContain('Cannot connect this app');
  });

  it('POST works like GET (form body); other methods are 405 with Allow', async () => {
    const post = await fetch(as.authorization_endpoint!, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(valid()), redirect: 'manual' });
    expect(post.status).toBe(302);
    expect(post.headers.get('location')).toMatch(/^\/consent\?request=/);
    const put = await fetch(as.authorization_endpoint!, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
    expect((await put.json()).error).toBe('method_not_allowed');
  });

  it('a client with one redirect URI may leave it out', async () => {
    const { redirect_uri: _omit, ...rest } = valid();
    const res = await fetch(authorizeUrl(rest), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^\/consent\?request=/);
  });
});

describe('/register', () => {
  const post = (body: unknown, contentType = 'application/json') =>
    fetch(as.registration_endpoint!, { method: 'POST', headers: { 'Content-Type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('a public client gets an id and no secret; a confidential one a secret that does not expire', async () => {
    const pub = await post({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', client_name: 'Pub' });
    expect(pub.status).toBe(201);
    expect(pub.headers.get('cache-control')).toBe('no-store');
    const p = await pub.json();
    expect(p.client_id).toMatch(/^cli_/);
    expect(p.client_secret).toBeUndefined();
    expect(p).toMatchObject({ token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'], client_name: 'Pub' });

    const conf = await post({ redirect_uris: [CALLBACK] });
    expect(conf.status).toBe(201);
    const c = await conf.json();
    expect(c.client_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(c.client_secret_expires_at).toBe(0);
    // RFC 7591's default method is client_secret_basic.
    expect(c.token_endpoint_auth_method).toBe('client_secret_basic');
  });

  it.each([
    ['no redirect_uris', {}, /redirect_uris/],
    ['redirect_uris a string', { redirect_uris: CALLBACK }, /redirect_uris must be an array/],
    ['a number as redirect URI', { redirect_uris: [42] }, /redirect_uris\.0/],
    ['a relative redirect URI', { redirect_uris: ['not a url'] }, /absolute URL/],
    ['a javascript: redirect URI', { redirect_uris: ['javascript:alert(1)'] }, /javascript/],
    ['client_name a number', { redirect_uris: [CALLBACK], client_name: 7 }, /client_name/],
    ['no authorization_code grant', { redirect_uris: [CALLBACK], grant_types: ['client_credentials'] }, /grant_types must include authorization_code/],
    ['response type token', { redirect_uris: [CALLBACK], response_types: ['token'] }, /response_types/],
    ['an unsupported auth method', { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'private_key_jwt' }, /token_endpoint_auth_method must be one of/],
    ['client_uri of 2001 characters', { redirect_uris: [CALLBACK], client_uri: `https://a.example/${'x'.repeat(2001 - 18)}` }, /client_uri/],
    ['an array body', [CALLBACK], /expected object/i],
  ])('refuses %s as invalid_client_metadata', async (_name, body, description) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const json = await res.json();
    expect(json.error).toBe('invalid_client_metadata');
    expect(json.error_description).toMatch(description);
  });

  it('an unacceptable redirect URI is invalid_redirect_uri', async () => {
    const res = await post({ redirect_uris: ['http://evil.example/cb'] });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_redirect_uri');
  });

  it('broken JSON is a 400, never stored', async () => {
    const before = await t.ctx.db.selectFrom('oauth_clients').select('client_id').execute();
    const res = await post('{"redirect_uris": [', 'application/json');
    expect(res.status).toBe(400);
    expect(await t.ctx.db.selectFrom('oauth_clients').select('client_id').execute()).toHaveLength(before.length);
  });

  it('browser clients may call it (CORS preflight); GET is 405', async () => {
    const pre = await fetch(as.registration_endpoint!, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    const get = await fetch(as.registration_endpoint!);
    expect(get.status).toBe(405);
    expect((await get.json()).error).toBe('method_not_allowed');
  });
});

describe('/token and /revoke', () => {
  const form = (url: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body) });

  it('token: missing grant_type, missing PKCE verifier, unknown client, bad secret', async () => {
    const auth = { client_id: rc.client.client_id, client_secret: rc.secret! };
    const cases: Array<[Record<string, string>, number, string, RegExp]> = [
      [{ ...auth }, 400, 'invalid_request', /grant_type is required/],
      [{ ...auth, grant_type: 'authorization_code', code: 'abc' }, 400, 'invalid_request', /code_verifier is required/],
      [{ ...auth, grant_type: 'authorization_code', code_verifier: 'a'.repeat(43) }, 400, 'invalid_request', /code is required/],
      [{ ...auth, grant_type: 'authorization_code', code: 'abc', code_verifier: 'a'.repeat(201) }, 400, 'invalid_request', /code_verifier is longer than 200/],
      [{ ...auth, grant_type: 'authorization_code', code: 'abc', code_verifier: 'a'.repeat(43) }, 400, 'invalid_grant', /invalid, expired or already used/],
      [{ ...auth, grant_type: 'authorization_code', code: 'abc', code_verifier: 'a'.repeat(43), resource: 'nope' }, 400, 'invalid_target', /absolute URL/],
      [{ client_id: 'cli_nobody', grant_type: 'authorization_code' }, 401, 'invalid_client', /Unknown client/],
      [{ client_id: rc.client.client_id, client_secret: 'wrong', grant_type: 'authorization_code' }, 401, 'invalid_client', /authentication failed/],
      [{ client_id: rc.client.client_id, grant_type: 'authorization_code' }, 401, 'invalid_client', /authentication failed/],
    ];
    for (const [body, status, error, description] of cases) {
      const res = await form(as.token_endpoint!, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const json = await res.json();
      expect(json.error).toBe(error);
      expect(json.error_description).toMatch(description);
    }
  });

  it('token: a repeated parameter is named as such', async () => {
    const body = new URLSearchParams({ client_id: rc.client.client_id, client_secret: rc.secret!, grant_type: 'authorization_code', code_verifier: 'a'.repeat(43) });
    body.append('code', 'one');
    body.append('code', 'two');
    const res = await fetch(as.token_endpoint!, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', error_description: 'code must be given once, as a string' });
  });

  it('token: two client authentication methods at once are refused; a failed Basic gets a Basic challenge', async () => {
    const basic = `Basic ${Buffer.from(`${rc.client.client_id}:${rc.secret}`).toString('base64')}`;
    const both = await form(as.token_endpoint!, { grant_type: 'authorization_code', client_secret: rc.secret! }, { Authorization: basic });
    expect(both.status).toBe(400);
    expect((await both.json()).error_description).toMatch(/one client authentication method/);
    const wrong = await form(as.token_endpoint!, { grant_type: 'authorization_code' }, { Authorization: `Basic ${Buffer.from(`${rc.client.client_id}:nope`).toString('base64')}` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('token and revoke answer 405 to GET', async () => {
    for (const url of [as.token_endpoint!, as.revocation_endpoint!]) {
      const res = await fetch(url);
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('revoke: the token parameter is required; an unknown token still gets 200', async () => {
    const missing = await form(as.revocation_endpoint!, { client_id: rc.client.client_id, client_secret: rc.secret! });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_request', error_description: 'token is required' });
    const unknown = await form(as.revocation_endpoint!, { client_id: rc.client.client_id, client_secret: rc.secret!, token: 'not-a-token' });
    expect(unknown.status).toBe(200);
  });
});

describe('metadata', () => {
  it('advertises client ID metadata documents next to registration (DCR kept for 2025 clients)', async () => {
    const res = await fetch(`${t.url}/.well-known/oauth-authorization-server`);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = await res.json();
    expect(body.client_id_metadata_document_supported).toBe(true);
    expect(body.registration_endpoint).toBe(`${t.url}/register`);
    expect(body.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post', 'client_secret_basic']);
    const post = await fetch(`${t.url}/.well-known/oauth-authorization-server`, { method: 'POST' });
    expect(post.status).toBe(405);
  });
});

describe('dependencies', () => {
  it('nothing in oauth/ imports @modelcontextprotocol/sdk (1.x)', () => {
    const files = (fs.readdirSync(path.join(PROJECT_ROOT, 'oauth'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.filter((f) => /['"]@modelcontextprotocol\/sdk[/'"]/.test(fs.readFileSync(path.join(PROJECT_ROOT, 'oauth', f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
