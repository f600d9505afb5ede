/**
 * What caching API key principals and sender lists saves on PostgreSQL (issue #19, docs/decisions.md
 * "State shared by instances"). The shipped server caches them until its change feed hears that
 * api_keys, accounts.active or senders changed (migration 020's triggers, LISTEN/NOTIFY, each stamp after a
 * round trip on the feed's connection shared by the requests arriving together); the
 * alternative is no cache at all, every request reading its key and list_sendernames reading the
 * senders. Both on the same PostgreSQL in the same run, with MCP tools/call list_sendernames (the
 * call assistants make first and most); SQLite's change-stamp cache for reference. No bar: the
 * figures are the reason for the change feed. Skipped when PostgreSQL does not answer.
 *
 *   npx tsx bench/principal-cache.ts        (POSTGRES_ADMIN_URL, default the local cluster)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ApiKeysService } from '../src/accounts/api-keys.js';
import { loadConfig } from '../src/config.js';
import { createContext, type AppContext } from '../src/context.js';
import { createLogger } from '../src/platform/logger.js';
import { PROJECT_ROOT } from '../src/platform/paths.js';
import { ALL_PERMISSIONS } from '../src/platform/permissions.js';
import { startHttp } from '../src/server.js';
import { SendersService } from '../src/senders/service.js';

const ADMIN_URL = process.env.POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DURATION_MS = Number(process.env.BENCH_MS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 16;

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
}

async function load(name: string, url: string, headers: Record<string, string>, payload: string): Promise<Figures> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'bench/load.ts'), url, String(DURATION_MS), String(CONCURRENCY), JSON.stringify(headers), payload], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`${name}: load generator exited ${code}`))));
  });
  const r = JSON.parse(out) as Omit<Figures, 'name'> & { failures: number };
  if (r.failures > 0) throw new Error(`${name}: ${r.failures} failed requests`);
  return { name, rps: r.rps, p50: r.p50, p99: r.p99 };
}

async function admin(statement: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}

/** A server with its account, key and two senders; `noCache` swaps in the services without a change stamp. */
async function server(env: Record<string, string>, noCache: boolean) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-cache-'));
  const build = async (c: ReturnType<typeof loadConfig>): Promise<AppContext> => {
    const ctx = await createContext(c, { logger: createLogger('silent') });
    if (noCache) {
      ctx.services.apiKeys = new ApiKeysService({ db: ctx.db, clock: ctx.clock });
      ctx.services.senders = new SendersService({ db: ctx.db, clock: ctx.clock });
    }
    return ctx;
  };
  const { ctx, server: http } = await startHttp(loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', ...env }), build, 0, '127.0.0.1');
  const account = await ctx.services.accounts.create({ name: 'Bench', credits: 10 });
  await ctx.services.senders.create(account.id, { name: 'Bench RCS', type: 'RCS', status: 'APPROVED' });
  await ctx.services.senders.create(account.id, { name: 'BENCH', type: 'SMS', status: 'APPROVED' });
  const { key } = await ctx.services.apiKeys.create(account.id, 'bench', ALL_PERMISSIONS);
  return {
    url: http.url,
    key,
    async close() {
      await http.close();
      await ctx.database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  try {
    await admin('select 1');
  } catch (err) {
    console.log(`PostgreSQL not reachable at ${ADMIN_URL}: ${String(err)} — skipped`);
    return;
  }
  const dbName = `bench_cache_${process.pid}_${Date.now().toString(36)}`;
  await admin(`create database "${dbName}"`);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${dbName}`;
  const pgEnv = { DATABASE_URL: u.toString(), DATABASE_POOL_MAX: '10', SEALING_KEY: randomBytes(32).toString('hex') };
  const servers = {
    shipped: await server(pgEnv, false),
    uncached: await server(pgEnv, true),
    sqlite: await server({}, false),
  };
  try {
    const mcp = (s: { url: string; key: string }, name: string) => () =>
      load(name, `${s.url}/mcp`, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': s.key }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_sendernames', arguments: {} } }));
    const cases = [
      mcp(servers.shipped, 'PostgreSQL, cache + change feed (shipped): MCP list_sendernames'),
      mcp(servers.uncached, 'PostgreSQL, no cache: MCP list_sendernames'),
      mcp(servers.sqlite, 'SQLite, change-stamp cache: MCP list_sendernames'),
    ];
    const runs: Figures[][] = cases.map(() => []);
    for (let r = 0; r < ROUNDS; r++) for (let i = 0; i < cases.length; i++) runs[i]!.push(await cases[i]!());
    const medians = runs.map((list) => [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)]!);
    for (const f of medians) console.log(`  ${f.name.padEnd(70)} ${f.rps.toFixed(0).padStart(6)} req/s  p50 ${f.p50.toFixed(2)} ms  p99 ${f.p99.toFixed(2)} ms`);
    const [shipped, uncached] = medians as [Figures, Figures];
    console.log(`  without the cache: ${(100 * (1 - uncached.rps / shipped.rps)).toFixed(1)}% less throughput, +${(uncached.p50 - shipped.p50).toFixed(2)} ms at p50`);
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.close()));
    await admin(`drop database if exists "${dbName}" with (force)`);
  }
}

await main();
