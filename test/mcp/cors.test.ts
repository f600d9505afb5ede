import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * CORS on /mcp for browser MCP clients (issue #30): a preflight from an allowed origin is answered
 * without a credential; answers carry Access-Control-Allow-Origin and expose WWW-Authenticate;
 * origins outside loopback, the public URL and MCP_ALLOWED_ORIGINS get nothing.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ env: { MCP_ALLOWED_ORIGINS: 'https://app.example.com, https://inspector.example.org:8443' } });
});
afterAll(async () => {
  await t?.close();
});

const preflight = (origin: string) =>
  fetch(`${t.url}/mcp`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type, mcp-protocol-version' } });

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1' } } };

describe('CORS on /mcp', () => {
  it('a preflight from the Inspector’s web UI (a loopback origin) is answered 204 without a key', async () => {
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1:6274', 'https://app.example.com', 'https://inspector.example.org:8443']) {
      const r = await preflight(origin);
      expect(r.status, origin).toBe(204);
      expect(r.headers.get('access-control-allow-origin')).toBe(origin);
      expect(r.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
      const allowed = (r.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      for (const h of ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'x-api-key']) expect(allowed).toContain(h);
      expect(r.headers.get('vary')).toContain('Origin');
      expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('another origin gets no CORS headers: 403 on preflight and on POST', async () => {
    for (const origin of ['https://evil.example', 'null', 'https://app.example.com.evil.example', 'http://app.example.com']) {
      const r = await preflight(origin);
      expect(r.status, origin).toBe(403);
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
      const post = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { Origin: origin, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': t.account.apiKey }, body: JSON.stringify(initialize) });
      expect(post.status, origin).toBe(403);
      expect(post.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('a 401 without a credential carries the origin and exposes WWW-Authenticate; a call with a key works', async () => {
    const origin = 'http://localhost:6274';
    const anon = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { Origin: origin, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify(initialize) });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('access-control-allow-origin')).toBe(origin);
    expect(anon.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    expect(anon.headers.get('www-authenticate')).toContain('resource_metadata=');
    const ok = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { Origin: origin, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': t.account.apiKey }, body: JSON.stringify(initialize) });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(origin);
    expect(ok.headers.get('mcp-session-id')).toBeNull();
  });

  it('the OAuth endpoints a browser client needs answer preflights too', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource/mcp', '/token', '/register']) {
      const r = await fetch(`${t.url}${path}`, { method: 'OPTIONS', headers: { Origin: 'http://localhost:6274', 'Access-Control-Request-Method': 'POST' } });
      expect(r.status, path).toBe(204);
      expect(r.headers.get('access-control-allow-origin'), path).toBe('*');
    }
  });

  it('MCP_ALLOWED_ORIGINS takes origins only', () => {
    expect(loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example, http://localhost:3001' }).mcpAllowedOrigins).toEqual(['https://a.example', 'http://localhost:3001']);
    for (const bad of ['https://a.example/path', 'ftp://a.example', 'a.example', '*']) expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: bad }), bad).toThrow(/MCP_ALLOWED_ORIGINS|origin/);
  });
});
