/**
 * Webhook delivery beside bad endpoints (DESIGN §8: a healthy endpoint's events p99 ≤ 2 s beside
 * one hanging, one failing and one slow endpoint). In-process server (createContext +
 * startWorkers, temporary data directory, production webhook settings: 10 s timeout, 16 posts in
 * flight, 10 s retry base), four local HTTP receivers on 127.0.0.1, each the endpoint of a
 * different account:
 *   healthy  answers 200 at once          hanging  never answers
 *   failing  answers 500 at once          slow     answers 200 after 3 s
 * Measured: the arrival latency of the healthy endpoint's 900 events (arrival at the receiver −
 * the event's createdAt), raised as 30 bursts of 30 every 50 ms, each burst together with events
 * for the bad endpoints (which also get 100 each up front, so they are the oldest in the queue).
 * Baseline: the same 900 healthy events with no bad endpoints. Each side runs in a process of its
 * own (this script with `--case baseline|beside`: fresh server, data directory and receivers, an
 * unmeasured warm-up of 90 events), the two alternating in BENCH_ROUNDS pairs (default 3); medians
 * and spread are printed, and the script exits 1 when the median p99 beside the bad endpoints
 * misses the bar. (Before issue #31 both ran one after the other in one process, the baseline
 * first: it paid for the JIT and the first connections and came out slower than the case.)
 *
 * Run: npx tsx bench/webhooks.ts   (or npm run bench)
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext, type AppContext } from '../src/context.js';
import { startWorkers, stopWorkers } from '../src/workers.js';
import { median } from './lib/stats.js';

export const HEALTHY_P99_BAR_MS = 2000;
const HEALTHY_EVENTS = 900;
const BURSTS = 30;
const BURST_GAP_MS = 50;
const BAD_UP_FRONT = 100;
const BAD_PER_BURST = 5;
const SLOW_ANSWER_MS = 3000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

export interface Latency {
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** From the first event raised to the last one received. */
  totalMs: number;
  /** CPU time of the whole process (server, receivers, event raising) per healthy event: a figure the machine's load hardly moves. */
  cpuMsPerEvent: number;
}

export interface CaseFigures {
  latency: Latency;
  badEndpoints?: { hangingRequests: number; failingRequests: number; slowRequests: number; failingWarnings: number; circuits: Record<string, string> };
}

export interface WebhooksBenchFigures {
  /** One entry per round, each measured in a process of its own, the two kinds alternating. */
  withBadEndpoints: CaseFigures[];
  baseline: CaseFigures[];
  medianP99: { withBadEndpoints: number; baseline: number };
  loadAverage: { before: number[]; after: number[] };
  bar: number;
  pass: boolean;
}

interface Rx {
  url: string;
  requests: number;
  /** event id → arrival time (epoch ms) */
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

type Behaviour = 'healthy' | 'hanging' | 'failing' | 'slow';

async function receiver(kind: Behaviour): Promise<Rx> {
  const arrivals = new Map<string, number>();
  const rx: Rx = { url: '', requests: 0, arrivals, close: async () => undefined };
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      rx.requests++;
      if (kind === 'hanging') return;
      if (kind === 'failing') return void res.writeHead(500).end('down');
      if (kind === 'slow') {
        const t = setTimeout(() => {
          timers.delete(t);
          res.writeHead(200).end('ok');
        }, SLOW_ANSWER_MS);
        timers.add(t);
        return;
      }
      const id = req.headers['x-rcs-event-id'];
      if (typeof id === 'string' && !arrivals.has(id)) arrivals.set(id, Date.now());
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rx.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rx.close = () =>
    new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return rx;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function endpointFor(ctx: AppContext, name: string, url: string): Promise<{ accountId: string; endpointId: string }> {
  const account = await ctx.services.accounts.create({ name, timezone: 'Europe/Berlin', credits: 100 });
  const hook = await ctx.services.webhooks.create(account.id, { url, events: ['sms_message_received'] });
  return { accountId: account.id, endpointId: hook.id };
}

/** Events for several endpoints in one transaction; returns event id → createdAt of the `measured` endpoint's. */
async function raise(ctx: AppContext, batches: Array<{ target: { accountId: string; endpointId: string }; n: number }>, measured: string | null, createdAt: Map<string, number>): Promise<void> {
  await ctx.db.transaction().execute(async (tx) => {
    for (const { target, n } of batches) {
      for (let i = 0; i < n; i++) {
        const at = Date.now();
        const id = await ctx.services.webhooks.emit(tx, target.accountId, 'sms_message_received', { message: { text: `bench ${i}` } }, { kind: 'endpoint', endpointId: target.endpointId });
        if (id && target.endpointId === measured) createdAt.set(id, at);
      }
    }
  });
}

function latency(createdAt: Map<string, number>, arrivals: Map<string, number>, cpu: NodeJS.CpuUsage): Latency {
  const lat = [...createdAt].map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b);
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))] ?? 0;
  const first = Math.min(...createdAt.values());
  const last = Math.max(...arrivals.values());
  const cpuMsPerEvent = Math.round(((cpu.user + cpu.system) / 1000 / lat.length) * 100) / 100;
  return { events: lat.length, p50Ms: pct(50), p99Ms: pct(99), maxMs: lat[lat.length - 1] ?? 0, totalMs: last - first, cpuMsPerEvent };
}

async function scenario(ctx: AppContext, label: string, bad: Array<{ accountId: string; endpointId: string }>, events = HEALTHY_EVENTS): Promise<Latency> {
  const healthyRx = await receiver('healthy');
  try {
    const healthy = await endpointFor(ctx, `Healthy ${label}`, `${healthyRx.url}/events`);
    const createdAt = new Map<string, number>();
    const cpu = process.cpuUsage();
    if (bad.length) await raise(ctx, bad.map((target) => ({ target, n: BAD_UP_FRONT })), null, createdAt);
    for (let b = 0; b < BURSTS; b++) {
      await raise(ctx, [{ target: healthy, n: events / BURSTS }, ...bad.map((target) => ({ target, n: BAD_PER_BURST }))], healthy.endpointId, createdAt);
      await sleep(BURST_GAP_MS);
    }
    const deadline = Date.now() + 300_000;
    while (healthyRx.arrivals.size < events && Date.now() < deadline) await sleep(20);
    if (healthyRx.arrivals.size < events) throw new Error(`${label}: only ${healthyRx.arrivals.size} of ${events} events arrived`);
    return latency(createdAt, healthyRx.arrivals, process.cpuUsage(cpu));
  } finally {
    await healthyRx.close();
  }
}

type CaseKind = 'baseline' | 'beside';

/**
 * One side of the comparison in this process: a fresh server and data directory, an unmeasured
 * warm-up of 90 events (JIT, first connections), then the measured 900 — alone (baseline) or beside
 * the hanging, failing and slow endpoints. Each side gets the same warm-up and runs in a process of
 * its own, so neither inherits the other's JIT, heap or connections.
 */
export async function measureCase(kind: CaseKind): Promise<CaseFigures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-webhooks-'));
  let failingWarnings = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l.includes('endpoint is failing')) failingWarnings++;
      done();
    },
  });
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', SEED_DEMO: 'false', SIM_DELIVERY_DELAY_MS: '0', SIM_READ_DELAY_MS: '0', DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  const ctx = await createContext(config, { logger: pino({ level: 'warn' }, sink) });
  await startWorkers(ctx);
  const hanging = await receiver('hanging');
  const failing = await receiver('failing');
  const slow = await receiver('slow');
  try {
    await scenario(ctx, 'warm-up', [], 90); // not measured
    if (kind === 'baseline') return { latency: await scenario(ctx, 'baseline', []) };
    const bad = [await endpointFor(ctx, 'Hanging Co', `${hanging.url}/x`), await endpointFor(ctx, 'Failing Co', `${failing.url}/x`), await endpointFor(ctx, 'Slow Co', `${slow.url}/x`)];
    const latency = await scenario(ctx, 'beside bad endpoints', bad);
    const circuits: Record<string, string> = {};
    for (const [name, b] of [['hanging', bad[0]!], ['failing', bad[1]!], ['slow', bad[2]!]] as const) {
      const e = await ctx.db.selectFrom('webhook_endpoints').select(['circuit_state', 'consecutive_failures']).where('id', '=', b.endpointId).executeTakeFirstOrThrow();
      circuits[name] = `${e.circuit_state} (${e.consecutive_failures} failures in a row)`;
    }
    return { latency, badEndpoints: { hangingRequests: hanging.requests, failingRequests: failing.requests, slowRequests: slow.requests, failingWarnings, circuits } };
  } finally {
    // Closing the receivers first ends the posts in flight at once instead of at their timeout.
    await Promise.all([hanging.close(), failing.close(), slow.close()]);
    await stopWorkers(ctx);
    await ctx.database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs one side in a child process (this script with --case) and returns its figures. */
function caseInChild(kind: CaseKind): Promise<CaseFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--case', kind], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as CaseFigures) : reject(new Error(`webhooks --case ${kind} exited ${code}`))));
  });
}

export async function run(): Promise<WebhooksBenchFigures> {
  const before = os.loadavg();
  const baseline: CaseFigures[] = [];
  const withBadEndpoints: CaseFigures[] = [];
  // Pairs, alternating which side goes first, so drift on a shared machine hits both alike.
  for (let r = 0; r < ROUNDS; r++) {
    const order: CaseKind[] = r % 2 === 0 ? ['baseline', 'beside'] : ['beside', 'baseline'];
    for (const kind of order) (kind === 'baseline' ? baseline : withBadEndpoints).push(await caseInChild(kind));
  }
  const medianP99 = { withBadEndpoints: median(withBadEndpoints.map((c) => c.latency.p99Ms)), baseline: median(baseline.map((c) => c.latency.p99Ms)) };
  const round2 = (xs: number[]) => xs.map((x) => Math.round(x * 100) / 100);
  return { withBadEndpoints, baseline, medianP99, loadAverage: { before: round2(before), after: round2(os.loadavg()) }, bar: HEALTHY_P99_BAR_MS, pass: medianP99.withBadEndpoints <= HEALTHY_P99_BAR_MS };
}

const argCase = process.argv.indexOf('--case');
if (argCase !== -1) {
  const kind = process.argv[argCase + 1];
  if (kind !== 'baseline' && kind !== 'beside') throw new Error('--case baseline|beside');
  process.stdout.write(`${JSON.stringify(await measureCase(kind))}\n`);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const f = await run();
  const spread = (xs: number[]) => `${median(xs)} (${Math.min(...xs)}–${Math.max(...xs)})`;
  const row = (name: string, cs: CaseFigures[]) => {
    const l = cs.map((c) => c.latency);
    return `  ${name.padEnd(34)} p50 ${spread(l.map((x) => x.p50Ms))} ms   p99 ${spread(l.map((x) => x.p99Ms))} ms   max ${spread(l.map((x) => x.maxMs))} ms   CPU ${spread(l.map((x) => x.cpuMsPerEvent))} ms/event`;
  };
  console.log(`webhooks: ${HEALTHY_EVENTS} events for a healthy endpoint (30 bursts of 30, 50 ms apart); ${ROUNDS} alternating pairs, each side in its own process; medians (min–max)`);
  console.log(`  load average before ${f.loadAverage.before.join(' ')}, after ${f.loadAverage.after.join(' ')}`);
  console.log(row('baseline (healthy endpoint alone)', f.baseline));
  console.log(row('beside hanging, 500 and 3 s slow', f.withBadEndpoints));
  for (const [i, c] of f.withBadEndpoints.entries()) {
    const b = c.badEndpoints!;
    console.log(`  round ${i + 1} bad endpoints: hanging got ${b.hangingRequests} requests, failing ${b.failingRequests}, slow ${b.slowRequests}; "failing" warnings ${b.failingWarnings}; circuits ${Object.entries(b.circuits).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }
  console.log(`  bar: median healthy p99 ≤ ${f.bar} ms beside the bad endpoints (${f.medianP99.withBadEndpoints} ms; alone ${f.medianP99.baseline} ms) → ${f.pass ? 'PASS' : 'FAIL'}`);
  if (!f.pass) process.exitCode = 1;
}
