import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createLogger } from '../../src/platform/logger.js';
import { bindPort, serve, startHttp, type RunningServer } from '../../src/server.js';

const dirs: string[] = [];
const configIn = (env: Record<string, string> = {}): Config => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bind-'));
  dirs.push(dir);
  return loadConfig({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'silent', ...env });
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('configuration is complete before the app is built', () => {
  it('binds first: the context is built from a config with the bound port and the public URL, and nothing changes it later', async () => {
    const config = configIn();
    const seen: Config[] = [];
    const { ctx, server } = await startHttp(
      config,
      (c) => {
        seen.push(structuredClone(c));
        return createContext(c, { logger: createLogger('silent') });
      },
      0,
      '127.0.0.1',
    );
    try {
      expect(server.port).toBeGreaterThan(0);
      expect(seen[0]!.port).toBe(server.port);
      expect(seen[0]!.publicUrl).toBe(`http://127.0.0.1:${server.port}`);
      // What the services were built with is what they still hold: no mutation after the build.
      expect(ctx.config.publicUrl).toBe(seen[0]!.publicUrl);
      // The caller's config is not changed either.
      expect(config.port).toBe(0);
      expect(config.publicUrl).toBe('http://127.0.0.1:0');
      // Links the app hands out follow the bound port (the MCP challenge names the resource metadata URL).
      const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(`${server.url}/.well-known/oauth-protected-resource/mcp`);
    } finally {
      await server.close();
      await ctx.database.close();
    }
  });

  it('an explicit PUBLIC_URL is kept', async () => {
    const bound = await bindPort(configIn({ PUBLIC_URL: 'https://rcs.example.com/' }), 0, '127.0.0.1');
    try {
      expect(bound.config.publicUrl).toBe('https://rcs.example.com');
      expect(bound.config.port).toBe(bound.port);
    } finally {
      await new Promise<void>((r) => bound.server.close(() => r()));
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE while the context is being built, then the app', async () => {
    const bound = await bindPort(configIn(), 0, '127.0.0.1');
    let ctx: AppContext | undefined;
    let server: RunningServer | undefined;
    try {
      const early = await fetch(`${bound.url}/api/rcs/health`);
      expect(early.status).toBe(503);
      expect(early.headers.get('retry-after')).toBe('1');
      expect(await early.json()).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
      ctx = await createContext(bound.config, { logger: createLogger('silent') });
      server = serve(bound, ctx);
      expect((await fetch(`${server.url}/api/rcs/health`)).status).toBe(200);
    } finally {
      if (server) await server.close();
      else await new Promise<void>((r) => bound.server.close(() => r()));
      await ctx?.database.close();
    }
  });

  it('frees the port when building the context fails', async () => {
    const config = configIn();
    let port = 0;
    await expect(
      startHttp(
        config,
        async (c) => {
          port = c.port;
          throw new Error('boom');
        },
        0,
        '127.0.0.1',
      ),
    ).rejects.toThrow('boom');
    expect(port).toBeGreaterThan(0);
    const again = await bindPort(config, port, '127.0.0.1');
    expect(again.port).toBe(port);
    await new Promise<void>((r) => again.server.close(() => r()));
  });
});
