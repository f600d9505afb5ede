/**
 * What an idle instance costs (issue #19: instances that wait are the common case on a shared
 * database, and each one's polling takes CPU from the one that works): the real entry point with
 * the demo account and nothing to do, its CPU over 10 s (user + system, from /proc) and, on
 * PostgreSQL, the CPU of its database backends. The simulated network without delays is the
 * worst case (receipts would be due at once). Reference: a bare `node -e` http server measured
 * the same way. Every sample is a process of its own; the three kinds alternate in BENCH_ROUNDS
 * rounds (default 3, the order reversed every other round). Bar, on the medians: ≤ 5 % of one
 * core, the instance and its backends together.
 *
 *   npx tsx bench/idle.ts      (the PostgreSQL part is skipped when no server answers at
 *                               POSTGRES_ADMIN_URL, unless REQUIRE_POSTGRES=1)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startChildServer } from '../test/helpers/child-server.js';
import { backendCpu, cpuSince, processCpu } from './pg-trace.js';
import { median } from './lib/stats.js';

const ADMIN_URL = process.env.POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SETTLE_MS = 3000;
const WINDOW_MS = 10_000;
export const IDLE_SHARE_BAR = 0.05;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function bareNode(): Promise<number> {
  const proc = spawn(process.execPath, ['-e', "require('http').createServer().listen(0, () => console.log('listening'))"], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => proc.stdout.once('data', () => resolve()));
  await sleep(SETTLE_MS);
  const from = processCpu(proc.pid!);
  await sleep(WINDOW_MS);
  const used = processCpu(proc.pid!) - from;
  proc.kill('SIGTERM');
  return used;
}

async function idleInstance(env: Record<string, string>, database: { reader: pg.Client; name: string } | null): Promise<{ node: number; backends: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-idle-'));
  const server = await startChildServer({ ...env, DATA_DIR: dataDir, SEED_DEMO: 'true', SIM_DELIVERY_DELAY_MS: '0', SIM_READ_DELAY_MS: '0' }, 60_000);
  try {
    await sleep(SETTLE_MS);
    const readerPid = new Set(database ? [(database.reader as unknown as { processID: number }).processID] : []);
    const from = { node: processCpu(server.proc.pid!), backends: database ? await backendCpu(database.reader, database.name) : null };
    await sleep(WINDOW_MS);
    const node = processCpu(server.proc.pid!) - from.node;
    const backends = database && from.backends ? cpuSince(from.backends, await backendCpu(database.reader, database.name), readerPid) : 0;
    return { node, backends };
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function withPostgres<T>(fn: (url: string, reader: pg.Client, name: string) => Promise<T>): Promise<T | null> {
  const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (err) {
    if (process.env.REQUIRE_POSTGRES === '1') throw err;
    return null;
  }
  const name = `bench_idle_${process.pid}`;
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  const reader = new pg.Client({ connectionString: u.toString() });
  try {
    await admin.query(`create database ${name}`);
    await reader.connect();
    return await fn(u.toString(), reader, name);
  } finally {
    await reader.end().catch(() => undefined);
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await admin.end();
  }
}

export async function run(): Promise<{ pass: boolean }> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const seconds = WINDOW_MS / 1000;
  const share = (s: number) => `${((s / seconds) * 100).toFixed(1).padStart(5)} %`;
  const spread = (xs: number[]) => `${share(median(xs))} (${share(Math.min(...xs)).trim()}–${share(Math.max(...xs)).trim()})`;
  const before = os.loadavg();
  const baseline: number[] = [];
  const sqlite: number[] = [];
  const postgres: Array<{ node: number; backends: number }> = [];
  let pgSkipped = false;
  // Rounds, the order reversed every other round, so drift on a shared machine hits every kind alike.
  for (let r = 0; r < rounds; r++) {
    const kinds = ['baseline', 'sqlite', 'postgres'] as const;
    for (const kind of r % 2 === 0 ? kinds : [...kinds].reverse()) {
      if (kind === 'baseline') baseline.push(await bareNode());
      else if (kind === 'sqlite') sqlite.push((await idleInstance({}, null)).node);
      else if (!pgSkipped) {
        const pgFigures = await withPostgres((url, reader, name) => idleInstance({ DATABASE_URL: url }, { reader, name }));
        if (pgFigures) postgres.push(pgFigures);
        else pgSkipped = true;
      }
    }
  }
  const pgTotals = postgres.map((p) => p.node + p.backends);
  const sqliteOk = median(sqlite) / seconds <= IDLE_SHARE_BAR;
  const pgOk = pgSkipped || median(pgTotals) / seconds <= IDLE_SHARE_BAR;
  const pass = sqliteOk && pgOk;
  console.log(`idle instance (demo account, simulated network without delays), CPU over ${seconds} s as a share of one core`);
  console.log(`  node ${process.version}, ${os.cpus().length} cores, ${rounds} rounds alternating, each in a process of its own; medians (min–max); load average before ${before.map((l) => l.toFixed(2)).join(' ')}, after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`  reference: bare node http server    ${spread(baseline)}`);
  console.log(`  SQLite                              ${spread(sqlite)}   bar ≤ ${IDLE_SHARE_BAR * 100} % → ${sqliteOk ? 'PASS' : 'FAIL'}`);
  if (!pgSkipped) {
    console.log(`  PostgreSQL: instance ${spread(postgres.map((p) => p.node))}, its backends ${spread(postgres.map((p) => p.backends))}, together ${spread(pgTotals)}   bar ≤ ${IDLE_SHARE_BAR * 100} % → ${pgOk ? 'PASS' : 'FAIL'}`);
  } else console.log(`  PostgreSQL: skipped (no server at ${ADMIN_URL})`);
  console.log(`  result: ${pass ? 'PASS' : 'FAIL'}`);
  return { pass };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  if (!r.pass) process.exitCode = 1;
}
