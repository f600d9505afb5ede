import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { NGINX_BIN, freePorts, replaceOnce, selfSignedCertificate, startNginx, type RunningNginx } from '../helpers/nginx.js';
import { createTestSchema, postgresUnreachable, type TestSchema } from '../helpers/postgres.js';
import { WebClient } from '../helpers/web-client.js';
import { body, mcpClient } from '../mcp/helpers.js';
import { waitFor } from '../api/messaging/util.js';

/**
 * deploy/nginx.conf as shipped (ports and certificate swapped in) in front of two instances of
 * the real entry point on one PostgreSQL schema: TLS terminated by nginx, the API, login, MCP and
 * the share page through it, requests spread over both instances, and everything still answering
 * after either instance is killed with SIGKILL. Skipped without nginx or PostgreSQL, unless
 * REQUIRE_NGINX=1 / REQUIRE_POSTGRES=1 (CI) make a missing one a failure.
 */
const hasNginx = fs.existsSync(NGINX_BIN);
const unreachable = await postgresUnreachable();
const missing = [...(hasNginx ? [] : [`nginx (${NGINX_BIN})`]), ...(unreachable === null ? [] : [`PostgreSQL (${unreachable})`])];
const requiredMissing = missing.filter((m) => (m.startsWith('nginx') ? process.env.REQUIRE_NGINX === '1' : process.env.REQUIRE_POSTGRES === '1'));

describe.runIf(requiredMissing.length > 0)('nginx in front of two instances: requirements', () => {
  it('are installed and running', () => {
    throw new Error(`missing: ${requiredMissing.join('; ')}`);
  });
});

/** deploy/nginx.conf for this machine: the instances' ports, loopback listeners on free ports, a test certificate. */
function renderSample(o: { upstreams: string[]; httpPort: number; httpsPort: number; cert: string; key: string }): string {
  let conf = fs.readFileSync(path.join(PROJECT_ROOT, 'deploy/nginx.conf'), 'utf8');
  conf = replaceOnce(conf, /^( *)server 127\.0\.0\.1:3001 (.*);\n *server 127\.0\.0\.1:3002 .*;$/m, (o.upstreams.map((u) => `$1server ${u} $2;`).join('\n')));
  conf = replaceOnce(conf, /^ *listen \[::\]:80;\n/m, '');
  conf = replaceOnce(conf, /^ *listen \[::\]:443 ssl http2;\n/m, '');
  conf = replaceOnce(conf, 'listen 80;', `listen 127.0.0.1:${o.httpPort};`);
  conf = replaceOnce(conf, 'listen 443 ssl http2;', `listen 127.0.0.1:${o.httpsPort} ssl http2;`);
  conf = replaceOnce(conf, /ssl_certificate +\S+;/, `ssl_certificate ${o.cert};`);
  conf = replaceOnce(conf, /ssl_certificate_key +\S+;/, `ssl_certificate_key ${o.key};`);
  return conf;
}

/** The demo account's credentials from the first instance's 0600 file (its stdout is no terminal). */
function demoCredentials(dataDir: string) {
  const text = fs.readFileSync(path.join(dataDir, 'first-start-credentials.txt'), 'utf8');
  const grab = (label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(text)?.[1] ?? '';
  return { email: grab('Email'), password: grab('Password'), totpSecret: grab('TOTP secret'), automationKey: grab('Automation API key'), assistantKey: grab('Assistant API key') };
}

/** Request-log lines of one instance for a route. */
const served = (s: ChildServer, route: string) => s.output().split('\n').filter((l) => l.includes('"msg":"request"') && l.includes(`"route":"${route}"`)).length;
describe.skipIf(missing.length > 0)('nginx (deploy/nginx.conf) in front of two instances on one PostgreSQL database', () => {
  const dirs: string[] = [];
  let schema: TestSchema;
  let a: ChildServer;
  let b: ChildServer;
  let nginx: RunningNginx;
  let base = '';
  let httpPort = 0;
  let previousDispatcher: Dispatcher;
  let demo: ReturnType<typeof demoCredentials>;
  const mcp: Client[] = [];
  let shared: Record<string, string> = {};
  const dataDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-nginx-instance-'));
    dirs.push(d);
    return d;
  };

  const api = async (method: string, pathname: string, payload?: unknown, key = demo.automationKey) => {
    const res = await fetch(`${base}${pathname}`, {
      method,
      headers: { 'X-API-Key': key, ...(payload !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(payload !== undefined ? { body: typeof payload === 'string' ? payload : JSON.stringify(payload) } : {}),
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* an nginx error page */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };

  beforeAll(async () => {
    const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-nginx-cert-'));
    dirs.push(certDir);
    const tls = selfSignedCertificate(certDir);
    // fetch (and the MCP client on it) trusts the test certificate, for this file only.
    previousDispatcher = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: tls.pem } }));

    const ports = await freePorts(2);
    const httpsPort = ports[0]!;
    httpPort = ports[1]!;
    base = `https://127.0.0.1:${httpsPort}`;
    schema = await createTestSchema('h4nginx');
    shared = {
      DATABASE_URL: schema.url,
      DATABASE_POOL_MAX: '4',
      SEALING_KEY: randomBytes(32).toString('base64'),
      PUBLIC_URL: base,
      TRUST_PROXY: 'true',
      SIM_DELIVERY_DELAY_MS: '0',
      SIM_READ_DELAY_MS: '0',
    };
    const dirA = dataDir();
    // One after the other: the first seeds the demo account, the second finds the database in use.
    a = await startChildServer({ ...shared, DATA_DIR: dirA });
    b = await startChildServer({ ...shared, DATA_DIR: dataDir() });
    demo = demoCredentials(dirA);
    expect(demo.automationKey).toMatch(/^rcsk_/);
    const upstreams = [a.url, b.url].map((u) => new URL(u).host);
    nginx = await startNginx(renderSample({ upstreams, httpPort, httpsPort, cert: tls.cert, key: tls.key }), httpsPort);
  }, 90_000);

  afterAll(async () => {
    for (const c of mcp) await c.close().catch(() => undefined);
    await nginx?.stop();
    await a?.stop();
    await b?.stop();
    await schema?.drop();
    if (previousDispatcher) setGlobalDispatcher(previousDispatcher);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('serves health, the API and the database status over TLS, spreading requests over both instances', async () => {
    const health = await fetch(`${base}/api/rcs/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'healthy', timestamp: expect.stringMatching(/Z$/) });
    // nginx's request id reaches the instance and comes back.
    expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);

    const [beforeA, beforeB] = [served(a, '/api/rcs/status'), served(b, '/api/rcs/status')];
    for (let i = 0; i < 6; i++) {
      const r = await api('GET', '/api/rcs/status');
      expect(r.status).toBe(200);
      expect(r.body.database).toMatchObject({ dialect: 'postgres', status: 'up' });
    }
    // The request log is written when a response finishes and reaches us through the child's stdout: wait for the lines.
    await waitFor(() => served(a, '/api/rcs/status') > beforeA && served(b, '/api/rcs/status') > beforeB, { what: 'requests logged on both instances' });
    expect(served(a, '/api/rcs/status') - beforeA).toBeGreaterThan(0);
    expect(served(b, '/api/rcs/status') - beforeB).toBeGreaterThan(0);

    const created = await api('POST', '/api/v1/contacts', { phone: '+4915123460001', firstName: 'Ada' });
    expect(created.status).toBe(201);
    const listed = await api('GET', '/api/v1/contacts?limit=50');
    expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(created.body.data.id);

    // OAuth metadata names the public https URL (PUBLIC_URL), not the instance's own address.
    const meta = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    expect(meta.issuer).toBe(base);
  });

  it('redirects plain HTTP to HTTPS and refuses bodies above the app limit at the proxy', async () => {
    const plain = await fetch(`http://127.0.0.1:${httpPort}/console`, { redirect: 'manual' });
    expect(plain.status).toBe(301);
    expect(plain.headers.get('location')).toBe('https://127.0.0.1/console');

    // Just above 2 MiB: nginx answers 413 itself; just below, the body reaches the app (which judges it).
    const tooBig = await api('POST', '/api/rcs/send-batch', JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }));
    expect(tooBig.status).toBe(413);
    expect(String(tooBig.body)).toContain('nginx');
    const fits = await api('POST', '/api/rcs/send-batch', JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024 - 1000) }));
    expect(fits.status).toBe(400);
    expect(fits.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('counts sandbox requests per real client: an X-Forwarded-For the client sends itself is overwritten', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const r = await fetch(`${base}/api/rcs/sandbox/validate`, {
        method: 'POST',
        // A client pretending to be 21 different addresses: with TRUST_PROXY the app would believe the first one, were it passed on.
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `198.51.100.${i + 1}` },
        body: JSON.stringify({ messageType: 'text', content: { text: 'hi' } }),
      });
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    // Spec §8: 20 per minute per client, counted in the database across both instances.
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it('runs the assistant path through nginx: MCP preview, login with TOTP and approval on the share page, then the send', async () => {
    const senders = await api('GET', '/api/rcs/senders?type=RCS');
    const sender = senders.body.sendernames.find((s: { name: string }) => s.name === 'Demo RCS Agent');
    expect(sender).toBeDefined();

    const assistant = await mcpClient(base, demo.assistantKey);
    mcp.push(assistant);
    const tools = await assistant.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('rcs_preview');
    const payload = { phoneNumber: '+4915123460002', messageType: 'text', content: { text: 'Through nginx' }, sendernameId: sender.id };
    const preview = body(await assistant.callTool({ name: 'rcs_preview', arguments: payload }));
    expect(preview.share_url).toMatch(new RegExp(`^${base}/preview/`));

    // The person logs in (password, then TOTP) and approves: each request may land on either instance.
    const web = new WebClient(base);
    const sharePath = new URL(preview.share_url).pathname;
    const login = await web.login(demo.email, demo.password, demo.totpSecret, sharePath);
    expect(login.status).toBe(303);
    expect(login.location).toBe(sharePath);
    // PUBLIC_URL is https: the session cookie is Secure.
    expect(login.headers.getSetCookie().join('\n')).toMatch(/Secure/);
    const page = await web.get(sharePath);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Through nginx');
    const approved = await web.post(`${sharePath}/approve`, { csrf: WebClient.hidden(page.text, 'csrf'), fingerprint: WebClient.hidden(page.text, 'fingerprint') });
    expect(approved.status).toBe(303);

    const sent = await assistant.callTool({ name: 'rcs_send', arguments: { preview_id: preview.preview_id, payload: preview.payload } });
    expect(sent.isError, JSON.stringify(sent)).toBeFalsy();
    const result = body(sent);
    expect(result).toMatchObject({ success: true, messageRecordId: expect.stringMatching(/^msg_/) });
    // Sent inline, or queued when the other instance's dispatcher claimed it first: either way it reaches the network.
    await waitFor(async () => (await api('GET', `/api/messages/log?messageId=${result.messageRecordId}`)).body.messages?.[0]?.status, {
      until: (st) => ['SENT', 'DELIVERED', 'READ'].includes(st as string),
      what: 'the approved message to be sent',
    });
    expect((await web.get('/console')).status).toBe(200);
  });

  it('keeps answering when either instance is killed (SIGKILL): API, login session, MCP', async () => {
    const web = new WebClient(base);
    expect((await web.login(demo.email, demo.password, demo.totpSecret, '/console', Date.now() + 30_000)).status).toBe(303);
    const assistant = await mcpClient(base, demo.assistantKey);
    mcp.push(assistant);

    await a.stop('SIGKILL');
    const before = served(b, '/api/rcs/status');
    for (let i = 0; i < 8; i++) {
      const r = await api('GET', '/api/rcs/status');
      expect(r.status, `request ${i} after the kill`).toBe(200);
    }
    await waitFor(() => served(b, '/api/rcs/status') - before >= 8, { what: 'the 8 requests logged on the survivor' });
    expect(served(b, '/api/rcs/status') - before).toBe(8);

    // A POST too: nginx could not connect to the dead instance, so nothing reached it and the other one takes it.
    for (let i = 0; i < 4; i++) expect((await api('POST', '/api/v1/contacts', { phone: `+49151234611${i}0` })).status).toBe(201);
    expect((await web.get('/console')).status).toBe(200);
    const health = body(await assistant.callTool({ name: 'rcs_health', arguments: {} }));
    expect(health).toMatchObject({ status: 'healthy', database: 'up' });
    expect(nginx.errorLog()).toMatch(/connect\(\) failed \(111: Connection refused\)/);

    // Either instance: the dead one is replaced on its port (a rolling restart), then the other one dies.
    const port = new URL(a.url).port;
    a = await startChildServer({ ...shared, DATA_DIR: dataDir(), PORT: port });
    expect(new URL(a.url).port).toBe(port);
    // nginx leaves a failed instance out for fail_timeout (10 s) before trying it again, so the replacement is
    // back in rotation only once it has served a request through nginx (docs/deployment.md, rolling upgrades).
    for (const end = Date.now() + 20_000; served(a, '/api/rcs/status') === 0; ) {
      expect(Date.now(), 'the replacement never got a request from nginx').toBeLessThan(end);
      expect((await api('GET', '/api/rcs/status')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 250));
    }
    await b.stop('SIGKILL');
    const beforeB = served(a, '/api/rcs/status');
    for (let i = 0; i < 8; i++) {
      const r = await api('GET', '/api/rcs/status');
      expect(r.status, `request ${i} after the second kill`).toBe(200);
    }
    await waitFor(() => served(a, '/api/rcs/status') - beforeB >= 8, { what: 'the 8 requests logged on the survivor' });
    expect(served(a, '/api/rcs/status') - beforeB).toBe(8);
    for (let i = 0; i < 4; i++) expect((await api('POST', '/api/v1/contacts', { phone: `+49151234612${i}0` })).status).toBe(201);
    // The login session and the MCP connection outlive both instances that served them.
    expect((await web.get('/console')).status).toBe(200);
    expect(body(await assistant.callTool({ name: 'rcs_health', arguments: {} }))).toMatchObject({ status: 'healthy', database: 'up' });
    const listed = await api('GET', '/api/v1/contacts?limit=100');
    expect(listed.status).toBe(200);
    // Every contact written through nginx during both kills is there once.
    const phones = (listed.body.data as { phone: string }[]).map((c) => c.phone).filter((p) => /^4915123461[12]\d0$/.test(p));
    expect(phones.sort()).toEqual([0, 1, 2, 3].flatMap((i) => [`4915123461${1}${i}0`, `4915123461${2}${i}0`]).sort());
  });
});
