/**
 * Batch throughput on PostgreSQL (issue #19, #31): the 10,000-recipient merge batch of
 * bench/batch.ts on PostgreSQL (POSTGRES_ADMIN_URL, default the local cluster), in three parts:
 *
 * 1. **Measured side**, a process of its own: the real entry point (src/main.ts, default log
 *    level) on a fresh database this script set up beforehand (two tenants with 10,500 merged
 *    contacts each). This script posts from outside an unmeasured 500-recipient warm-up, the first
 *    tenant's 10,000 (cold) and the second's (warm), and times each from the request to the 202
 *    and until every message is SENT (polled on its own connection, so only committed rows count).
 * 2. **Reference**, a process of its own (this script with `--reference <url> <job id>`): the
 *    warm batch's 10,000 rows written again by one `pg` multi-row INSERT per 1,000 rows in one
 *    transaction into a fresh schema's copy of the messages table (`like messages including
 *    all`: same columns, defaults, constraints and indexes, no foreign keys), BEGIN to COMMIT,
 *    after the same insert once into another fresh schema, untimed (a cold reference is slower,
 *    and a slower reference flatters the server).
 *    Parts 1 and 2 alternate in BENCH_ROUNDS pairs (default 3; the first pair starts with the
 *    server, whose rows the reference needs, then the order flips). Bar (DESIGN §8, issue #31):
 *    median over the pairs of warm all SENT ÷ that pair's reference ≤ 2×. (Before issue #31 the
 *    server ran in this process and the reference in it too, sampled before and after.)
 * 3. The same batch dispatched by one instance and by three instances of the real entry point
 *    (child processes on one database, the batch posted to the first), alternately,
 *    BENCH_INSTANCE_PAIRS times (default 3), the bar checked on the medians: three ≤ 0.7× one
 *    (DESIGN §8, issue #31).
 *
 * Diagnostics of the last pair's warm batch (bench/lib/diagnose-on-signal.ts): BENCH_PROFILE
 * (CPU profile of the server), BENCH_TRACE_SQL=1 (the server's statements, WAL and CPU);
 * BENCH_EXPLAIN=1 and BENCH_DB_SET as below.
 *
 * Run: npx tsx bench/batch-postgres.ts   (npm run bench runs it too; it is skipped, not failed,
 * when no PostgreSQL server answers unless REQUIRE_POSTGRES=1)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createContext, type AppContext } from '../src/context.js';
import { createLogger } from '../src/platform/logger.js';
import { ALL_PERMISSIONS } from '../src/platform/permissions.js';
import { startChildServer, type ChildServer } from '../test/helpers/child-server.js';
import { backendCpu, cpuSince, processCpu } from './pg-trace.js';

export const ALL_SENT_OVER_REFERENCE_BAR = 2;
export const THREE_OVER_ONE_BAR = 0.7;

const ADMIN_URL = process.env.POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.BENCH_RECIPIENTS ?? 10_000);
const INSTANCE_PAIRS = Number(process.env.BENCH_INSTANCE_PAIRS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Valid German mobile numbers whose last four digits never hit a simulated test number (…9990–9994). */
const numberOf = (i: number, offset = 0): string => `+49151${String(10_000_005 + (offset + i) * 10).padStart(8, '0')}`;

function databaseUrl(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

async function reachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

interface Tenant {
  name: string;
  key: string;
  senderId: string;
  offset: number;
}

/** A tenant with an RCS sender, a key, a custom field and N + 500 merged contacts (setup, not measured). */
async function createTenant(ctx: AppContext, name: string, offset: number): Promise<Tenant> {
  const { accounts, senders, apiKeys, fields, contacts } = ctx.services;
  const account = await accounts.create({ name, timezone: 'Europe/Berlin', credits: 1_000_000, companyProfile: { company_name: name } });
  const rcs = await senders.create(account.id, { name: `${name} Agent`, type: 'RCS', status: 'APPROVED', isDefault: true });
  const key = (await apiKeys.create(account.id, 'bench', ALL_PERMISSIONS)).key;
  await fields.create(account.id, { name: 'Tier', tag: 'tier' });
  for (let from = 0; from < N + 500; from += 1000) {
    const list = Array.from({ length: Math.min(1000, N + 500 - from) }, (_, k) => {
      const i = from + k;
      return { phone: numberOf(i, offset), firstName: `Person${i}`, customFields: [{ tag: 'tier', value: i % 3 === 0 ? 'gold' : 'silver' }] };
    });
    const r = await contacts.bulkUpsert(account.id, { contacts: list });
    if (r.created !== list.length) throw new Error(`seeding contacts failed: ${JSON.stringify(r).slice(0, 300)}`);
  }
  return { name, key, senderId: rcs.id, offset };
}

const batchBody = (t: Tenant, count: number, from = 0) => ({
  phoneNumbers: Array.from({ length: count }, (_, i) => numberOf(from + i, t.offset)),
  messageType: 'text',
  content: { text: `Hello {{contact_first_name}}, your {{tier}} offer from {{company_name}} is ready.` },
  sendernameId: t.senderId,
  campaignName: 'bench',
  batchSize: 1000,
  delayMs: 0,
});

async function postBatch(baseUrl: string, t: Tenant, count: number, from = 0): Promise<string> {
  const res = await fetch(`${baseUrl}/api/rcs/send-batch`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': t.key },
    body: JSON.stringify(batchBody(t, count, from)),
  });
  const body = (await res.json()) as { jobId: string; accepted: number };
  if (res.status !== 202 || body.accepted !== count) throw new Error(`batch answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
  return body.jobId;
}

/**
 * Until every message of the job is SENT (or further). The exact count reads every message of the
 * job (10,000 index entries and, without a vacuum since, their heap rows: milliseconds of a
 * PostgreSQL core each time), and polling it every 5 ms took a sizeable share of this 2-core
 * machine from the server being measured. So the poll first watches one row — the job's last
 * message, which the dispatcher's in-order rounds record last — by its primary key, and counts
 * only once that one is SENT; a count that falls short keeps counting every 5 ms, so the answer is
 * the exact count's either way, at most one poll interval late.
 */
async function waitAllSent(reader: pg.Client, jobId: string, total: number, deadlineMs: number): Promise<boolean> {
  const end = performance.now() + deadlineMs;
  const last = await reader.query<{ id: string }>('select id from messages where job_id = $1 order by due_at desc, id desc limit 1', [jobId]);
  const lastId = last.rows[0]?.id;
  let counting = lastId === undefined;
  while (performance.now() < end) {
    if (!counting) {
      const { rows } = await reader.query<{ status: string }>('select status from messages where id = $1', [lastId]);
      counting = SENT_OR_LATER.has(rows[0]?.status ?? '');
    }
    if (counting) {
      const { rows } = await reader.query<{ n: string }>("select count(*) as n from messages where job_id = $1 and status in ('SENT', 'DELIVERED', 'READ')", [jobId]);
      if (Number(rows[0]!.n) >= total) return true;
    }
    await sleep(5);
  }
  return false;
}

const SENT_OR_LATER = new Set(['SENT', 'DELIVERED', 'READ']);

/**
 * Until the simulated network has fired every receipt it holds (delivery and read), so the next
 * measurement does not pay for the previous batch's receipts: on PostgreSQL they take seconds,
 * well beyond the 300 ms pause that drains them on SQLite (bench/batch.ts).
 */
async function waitReceiptsDrained(reader: pg.Client, deadlineMs = 60_000): Promise<void> {
  const end = performance.now() + deadlineMs;
  while (performance.now() < end) {
    const { rows } = await reader.query<{ due: boolean }>('select exists (select 1 from sim_messages where deliver_due is not null or read_due is not null) as due');
    if (!rows[0]!.due) return;
    await sleep(50);
  }
  throw new Error(`receipts still due after ${deadlineMs} ms`);
}

async function walLsn(reader: pg.Client): Promise<string> {
  return (await reader.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn;
}

async function walMbSince(reader: pg.Client, from: string): Promise<string> {
  const { rows } = await reader.query<{ bytes: string }>('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint as bytes', [from]);
  return (Number(rows[0]!.bytes) / 1e6).toFixed(1);
}

/** Every message of the job was handed to the simulated carrier exactly once. */
async function expectOncePerRecipient(reader: pg.Client, jobId: string): Promise<void> {
  const { rows } = await reader.query<{ n: string; phones: string }>('select count(*) as n, count(distinct phone) as phones from messages where job_id = $1', [jobId]);
  if (Number(rows[0]!.n) !== N || Number(rows[0]!.phones) !== N) throw new Error(`job ${jobId}: ${rows[0]!.n} messages for ${rows[0]!.phones} numbers, expected ${N}`);
}

/**
 * The reference, run in its own process (`--reference <database url> <job id>`): the job's rows,
 * read first (not timed), written again by one multi-row INSERT per 1,000 rows in one transaction
 * into a fresh schema's copy of the messages table (`like messages including all`: columns,
 * defaults, constraints and indexes; no foreign keys), timed from BEGIN to COMMIT. The same
 * insert into another fresh schema goes first, not timed: a cold reference (a new backend's
 * catalog caches, this process's JIT) would be slower, and a slower reference flatters the server.
 */
async function referenceInsert(url: string, jobId: string): Promise<ReferenceFigures> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const schemas = [`bench_warmup_${process.pid}`, `bench_reference_${process.pid}`];
  try {
    const { rows } = await client.query<Record<string, unknown>>('select * from messages where job_id = $1', [jobId]);
    if (rows.length === 0) throw new Error(`job ${jobId} has no messages`);
    const cols = Object.keys(rows[0]!);
    const chunk = 1000;
    const backendPid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    let figures: ReferenceFigures = { insertMs: 0, cpuMs: { client: 0, backend: 0 } };
    for (const schema of schemas) {
      await client.query(`create schema ${schema}`);
      await client.query(`create table ${schema}.messages (like public.messages including all)`);
      const cpu0 = { client: process.cpuUsage(), backend: processCpu(backendPid) };
      const t0 = performance.now();
      await client.query('begin');
      for (let i = 0; i < rows.length; i += chunk) {
        const part = rows.slice(i, i + chunk);
        const params: unknown[] = [];
        const tuples = part.map((r) => `(${cols.map((c) => `$${params.push(r[c])}`).join(', ')})`);
        await client.query(`insert into ${schema}.messages (${cols.map((c) => `"${c}"`).join(', ')}) values ${tuples.join(', ')}`, params);
      }
      await client.query('commit');
      const insertMs = performance.now() - t0;
      const own = process.cpuUsage(cpu0.client);
      figures = { insertMs, cpuMs: { client: (own.user + own.system) / 1000, backend: (processCpu(backendPid) - cpu0.backend) * 1000 } };
    }
    return figures;
  } finally {
    for (const schema of schemas) await client.query(`drop schema if exists ${schema} cascade`).catch(() => undefined);
    await client.end();
  }
}

interface ReferenceFigures {
  insertMs: number;
  /** CPU of the timed insert: this process and its database backend. */
  cpuMs: { client: number; backend: number };
}

function referenceInChild(url: string, jobId: string): Promise<ReferenceFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--reference', url, jobId], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as ReferenceFigures) : reject(new Error(`batch-postgres --reference exited ${code}`))));
  });
}

/** Starts `count` instances on the database, posts one batch to the first, and times it until all SENT. */
async function dispatchWith(count: number, url: string, dataDir: string, reader: pg.Client, t: Tenant): Promise<number> {
  const env = { DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'info', SEED_DEMO: 'false', SIM_DELIVERY_DELAY_MS: '0', SIM_READ_DELAY_MS: '0', SENDER_MAX_PER_SECOND: '1000000' };
  const servers: ChildServer[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await startChildServer(env, 60_000));
    // Warm-up (not measured): each instance answers a small batch once.
    for (const s of servers) {
      const warm = await postBatch(s.url, t, 100, N);
      if (!(await waitAllSent(reader, warm, 100, 30_000))) throw new Error('warm-up batch did not finish');
    }
    await waitReceiptsDrained(reader);
    // BENCH_INSTANCE_CPU=1: where the CPU went during the measured batch (each instance, the database's backends).
    const cpuFrom = process.env.BENCH_INSTANCE_CPU === '1' ? { procs: servers.map((s) => processCpu(s.proc.pid!)), server: await backendCpu(reader, new URL(url).pathname.slice(1)) } : null;
    const t0 = performance.now();
    const jobId = await postBatch(servers[0]!.url, t, N);
    if (!(await waitAllSent(reader, jobId, N, 120_000))) throw new Error(`${count} instance(s): batch did not finish within 120 s`);
    const ms = performance.now() - t0;
    if (cpuFrom) {
      const procs = servers.map((s, i) => (processCpu(s.proc.pid!) - cpuFrom.procs[i]!).toFixed(2));
      const server = cpuSince(cpuFrom.server, await backendCpu(reader, new URL(url).pathname.slice(1)));
      console.log(`  ${count} instance(s), ${ms.toFixed(0)} ms: CPU s of each instance ${procs.join(', ')}; PostgreSQL backends ${server.toFixed(2)}`);
    }
    await expectOncePerRecipient(reader, jobId);
    return ms;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/**
 * One instance, then three, INSTANCE_PAIRS times, each with its own tenant's numbers (a tenant's
 * k-th batch meets the same history in both configurations); the medians of each.
 */
async function alternate(url: string, dataDir: string, reader: pg.Client, one: Tenant, three: Tenant): Promise<{ oneMs: number; threeMs: number; pairs: Array<[number, number]> }> {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < INSTANCE_PAIRS; i++) pairs.push([await dispatchWith(1, url, dataDir, reader, one), await dispatchWith(3, url, dataDir, reader, three)]);
  return { oneMs: median(pairs.map((p) => p[0])), threeMs: median(pairs.map((p) => p[1])), pairs };
}

/** A fresh database for the bench, with the BENCH_EXPLAIN / BENCH_DB_SET settings; returns its URL. */
async function freshDatabase(dbName: string): Promise<string> {
  await adminQuery(`drop database if exists ${dbName} with (force)`);
  await adminQuery(`create database ${dbName}`);
  // BENCH_EXPLAIN=1: every statement of the bench's database with its plan and timings in the server's log (auto_explain).
  if (process.env.BENCH_EXPLAIN === '1') {
    await adminQuery(`alter database ${dbName} set session_preload_libraries = 'auto_explain'`);
    await adminQuery(`alter database ${dbName} set auto_explain.log_min_duration = 0`);
    await adminQuery(`alter database ${dbName} set auto_explain.log_analyze = on`);
    await adminQuery(`alter database ${dbName} set auto_explain.log_buffers = on`);
  }
  // BENCH_DB_SET="name=value,…": server settings for the bench's database, to see what one costs (e.g. synchronous_commit=off).
  for (const setting of (process.env.BENCH_DB_SET ?? '').split(',').filter(Boolean)) {
    const [name, value] = setting.split('=');
    if (!name || value === undefined || !/^[a-z_.]+$/.test(name)) throw new Error(`BENCH_DB_SET: not name=value: ${setting}`);
    await adminQuery(`alter database ${dbName} set ${name} = ${pg.escapeLiteral(value)}`);
  }
  return databaseUrl(dbName);
}

const serverEnv = (url: string, dataDir: string) => ({ DATABASE_URL: url, DATA_DIR: dataDir, SEED_DEMO: 'false', SIM_DELIVERY_DELAY_MS: '0', SIM_READ_DELAY_MS: '0', SENDER_MAX_PER_SECOND: '1000000' });

/** Setup in this process, not measured: tenants on the database, then the context is closed. */
async function withSetup<T>(url: string, dataDir: string, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const config = loadConfig({ ...serverEnv(url, dataDir), PORT: '0', LOG_LEVEL: 'silent' });
  const ctx = await createContext(config, { logger: createLogger('silent') });
  try {
    return await fn(ctx);
  } finally {
    await ctx.database.close();
  }
}

async function waitForOutput(server: ChildServer, line: string, timeoutMs = 10_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!server.output().includes(line)) {
    if (performance.now() > end) throw new Error(`server did not print "${line}"`);
    await sleep(5);
  }
}

interface ServerFigures {
  cold: { acceptMs: number; allSentMs: number };
  warm: { acceptMs: number; allSentMs: number };
  /** The warm batch's job: the reference writes its rows again. */
  jobId: string;
  /** CPU from the warm request until all SENT: the server process and the database's backends (the poller's not counted). */
  warmCpuMs: { server: number; backends: number };
}

/**
 * One measured side on a fresh database: two tenants set up in this process, then the real entry
 * point in a child process; from here an unmeasured 500-recipient warm-up, the first tenant's
 * 10,000 (cold) and the second's (warm), each until all SENT and its receipts drained. The
 * database is left for the reference (the caller drops it).
 */
async function measureServer(dbName: string, diagnose: boolean): Promise<ServerFigures> {
  const url = await freshDatabase(dbName);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-pg-'));
  const reader = new pg.Client({ connectionString: url });
  let server: ChildServer | null = null;
  try {
    const [first, bench] = await withSetup(url, dataDir, async (ctx) => [await createTenant(ctx, 'First Co', 0), await createTenant(ctx, 'Bench Co', 2 * N)]);
    const nodeArgs = diagnose ? ['--import', fileURLToPath(new URL('./lib/diagnose-on-signal.ts', import.meta.url))] : [];
    server = await startChildServer({ ...serverEnv(url, dataDir), LOG_LEVEL: 'info' }, 60_000, nodeArgs);
    const s = server;
    await reader.connect();
    const warmUp = await postBatch(s.url, first, 500, N);
    if (!(await waitAllSent(reader, warmUp, 500, 30_000))) throw new Error('warm-up batch did not finish');
    await waitReceiptsDrained(reader);
    const readerPid = new Set([(reader as unknown as { processID: number }).processID]);
    const measure = async (t: Tenant, around?: { before(): Promise<void>; after(): Promise<void> }) => {
      await around?.before();
      const cpu0 = { server: processCpu(s.proc.pid!), backends: await backendCpu(reader, dbName) };
      const t0 = performance.now();
      const jobId = await postBatch(s.url, t, N);
      const acceptMs = performance.now() - t0;
      if (!(await waitAllSent(reader, jobId, N, 120_000))) throw new Error('batch did not finish within 120 s');
      const allSentMs = performance.now() - t0;
      const cpuMs = { server: (processCpu(s.proc.pid!) - cpu0.server) * 1000, backends: cpuSince(cpu0.backends, await backendCpu(reader, dbName), readerPid) * 1000 };
      await around?.after();
      await waitReceiptsDrained(reader);
      return { jobId, acceptMs, allSentMs, cpuMs };
    };
    const cold = await measure(first);
    // Diagnostics of the warm batch, off by default (BENCH_PROFILE, BENCH_TRACE_SQL=1; bench/lib/diagnose-on-signal.ts),
    // with the WAL written and the CPU of the server process and of the database's backends.
    let from: { wal: string; backends: Map<number, number>; node: number; outputAt: number } | null = null;
    const diagnostics = diagnose
      ? {
          before: async () => {
            s.proc.kill('SIGUSR2');
            await waitForOutput(s, 'diagnostics: started');
            from = { wal: await walLsn(reader), backends: await backendCpu(reader, dbName), node: processCpu(s.proc.pid!), outputAt: s.output().length };
          },
          after: async () => {
            const f = from!;
            const node = processCpu(s.proc.pid!) - f.node;
            const backends = cpuSince(f.backends, await backendCpu(reader, dbName), readerPid);
            s.proc.kill('SIGUSR2');
            await waitForOutput(s, 'diagnostics: done');
            const report = s.output().slice(f.outputAt).split('\n').filter((l) => l && !l.startsWith('{') && !l.startsWith('diagnostics:'));
            if (report.length) console.log(report.join('\n'));
            console.log(`  WAL until all SENT: ${await walMbSince(reader, f.wal)} MB (the whole cluster's)`);
            console.log(`  CPU until all SENT: PostgreSQL backends ${backends.toFixed(2)} s (the poller's not counted), server process ${node.toFixed(2)} s`);
          },
        }
      : undefined;
    const warm = await measure(bench, diagnostics);
    await expectOncePerRecipient(reader, warm.jobId);
    const sample = await reader.query<{ text: string }>('select text from messages where job_id = $1 and phone = $2', [warm.jobId, numberOf(3, bench.offset).slice(1)]);
    if (sample.rows[0]?.text !== 'Hello Person3, your gold offer from Bench Co is ready.') throw new Error(`merge failed: ${sample.rows[0]?.text}`);
    const figure = (m: { acceptMs: number; allSentMs: number }) => ({ acceptMs: m.acceptMs, allSentMs: m.allSentMs });
    return { cold: figure(cold), warm: figure(warm), jobId: warm.jobId, warmCpuMs: warm.cpuMs };
  } finally {
    await reader.end().catch(() => undefined);
    const code = await server?.stop();
    if (server && code !== 0) console.error(`server exited ${code}:\n${server.output().slice(-2000)}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export interface PostgresBatchFigures {
  server: ServerFigures[];
  referenceInsertMs: number[];
  referenceCpuMs: Array<ReferenceFigures['cpuMs']>;
  /** Per pair: warm all SENT ÷ that pair's reference. */
  overReference: number[];
  instances: { oneMs: number; threeMs: number; pairs: Array<[number, number]> } | null;
  loadAverage: { before: number[]; after: number[] };
  pass: boolean;
}

export async function run(): Promise<PostgresBatchFigures | null> {
  if (!(await reachable())) {
    if (process.env.REQUIRE_POSTGRES === '1') throw new Error(`PostgreSQL does not answer at ${ADMIN_URL}`);
    console.log(`batch on PostgreSQL: skipped (no server at ${ADMIN_URL})`);
    return null;
  }
  const before = os.loadavg();
  const server: ServerFigures[] = [];
  const referenceInsertMs: number[] = [];
  const referenceCpuMs: Array<ReferenceFigures['cpuMs']> = [];
  const dbNames: string[] = [];
  try {
    // Parts 1 and 2: server and reference in alternating pairs; the first pair starts with the
    // server (the reference writes its rows again), then the order flips. A database is dropped
    // once no later reference needs it.
    let latest: { url: string; jobId: string } | null = null;
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['server', 'reference'] as const) : (['reference', 'server'] as const);
      for (const side of order) {
        if (side === 'reference') {
          const reference = await referenceInChild(latest!.url, latest!.jobId);
          referenceInsertMs.push(reference.insertMs);
          referenceCpuMs.push(reference.cpuMs);
          continue;
        }
        const previous = dbNames.at(-1);
        if (previous) await adminQuery(`drop database if exists ${previous} with (force)`);
        const dbName = `bench_batch_${process.pid}_${r}`;
        dbNames.push(dbName);
        const figures = await measureServer(dbName, (Boolean(process.env.BENCH_PROFILE) || process.env.BENCH_TRACE_SQL === '1') && r === ROUNDS - 1);
        server.push(figures);
        latest = { url: databaseUrl(dbName), jobId: figures.jobId };
      }
    }
    const last = dbNames.at(-1);
    if (last) await adminQuery(`drop database if exists ${last} with (force)`);

    // Part 3: one, then three instances of the real entry point on a database of their own.
    // BENCH_SKIP_INSTANCES=1 (while working on the single-instance figures): left out, with its bar.
    let instances: PostgresBatchFigures['instances'] = null;
    if (process.env.BENCH_SKIP_INSTANCES !== '1') {
      const dbName = `bench_batch_${process.pid}_instances`;
      dbNames.push(dbName);
      const url = await freshDatabase(dbName);
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-pg-'));
      const reader = new pg.Client({ connectionString: url });
      try {
        const [one, three] = await withSetup(url, dataDir, async (ctx) => [await createTenant(ctx, 'One Co', 4 * N), await createTenant(ctx, 'Three Co', 6 * N)]);
        await reader.connect();
        instances = await alternate(url, dataDir, reader, one, three);
      } finally {
        await reader.end().catch(() => undefined);
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }

    const overReference = server.map((s, i) => s.warm.allSentMs / referenceInsertMs[i]!);
    const threeOverOne = instances ? instances.threeMs / instances.oneMs : 0;
    const pass = median(overReference) <= ALL_SENT_OVER_REFERENCE_BAR && threeOverOne <= THREE_OVER_ONE_BAR;
    const round2 = (xs: number[]) => xs.map((x) => Math.round(x * 100) / 100);
    return { server, referenceInsertMs, referenceCpuMs, overReference, instances, loadAverage: { before: round2(before), after: round2(os.loadavg()) }, pass };
  } finally {
    for (const name of dbNames) await adminQuery(`drop database if exists ${name} with (force)`).catch(() => undefined);
  }
}

const argReference = process.argv.indexOf('--reference');
if (argReference !== -1) {
  process.stdout.write(`${JSON.stringify(await referenceInsert(process.argv[argReference + 1]!, process.argv[argReference + 2]!))}\n`);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const f = await run();
  if (f) {
    const spread = (xs: number[], digits = 0) => `${median(xs).toFixed(digits).padStart(6)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
    const ok = (b: boolean) => (b ? 'PASS' : 'FAIL');
    const ratio = median(f.overReference);
    console.log(`batch send on PostgreSQL (${N.toLocaleString('en-US')} recipients, merge fields, batchSize 1000, delayMs 0, simulated network without delays)`);
    console.log(`  node ${process.version}, ${os.cpus().length} cores, load average before ${f.loadAverage.before.join(' ')}, after ${f.loadAverage.after.join(' ')}`);
    console.log(`  ${ROUNDS} alternating pairs, server (real entry point, fresh database each) and reference each in a process of their own; medians (min–max):`);
    for (const [i, s] of f.server.entries()) {
      console.log(`  pair ${i + 1}: cold 202 ${s.cold.acceptMs.toFixed(0)} / all SENT ${s.cold.allSentMs.toFixed(0)} ms; warm 202 ${s.warm.acceptMs.toFixed(0)} / all SENT ${s.warm.allSentMs.toFixed(0)} ms; reference ${f.referenceInsertMs[i]!.toFixed(0)} ms → ${f.overReference[i]!.toFixed(2)} ×; CPU server ${s.warmCpuMs.server.toFixed(0)} + backends ${s.warmCpuMs.backends.toFixed(0)} / reference ${f.referenceCpuMs[i]!.client.toFixed(0)} + backend ${f.referenceCpuMs[i]!.backend.toFixed(0)} ms`);
    }
    console.log(`  cold (first big batch): 202 ${spread(f.server.map((s) => s.cold.acceptMs))} ms, all SENT ${spread(f.server.map((s) => s.cold.allSentMs))} ms`);
    console.log(`  warm time to 202        ${spread(f.server.map((s) => s.warm.acceptMs))} ms`);
    console.log(`  warm all SENT           ${spread(f.server.map((s) => s.warm.allSentMs))} ms`);
    console.log(`  reference INSERT        ${spread(f.referenceInsertMs)} ms   (same rows, 1,000 per statement, one transaction, fresh schema, same indexes)`);
    console.log(`  all SENT ÷ reference    ${spread(f.overReference, 2)} ×    bar ≤ ${ALL_SENT_OVER_REFERENCE_BAR} × → ${ok(ratio <= ALL_SENT_OVER_REFERENCE_BAR)}`);
    // CPU hardly moves with the machine's load: a steadier view of the same comparison (no bar).
    const serverCpu = f.server.map((s) => s.warmCpuMs.server + s.warmCpuMs.backends);
    const referenceCpu = f.referenceCpuMs.map((c) => c.client + c.backend);
    console.log(`  CPU, process + database backends: server ${spread(serverCpu)} ms; reference ${spread(referenceCpu)} ms; ÷ ${spread(serverCpu.map((c, i) => c / referenceCpu[i]!), 2)} ×`);
    if (f.instances) {
      const inst = f.instances;
      const threeOverOne = inst.threeMs / inst.oneMs;
      const each = (k: 0 | 1) => inst.pairs.map((p) => p[k].toFixed(0)).join(', ');
      console.log(`  one instance (child process)    ${inst.oneMs.toFixed(0).padStart(6)} ms   from the request to all SENT, median of ${each(0)} ms`);
      console.log(`  three instances                 ${inst.threeMs.toFixed(0).padStart(6)} ms   median of ${each(1)} ms (alternating with one)`);
      console.log(`  three ÷ one (medians)           ${threeOverOne.toFixed(2).padStart(6)} ×    bar ≤ ${THREE_OVER_ONE_BAR} × → ${ok(threeOverOne <= THREE_OVER_ONE_BAR)}`);
    } else console.log('  one and three instances         skipped (BENCH_SKIP_INSTANCES=1)');
    console.log(`  result: ${ok(f.pass)}`);
    if (!f.pass) process.exitCode = 1;
  }
}
