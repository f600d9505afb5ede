import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { contactsRoutes } from '../../src/contacts/routes.js';
import type { ContactsService } from '../../src/contacts/service.js';
import { healthRoutes } from '../../src/health/routes.js';
import type { HealthService } from '../../src/health/service.js';
import { createLogger } from '../../src/platform/logger.js';
import type { Principal } from '../../src/platform/permissions.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { READ, defineTool, runTool, type ToolDef, type ToolServices } from '../../tools/types.js';

/*
 * Areas depend on narrow ports (issue #18, docs/decisions.md 2026-11-23): a route file, page or
 * tool names the services it uses and gets only those. AppContext, which reaches every service,
 * is known to the composition root and the transports alone.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CONTEXT_MODULE = path.join(ROOT, 'src/context.ts');

/** Build and start the process: they create AppContext and hand areas their services. */
const COMPOSITION_ROOT = ['src/context.ts', 'src/app.ts', 'src/main.ts', 'src/workers.ts', 'src/cli.ts', 'src/server.ts', 'src/shutdown.ts'];
/** HTTP mounts route specs. (MCP gets McpDeps — the tools' services and four ports — since issue #32.) */
const TRANSPORTS = ['src/platform/http/'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Relative module specifiers of static imports, re-exports and dynamic imports. */
function importsOf(source: string): string[] {
  return [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => m[1]!);
}

/** Why a file knows AppContext: an import of src/context.ts or the name itself. */
function appContextUses(rel: string, source: string): string[] {
  const found: string[] = [];
  for (const spec of importsOf(source)) {
    const target = path.resolve(path.dirname(path.join(ROOT, rel)), spec).replace(/\.js$/, '.ts');
    if (target === CONTEXT_MODULE) found.push(`imports ${spec}`);
  }
  if (/\bAppContext\b/.test(source)) found.push('names AppContext');
  return found;
}

const allowed = (rel: string) => COMPOSITION_ROOT.includes(rel) || TRANSPORTS.some((t) => rel.startsWith(t));

describe('narrow ports', () => {
  const files = ['src', 'tools', 'oauth', 'preview-pages'].flatMap(sourceFiles);

  it('scans the route files, pages and tools it is about', () => {
    // Guards against a scan that silently finds nothing (moved folders, a broken pattern).
    expect(files.filter((f) => /(^|\/|-)routes\.ts$/.test(f)).length).toBeGreaterThanOrEqual(20);
    expect(files.filter((f) => f.startsWith('tools/')).length).toBeGreaterThanOrEqual(12);
    expect(files).toContain('oauth/handlers/consent.ts');
    expect(files).toContain('src/console/feeds.ts');
    expect(files.filter((f) => f.startsWith('preview-pages/')).length).toBeGreaterThanOrEqual(10);
  });

  it('the detector sees an import of src/context.ts in any spelling', () => {
    expect(appContextUses('src/contacts/routes.ts', "import type { Services } from '../context.js';")).toEqual(["imports ../context.js"]);
    expect(appContextUses('tools/x.ts', "export { createContext } from '../src/context.js';")).toEqual(["imports ../src/context.js"]);
    expect(appContextUses('src/a/b/c.ts', "const m = await import('../../context.js');")).toEqual(["imports ../../context.js"]);
    expect(appContextUses('src/a/routes.ts', 'function f(ctx: AppContext) {}')).toEqual(['names AppContext']);
    expect(appContextUses('src/a/routes.ts', "import { x } from './context.js';")).toEqual([]);
  });

  it('only the composition root and the transports know AppContext', () => {
    const offenders = files
      .filter((f) => !allowed(f))
      .map((f) => ({ file: f, uses: appContextUses(f, fs.readFileSync(path.join(ROOT, f), 'utf8')) }))
      .filter((o) => o.uses.length > 0);
    expect(offenders).toEqual([]);
  });

  it('every route, page and console function takes a dependency object, not the context', () => {
    // What the contacts and health routes need, as a newcomer would look it up.
    expectTypeOf(contactsRoutes).parameter(0).toEqualTypeOf<{ contacts: ContactsService }>();
    expectTypeOf(healthRoutes).parameter(0).toEqualTypeOf<{ health: HealthService }>();
    expect(contactsRoutes({ contacts: {} as ContactsService }).length).toBeGreaterThan(0);
  });
});

describe('tools declare the services they use', () => {
  const principal = { accountId: 'acc_test', permissions: new Set() } as unknown as Principal;

  it('runTool hands run the principal and exactly the declared services', async () => {
    const seen: string[] = [];
    const services = new Proxy({} as ToolServices, {
      get: (_t, name) => {
        seen.push(String(name));
        return { sentinel: String(name) };
      },
    });
    const tool = defineTool({
      name: 'ports_probe',
      title: 'Probe',
      description: 'Reports what it was given.',
      toolset: 'contacts',
      permissions: [],
      input: z.object({ n: z.number() }),
      output: z.object({ keys: z.array(z.string()), n: z.number() }),
      annotations: READ,
      uses: ['contacts', 'groups'],
      run: async (ctx, input) => ({ keys: Object.keys(ctx).sort(), n: input.n }),
    });
    const result = await runTool(tool, services, principal, { n: 3 });
    expect(result).toEqual({ keys: ['contacts', 'groups', 'principal'], n: 3 });
    expect(seen.sort()).toEqual(['contacts', 'groups']);
  });

  it('a tool without services gets the principal only', async () => {
    const services = new Proxy({} as ToolServices, {
      get: (_t, name) => {
        throw new Error(`read ${String(name)}`);
      },
    });
    const tool = defineTool({
      name: 'ports_none',
      title: 'None',
      description: 'Uses nothing.',
      toolset: 'guides',
      permissions: [],
      input: z.object({}),
      output: z.object({ keys: z.array(z.string()) }),
      annotations: READ,
      uses: [],
      run: async (ctx) => ({ keys: Object.keys(ctx) }),
    });
    expect(await runTool(tool as unknown as ToolDef, services, principal, {})).toEqual({ keys: ['principal'] });
  });

  it('the type of run has no service it did not declare', () => {
    defineTool({
      name: 'ports_typed',
      title: 'Typed',
      description: 'Reaches for an undeclared service; `npm run typecheck` fails if that compiles.',
      toolset: 'contacts',
      permissions: [],
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      annotations: READ,
      uses: ['contacts'],
      run: async (ctx) => {
        // @ts-expect-error groups is not in uses
        void ctx.groups;
        return { ok: typeof ctx.contacts === 'object' };
      },
    });
  });

  it('every tool declares its services, each one built by the composition root', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-ports-'));
    const ctx = await createContext(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { logger: createLogger('silent') });
    try {
      const services: Record<string, unknown> = { ...ctx.services };
      for (const tool of ALL_TOOLS) {
        expect(Array.isArray(tool.uses), tool.name).toBe(true);
        expect(new Set(tool.uses).size, `${tool.name} names a service twice`).toBe(tool.uses.length);
        for (const name of tool.uses) expect(services[name], `${tool.name} uses ${name}`).toBeTypeOf('object');
      }
      // Most tools are adapters over one service; the registry as a whole uses several.
      expect(new Set(ALL_TOOLS.flatMap((t) => t.uses)).size).toBeGreaterThanOrEqual(10);
      expect(ALL_TOOLS.find((t) => t.name === 'list_contacts')?.uses).toEqual(['contacts']);
      expect(ALL_TOOLS.find((t) => t.name === 'rcs_health')?.uses).toEqual(['health']);
    } finally {
      await ctx.database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
