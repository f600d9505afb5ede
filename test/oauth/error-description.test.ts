import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthErrorDescription } from '../../oauth/error-description.js';
import { mcpBearerChallenge } from '../../oauth/challenge.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { discover, register, type RegisteredClient } from './helpers.js';

/** RFC 6749 §5.2: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ). */
const RFC6749 = /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/;
const NASTY = 'bad "grant"\\type\nwith ünïcödé — 日本\r\tand\u0000 control';

let t: TestServer;
let as: oauth.AuthorizationServer;
let rc: RegisteredClient;
beforeAll(async () => {
  t = await startTestServer();
  ({ as } = await discover(t));
  rc = await register(as, 'http://127.0.0.1:53682/callback');
});
afterAll(async () => {
  await t?.close();
});

describe('error_description uses only the characters RFC 6749 allows', () => {
  it('the one rule: quotes, backslash, line breaks, controls and non-ASCII are replaced, the rest kept', () => {
    const d = oauthErrorDescription(NASTY);
    expect(d).toMatch(RFC6749);
    expect(d).toBe("bad 'grant'/type with unicode ? ?? and? control");
    expect(oauthErrorDescription('redirect_uri is not registered (exact match)')).toBe('redirect_uri is not registered (exact match)');
    expect(oauthErrorDescription('x'.repeat(2000)).length).toBeLessThanOrEqual(500);
  });

  it('the token endpoint, echoing a client-sent grant_type, answers within the character set', async () => {
    const body = new URLSearchParams({ grant_type: NASTY, client_id: rc.client.client_id, client_secret: rc.secret! });
    const res = await fetch(as.token_endpoint!, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: string; error_description: string };
    expect(json.error).toBe('unsupported_grant_type');
    expect(json.error_description).toMatch(RFC6749);
    expect(json.error_description).toContain("bad 'grant'/type");
  });

  it('the SDK’s authorization handler (zod messages carry quotes and newlines) answers within the set, as JSON and as a redirect', async () => {
    // No client_id: the SDK's handler answers with zod's message (a JSON text with quotes and line breaks).
    const direct = await fetch(`${as.authorization_endpoint}?response_type=code`, { headers: { Accept: 'application/json' }, redirect: 'manual' });
    expect(direct.status).toBe(400);
    const json = (await direct.json()) as { error_description: string };
    expect(json.error_description).toMatch(RFC6749);
    // A known client and redirect URI, but a bad code_challenge_method: reported to the redirect URI.
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({ client_id: rc.client.client_id, redirect_uri: rc.redirectUri, response_type: 'code', code_challenge: 'x'.repeat(43), code_challenge_method: 'plain', state: 's' }).toString();
    const redirected = await fetch(url, { redirect: 'manual' });
    expect(redirected.status).toBe(302);
    const location = new URL(redirected.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toMatch(RFC6749);
  });

  it('the WWW-Authenticate challenge of /mcp', () => {
    const header = mcpBearerChallenge('http://127.0.0.1:1', { error: 'invalid_token', description: NASTY });
    const d = /error_description="([^"]*)"/.exec(header)![1]!;
    expect(d).toMatch(RFC6749);
  });
});
