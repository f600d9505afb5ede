import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorHandler, notFoundHandler } from '../../src/platform/http/errors.js';
import { defineRoute, mountRoutes, RouteRegistry } from '../../src/platform/http/route.js';
import { createLogger } from '../../src/platform/logger.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { onPostgres } from '../helpers/database.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('authentication', () => {
  it('answers 401 in the error shape without credentials', async () => {
    const r = await t.api('GET', '/api/rcs/status', undefined, { key: null });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: expect.stringContaining('X-API-Key') } });
  });

  it('accepts the key as X-API-Key and as a Bearer token', async () => {
    expect((await t.api('GET', '/api/rcs/status')).status).toBe(200);
    const r = await t.api('GET', '/api/rcs/status', undefined, { key: null, headers: { Authorization: `Bearer ${t.account.apiKey}` } });
    expect(r.status).toBe(200);
  });

  it('answers 401 for an unknown key and for a revoked key', async () => {
    expect((await t.api('GET', '/api/rcs/status', undefined, { key: 'rcsk_nope' })).status).toBe(401);
    expect((await t.api('GET', '/api/rcs/status', undefined, { key: 'not-even-our-format' })).status).toBe(401);
    const key = await t.createKey(t.account.accountId, ['contacts:read']);
    expect((await t.api('GET', '/api/rcs/status', undefined, { key })).status).toBe(200);
    const [info] = (await t.ctx.services.apiKeys.list(t.account.accountId)).filter((k) => k.name.startsWith('test key') && k.revokedAt === null && k.permissions.length === 1);
    await t.ctx.services.apiKeys.revoke(t.account.accountId, info!.id);
    const r = await t.api('GET', '/api/rcs/status', undefined, { key });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('UNAUTHORIZED');
  });

  it('stores only a hash of the key', async () => {
    const rows = await t.ctx.db.selectFrom('api_keys').selectAll().execute();
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(t.account.apiKey);
    }
  });

  it('answers 403 naming the missing permission', async () => {
    // A route guarded by a permission, mounted through the same machinery every area uses.
    const app = express();
    app.use(express.json());
    const registry = new RouteRegistry();
    app.use(
      '/x',
      mountRoutes(registry, t.ctx.credentialResolvers, '/x', [
        defineRoute({ method: 'post', path: '/cancel', summary: 's', tags: [], auth: 'messages:write', body: z.object({ n: z.number() }), responses: {}, handler: ({ body }) => ({ ok: body.n }) }),
      ]),
    );
    app.use(notFoundHandler);
    app.use(errorHandler(createLogger('silent')));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/x/cancel`;
    try {
      const readOnly = await t.createKey(t.account.accountId, ['contacts:read']);
      let res = await fetch(url, { method: 'POST', headers: { 'X-API-Key': readOnly, 'Content-Type': 'application/json' }, body: '{"n":1}' });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ success: false, error: { code: 'FORBIDDEN', message: expect.stringContaining('messages:write'), requiredPermission: 'messages:write' } });
      res = await fetch(url, { method: 'POST', headers: { 'X-API-Key': t.account.apiKey, 'Content-Type': 'application/json' }, body: '{"n":"1"}' });
      expect(res.status).toBe(400);
      expect((await res.json()).error.details[0]).toMatchObject({ path: 'n', code: 'invalid_type' });
      res = await fetch(url, { method: 'POST', headers: { 'X-API-Key': t.account.apiKey, 'Content-Type': 'application/json' }, body: '{"n":1}' });
      expect(await res.json()).toEqual({ ok: 1 });
      expect(registry.routes.map((r) => `${r.method} ${r.path}`)).toEqual(['post /x/cancel']);
    } finally {
      server.close();
    }
  });
});

describe('error shapes', () => {
  it('answers broken JSON with 400 INVALID_JSON', async () => {
    const r = await t.api('POST', '/api/rcs/status', undefined, { rawBody: '{"a": ' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: { code: 'INVALID_JSON', message: expect.any(String) } });
  });

  it('answers oversize bodies with 413 PAYLOAD_TOO_LARGE', async () => {
    const r = await t.api('POST', '/api/rcs/status', undefined, { rawBody: JSON.stringify({ x: 'a'.repeat(3 * 1024 * 1024) }) });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers unknown routes with 404 in the error shape', async () => {
    const r = await t.api('GET', '/api/rcs/does-not-exist');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, error: { code: 'ROUTE_NOT_FOUND', message: 'No route for GET /api/rcs/does-not-exist' } });
  });

  it('never leaks a stack trace', async () => {
    const r = await t.api('GET', '/api/rcs/does-not-exist');
    expect(JSON.stringify(r.body)).not.toMatch(/at .*\.ts:\d+/);
  });

  it('sends a request id and security headers', async () => {
    const r = await t.api('GET', '/api/rcs/health');
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9A-Z]{26}$/);
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('health and status', () => {
  it('reports healthy with a timestamp', async () => {
    const r = await t.api('GET', '/api/rcs/health', undefined, { key: null });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'healthy', timestamp: expect.stringMatching(/Z$/) });
  });

  it('status carries validationLimits and a timestamp', async () => {
    const r = await t.api('GET', '/api/rcs/status');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'healthy', validationLimits: expect.any(Object), timestamp: expect.any(String) });
  });

  it('status reports the database: which one, up, and the round trip of select 1', async () => {
    const r = await t.api('GET', '/api/rcs/status');
    expect(r.body.database).toEqual({ dialect: onPostgres ? 'postgres' : 'sqlite', status: 'up', latencyMs: expect.any(Number) });
    expect(r.body.database.latencyMs).toBeGreaterThanOrEqual(0);
    expect(r.body.database.latencyMs).toBeLessThan(5000);
  });

  it('lists mounted routes in the OpenAPI document', async () => {
    const r = await t.api('GET', '/openapi.json', undefined, { key: null });
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(['/api/rcs/health', '/api/rcs/status']));
  });
});

describe('health when the database is gone', () => {
  it('answers 503 down', async () => {
    const s = await startTestServer();
    try {
      // Closed under the running server: SQLite's handle, PostgreSQL's pool.
      await s.ctx.database.close();
      const r = await s.api('GET', '/api/rcs/health', undefined, { key: null });
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ status: 'down', timestamp: expect.any(String) });
    } finally {
      await s.server.close();
    }
  });
});
