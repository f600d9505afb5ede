import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { authorizeVia, callMcp, discover, exchange, type RegisteredClient } from './helpers.js';

/** A local web server publishing client metadata documents (and some broken ones). */
let docs: http.Server;
let docsUrl: string;
const CALLBACK = 'http://127.0.0.1:53690/cb';

function document(path: string, extra: Record<string, unknown> = {}) {
  return { client_id: `${docsUrl}${path}`, client_name: 'Doc Client', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], ...extra };
}

beforeAll(async () => {
  docs = http.createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    switch (req.url) {
      case '/clients/good.json':
        return json(200, document('/clients/good.json'));
      case '/clients/mismatch.json':
        return json(200, document('/clients/good.json'));
      case '/clients/redirect.json':
        res.writeHead(302, { Location: `${docsUrl}/clients/good.json` });
        return res.end();
      case '/clients/huge.json':
        return json(200, document('/clients/huge.json', { client_name: 'x'.repeat(10_000) }));
      case '/clients/secret.json':
        return json(200, document('/clients/secret.json', { token_endpoint_auth_method: 'client_secret_post' }));
      case '/clients/bad-redirect.json':
        return json(200, document('/clients/bad-redirect.json', { redirect_uris: ['https://app.example/cb#fragment'] }));
      default:
        return json(404, { error: 'not found' });
    }
  });
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
  docsUrl = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => docs.close(() => resolve()));
});

describe('client ID metadata documents, private targets allowed (test switch on)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('an HTTPS-URL client_id (http here, allowed by the switch) is fetched and used without registration', async () => {
    const { as } = await discover(t);
    const rc: RegisteredClient = { client: { client_id: `${docsUrl}/clients/good.json`, token_endpoint_auth_method: 'none' }, auth: oauth.None(), redirectUri: CALLBACK };
    const web = new WebClient(t.url);
    const a = await authorizeVia(web, as, rc, { email: t.account.email, password: t.account.password, totpSecret: t.account.totpSecret, now: () => Date.now() });
    expect(a.consentPage).toContain('Doc Client');
    expect(a.consentPage).toContain('metadata document published at 127.0.0.1');
    const tokens = await exchange(as, rc, a.location!, a.state, a.verifier);
    expect((await callMcp(t, tokens.access_token)).status).toBe(200);
    const row = await t.ctx.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', rc.client.client_id).executeTakeFirstOrThrow();
    expect(row.kind).toBe('metadata_document');
    expect(row.secret_hash).toBeNull();
  });

  it.each([
    ['/clients/mismatch.json', 'does not equal the URL'],
    ['/clients/redirect.json', 'redirects are not followed'],
    ['/clients/huge.json', 'larger than'],
    ['/clients/secret.json', 'not supported for metadata document clients'],
    ['/clients/bad-redirect.json', 'must not contain a fragment'],
    ['/clients/missing.json', 'HTTP 404'],
  ])('refuses %s', async (path, message) => {
    const res = await fetch(`${t.url}/authorize?${new URLSearchParams({ client_id: `${docsUrl}${path}`, response_type: 'code', redirect_uri: CALLBACK, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`, {
      redirect: 'manual',
      headers: { Accept: 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    const body = await res.json();
    expect(body.error).toBe('invalid_client');
    expect(body.error_description).toContain(message);
  });
});

describe('client ID metadata documents, default (private targets refused)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  const authorize = (clientId: string) =>
    fetch(`${t.url}/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: CALLBACK, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`, {
      redirect: 'manual',
      headers: { Accept: 'application/json' },
    });

  it.each([
    [`https://127.0.0.1:1/clients/good.json`, 'private, loopback'],
    [`https://localhost:1/clients/good.json`, 'localhost resolves to'],
    [`https://[::1]:1/clients/good.json`, 'private, loopback'],
    [`https://[::7f00:1]:1/clients/good.json`, 'private, loopback'],
    [`https://[::ffff:0:7f00:1]:1/clients/good.json`, 'private, loopback'],
    [`https://[2a00:1450:4001::5efe:7f00:1]:1/clients/good.json`, 'private, loopback'],
    [`https://10.1.2.3/clients/good.json`, 'private, loopback'],
    [`https://169.254.169.254/latest/meta-data`, 'private, loopback'],
    [`http://example.com/clients/good.json`, 'must use https'],
    [`https://example.com/`, 'must contain a path'],
  ])('refuses %s before connecting', async (clientId, message) => {
    const res = await authorize(clientId);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe('invalid_client');
    expect(body.error_description).toContain(message);
  });

  it('a person following such a link sees a page, not a redirect', async () => {
    const res = await fetch(`${t.url}/authorize?${new URLSearchParams({ client_id: 'https://127.0.0.1:1/c.json', response_type: 'code' })}`, { redirect: 'manual', headers: { Accept: 'text/html' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toContain('Cannot connect this app');
  });
});

describe('fetch limits', () => {
  it('gives up on a document that does not arrive in time', async () => {
    const { fetchClientMetadataDocument } = await import('../../oauth/client-metadata-document.js');
    const silent = http.createServer(() => {
      /* never answers */
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/client.json`;
    try {
      await expect(fetchClientMetadataDocument(url, { allowPrivateNetwork: true, timeoutMs: 300 })).rejects.toThrow(/within 300 ms/);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
