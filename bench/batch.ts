/**
 * Batch throughput (DESIGN §8): a 10,000-recipient batch with merge fields on the simulated
 * network without delays, batchSize 1000, delayMs 0, against a reference that cannot flatter it.
 *
 * **Measured side**, a process of its own: the real entry point (src/main.ts, default log level)
 * on a data directory this script prepared beforehand (two tenants … three, each with an RCS
 * sender, a custom field `tier` and 10,500 contacts with a first name and a tier, so every
 * recipient really is merged). This script posts, from outside: an unmeasured 500-recipient
 * warm-up, the first tenant's 10,000 (**cold**: the process's first big batch), the second
 * tenant's identical batch (**warm**: the bars are about this one) and a third's with an
 * Idempotency-Key (printed, not part of the bars). Time to the 202 and until every message is
 * SENT are taken from the request; "all SENT" is polled by this process on a read-only SQLite
 * connection (only committed rows count), so the polling does not run on the server's event loop.
 *
 * **Reference**, a process of its own (this script with `--reference <rows file>`): the warm
 * batch's 10,000 message rows, inserted by a better-sqlite3 prepared INSERT each in one
 * transaction into a fresh file with the same table and indexes and the server's pragmas (foreign
 * keys off: the file has no accounts or jobs). Timed from BEGIN to COMMIT, after the same insert
 * once into another fresh file, untimed (a cold reference is slower, and a slower reference
 * flatters the server).
 *
 * The two alternate in BENCH_ROUNDS pairs (default 3; the first pair starts with the server, whose
 * rows the reference needs, then the order flips each pair). Each pair's ratio is its warm all
 * SENT ÷ its reference; medians and spread are printed. Bars: median ratio ≤ 2× (DESIGN §8,
 * issue #31), median warm 202 ≤ 300 ms and all SENT ≤ 1 s (the earlier §8 bars, kept); exits 1
 * when one is missed. (Before issue #31 the reference ran once, in the server's own process,
 * after the batches.)
 *
 * Diagnostics of the last pair's warm batch (from the request until all SENT), through
 * bench/lib/diagnose-on-signal.ts: BENCH_PROFILE=file.cpuprofile (CPU profile of the server),
 * BENCH_TRACE_SQL=1 (every statement the server ran, with its time inside SQLite).
 *
 * Run: npx tsx bench/batch.ts   (or npm run bench for every bench script)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { createContext, type AppContext } from '../src/context.js';
import { createLogger } from '../src/platform/logger.js';
import { ALL_PERMISSIONS } from '../src/platform/permissions.js';
import { startChildServer, type ChildServer } from '../test/helpers/child-server.js';
import { median } from './lib/stats.js';
import { processCpu } from './pg-trace.js';
import { diagnosticsAround, diagnosticsNodeArgs, diagnosticsWanted } from './lib/child-diagnostics.js';

export const ACCEPT_BAR_MS = 300;
export const ALL_SENT_BAR_MS = 1000;
export const OVER_REFERENCE_BAR = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TEXT = 'Hello {{contact_first_name}}, your {{tier}} offer from {{company_name}} is ready.';

export interface ServerFigures {
  /** The first big batch of the process (V8 still compiling the hot paths). */
  cold: { acceptMs: number; allSentMs: number };
  /** The same batch once the server is warm; the bars apply to these. */
  warm: { acceptMs: number; allSentMs: number };
  /** The same batch sent with an Idempotency-Key (not part of the bars). */
  withKey: { acceptMs: number; allSentMs: number };
  /** The server process's peak resident set (VmHWM), over its whole life. */
  peakRssMb: number;
  /** CPU (user + system, all its threads) the server process used from the warm request until all SENT. */
  warmCpuMs: number;
}

export interface BatchBenchFigures {
  recipients: number;
  /** One entry per pair, each side measured in a process of its own. */
  server: ServerFigures[];
  referenceInsertMs: number[];
  /** CPU of the reference process during its timed insert. */
  referenceCpuMs: number[];
  /** Per pair: warm all SENT ÷ that pair's reference. */
  overReference: number[];
  medians: { acceptMs: number; allSentMs: number; referenceInsertMs: number; overReference: number };
  loadAverage: { before: number[]; after: number[] };
  pass: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Valid German mobile numbers whose last four digits never hit a simulated test number (…9990–9994). */
const numberOf = (i: number, offset = 0): string => `+49151${String(10_000_005 + (offset + i) * 10).padStart(8, '0')}`;

interface Tenant {
  key: string;
  senderId: string;
  offset: number;
  name: string;
}

/** Setup, not measured: a tenant with an RCS sender, a key, the custom field and n + 500 merged contacts. */
async function createTenant(ctx: AppContext, name: string, offset: number, n: number): Promise<Tenant> {
  const { accounts, senders, apiKeys, fields, contacts } = ctx.services;
  const account = await accounts.create({ name, timezone: 'Europe/Berlin', credits: 1_000_000, companyProfile: { company_name: name } });
  const rcs = await senders.create(account.id, { name: `${name} Agent`, type: 'RCS', status: 'APPROVED', isDefault: true });
  const key = (await apiKeys.create(account.id, 'bench', ALL_PERMISSIONS)).key;
  await fields.create(account.id, { name: 'Tier', tag: 'tier' });
  for (let from = 0; from < n + 500; from += 1000) {
    const list = Array.from({ length: Math.min(1000, n + 500 - from) }, (_, k) => {
      const i = from + k;
      return { phone: numberOf(i, offset), firstName: `Person${i}`, customFields: [{ tag: 'tier', value: i % 3 === 0 ? 'gold' : 'silver' }] };
    });
    const r = await contacts.bulkUpsert(account.id, { contacts: list });
    if (r.created !== list.length) throw new Error(`seeding contacts failed: ${JSON.stringify(r).slice(0, 300)}`);
  }
  return { key, senderId: rcs.id, offset, name };
}

async function postBatch(url: string, t: Tenant, count: number, from: number, idempotencyKey?: string): Promise<string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-API-Key': t.key, ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) };
  const body = { phoneNumbers: Array.from({ length: count }, (_, i) => numberOf(from + i, t.offset)), messageType: 'text', content: { text: TEXT }, sendernameId: t.senderId, campaignName: 'bench', batchSize: 1000, delayMs: 0 };
  const res = await fetch(`${url}/api/rcs/send-batch`, { method: 'POST', headers, body: JSON.stringify(body) });
  const answer = (await res.json()) as { jobId: string; accepted: number };
  if (res.status !== 202 || answer.accepted !== count) throw new Error(`batch answered ${res.status}: ${JSON.stringify(answer).slice(0, 500)}`);
  return answer.jobId;
}

/** Peak resident set of a process in MB (Linux /proc; 0 elsewhere). */
function peakRssMb(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : 0;
  } catch {
    return 0;
  }
}

/**
 * One measured side: prepares a data directory in this process (tenants, contacts; then closed),
 * starts the real entry point on it, sends the batches from here and, for the reference, writes
 * the warm batch's rows and the messages table's schema to `rowsFile`.
 */
async function measureServer(n: number, rowsFile: string, diagnose: boolean): Promise<ServerFigures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-batch-'));
  // DATABASE_URL '': the server is a child with this process's environment, and one set there must not take it to PostgreSQL.
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', SEED_DEMO: 'false', SIM_DELIVERY_DELAY_MS: '0', SIM_READ_DELAY_MS: '0', SENDER_MAX_PER_SECOND: '1000000' };
  let server: ChildServer | null = null;
  let reader: SQLite.Database | null = null;
  try {
    const config = loadConfig({ ...env, PORT: '0', LOG_LEVEL: 'silent' });
    const ctx = await createContext(config, { logger: createLogger('silent') });
    const first = await createTenant(ctx, 'First Co', 0, n);
    const bench = await createTenant(ctx, 'Bench Co', 2 * n, n);
    const keyed = await createTenant(ctx, 'Keyed Co', 4 * n, n);
    await ctx.database.close();

    const nodeArgs = diagnose ? diagnosticsNodeArgs() : [];
    server = await startChildServer(env, 60_000, nodeArgs);
    const s = server;
    reader = new SQLite(config.databaseFile, { readonly: true });
    const lastOfJob = reader.prepare('SELECT id FROM messages WHERE job_id = ? ORDER BY due_at DESC, id DESC LIMIT 1').pluck();
    const statusOf = reader.prepare('SELECT status FROM messages WHERE id = ?').pluck();
    const sentCount = reader.prepare("SELECT count(*) FROM messages WHERE job_id = ? AND status IN ('SENT', 'DELIVERED', 'READ')").pluck();
    const sentOrLater = new Set(['SENT', 'DELIVERED', 'READ']);
    /**
     * Until every message of the job is SENT. Counting reads the job's 10,000 index entries; so the
     * poll watches the job's last message by its key first and counts only once that one is SENT
     * (a count that falls short keeps counting): the exact count's answer, at most a poll late.
     */
    const waitAllSent = async (jobId: string, total: number, deadlineMs: number): Promise<boolean> => {
      const end = performance.now() + deadlineMs;
      const last = lastOfJob.get(jobId) as string | undefined;
      let counting = last === undefined;
      while (performance.now() < end) {
        if (!counting) counting = sentOrLater.has(statusOf.get(last) as string);
        if (counting && (sentCount.get(jobId) as number) >= total) return true;
        await sleep(2);
      }
      return false;
    };
    const measure = async (t: Tenant, idempotencyKey?: string, around?: { before(): Promise<void>; after(): Promise<void> }) => {
      await around?.before();
      const cpu0 = processCpu(s.proc.pid!);
      const t0 = performance.now();
      const jobId = await postBatch(s.url, t, n, 0, idempotencyKey);
      const acceptMs = performance.now() - t0;
      if (!(await waitAllSent(jobId, n, 60_000))) throw new Error('batch did not finish within 60 s');
      const allSentMs = performance.now() - t0;
      const cpuMs = (processCpu(s.proc.pid!) - cpu0) * 1000;
      await around?.after();
      await sleep(300); // let the receipts drain before anything else is measured
      return { jobId, acceptMs, allSentMs, cpuMs };
    };

    const warmUp = await postBatch(s.url, first, 500, n);
    if (!(await waitAllSent(warmUp, 500, 30_000))) throw new Error('warm-up batch did not finish');
    await sleep(300);
    const cold = await measure(first);
    const diagnostics = diagnose ? diagnosticsAround(s) : undefined;
    const warm = await measure(bench, undefined, diagnostics);
    const withKey = await measure(keyed, `bench-${Date.now()}`);
    const peak = peakRssMb(s.proc.pid!);

    const sample = reader.prepare('SELECT text FROM messages WHERE job_id = ? AND phone = ?').pluck().get(warm.jobId, numberOf(3, bench.offset).slice(1));
    if (sample !== `Hello Person3, your gold offer from ${bench.name} is ready.`) throw new Error(`merge failed: ${String(sample)}`);
    const rows = reader.prepare('SELECT * FROM messages WHERE job_id = ?').all(warm.jobId) as Record<string, unknown>[];
    if (rows.length !== n) throw new Error(`job ${warm.jobId} has ${rows.length} messages, expected ${n}`);
    const schema = (reader.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = 'messages' AND sql IS NOT NULL ORDER BY type DESC").pluck().all() as string[]);
    fs.writeFileSync(rowsFile, JSON.stringify({ schema, rows }));
    const figure = (m: { acceptMs: number; allSentMs: number }) => ({ acceptMs: m.acceptMs, allSentMs: m.allSentMs });
    return { cold: figure(cold), warm: figure(warm), withKey: figure(withKey), peakRssMb: peak, warmCpuMs: warm.cpuMs };
  } finally {
    reader?.close();
    const code = await server?.stop();
    if (server && code !== 0) console.error(`server exited ${code}:\n${server.output().slice(-2000)}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The reference, run in its own process (`--reference <rows file>`): the rows into a fresh file,
 * one prepared INSERT each, one transaction, the table's own indexes and the server's pragmas.
 * The same insert into another fresh file goes first, not timed: a cold reference (this process's
 * JIT, SQLite's first use) would be slower, and a slower reference flatters the server.
 */
function referenceInsert(rowsFile: string): { insertMs: number; cpuMs: number } {
  const { schema, rows } = JSON.parse(fs.readFileSync(rowsFile, 'utf8')) as { schema: string[]; rows: Record<string, unknown>[] };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-batch-ref-'));
  try {
    let insertMs = 0;
    let cpuMs = 0;
    for (const name of ['warm-up.sqlite', 'reference.sqlite']) {
      const db = new SQLite(path.join(dir, name));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('cache_size = -65536');
      db.pragma('foreign_keys = OFF'); // no accounts or jobs here: the rows alone are measured
      for (const sql of schema) db.exec(sql);
      const cols = Object.keys(rows[0]!);
      const insert = db.prepare(`INSERT INTO messages (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      db.transaction(() => {
        for (const r of rows) insert.run(r);
      })();
      insertMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      cpuMs = (cpu.user + cpu.system) / 1000;
      db.close();
    }
    return { insertMs, cpuMs };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function referenceInChild(rowsFile: string): Promise<{ insertMs: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--reference', rowsFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as { insertMs: number; cpuMs: number }) : reject(new Error(`batch --reference exited ${code}`))));
  });
}

export async function run(options: { recipients?: number } = {}): Promise<BatchBenchFigures> {
  const n = options.recipients ?? 10_000;
  const before = os.loadavg();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-batch-rows-'));
  const rowsFile = path.join(work, 'rows.json');
  const server: ServerFigures[] = [];
  const referenceInsertMs: number[] = [];
  const referenceCpuMs: number[] = [];
  try {
    // Pairs; the first starts with the server (the reference inserts its rows), then the order
    // flips, so drift on a shared machine hits both sides alike.
    for (let r = 0; r < ROUNDS; r++) {
      const diagnose = diagnosticsWanted && r === ROUNDS - 1;
      const order = r % 2 === 0 ? (['server', 'reference'] as const) : (['reference', 'server'] as const);
      for (const side of order) {
        if (side === 'server') server.push(await measureServer(n, rowsFile, diagnose));
        else {
          const reference = await referenceInChild(rowsFile);
          referenceInsertMs.push(reference.insertMs);
          referenceCpuMs.push(reference.cpuMs);
        }
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const overReference = server.map((s, i) => s.warm.allSentMs / referenceInsertMs[i]!);
  const medians = {
    acceptMs: median(server.map((s) => s.warm.acceptMs)),
    allSentMs: median(server.map((s) => s.warm.allSentMs)),
    referenceInsertMs: median(referenceInsertMs),
    overReference: median(overReference),
  };
  const pass = medians.acceptMs <= ACCEPT_BAR_MS && medians.allSentMs <= ALL_SENT_BAR_MS && medians.overReference <= OVER_REFERENCE_BAR;
  const round2 = (xs: number[]) => xs.map((x) => Math.round(x * 100) / 100);
  return { recipients: n, server, referenceInsertMs, referenceCpuMs, overReference, medians, loadAverage: { before: round2(before), after: round2(os.loadavg()) }, pass };
}

const argReference = process.argv.indexOf('--reference');
if (argReference !== -1) {
  process.stdout.write(`${JSON.stringify(referenceInsert(process.argv[argReference + 1]!))}\n`);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const f = await run();
  const spread = (xs: number[], digits = 0) => `${median(xs).toFixed(digits).padStart(6)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
  const ok = (b: boolean) => (b ? 'PASS' : 'FAIL');
  console.log(`batch send (${f.recipients.toLocaleString('en-US')} recipients, merge fields, batchSize 1000, delayMs 0, simulated network without delays)`);
  console.log(`  node ${process.version}, ${os.cpus().length} cores, load average before ${f.loadAverage.before.join(' ')}, after ${f.loadAverage.after.join(' ')}`);
  console.log(`  ${ROUNDS} alternating pairs, server (real entry point) and reference each in a process of their own; medians (min–max):`);
  for (const [i, s] of f.server.entries()) {
    console.log(`  pair ${i + 1}: cold 202 ${s.cold.acceptMs.toFixed(0)} / all SENT ${s.cold.allSentMs.toFixed(0)} ms; warm 202 ${s.warm.acceptMs.toFixed(0)} / all SENT ${s.warm.allSentMs.toFixed(0)} ms; with key ${s.withKey.acceptMs.toFixed(0)} / ${s.withKey.allSentMs.toFixed(0)} ms; reference ${f.referenceInsertMs[i]!.toFixed(0)} ms → ${f.overReference[i]!.toFixed(2)} ×; CPU server ${s.warmCpuMs.toFixed(0)} / reference ${f.referenceCpuMs[i]!.toFixed(0)} ms; peak RSS ${s.peakRssMb} MB`);
  }
  console.log(`  cold (first big batch): 202 ${spread(f.server.map((s) => s.cold.acceptMs))} ms, all SENT ${spread(f.server.map((s) => s.cold.allSentMs))} ms`);
  console.log(`  warm time to 202        ${spread(f.server.map((s) => s.warm.acceptMs))} ms   bar ≤ ${ACCEPT_BAR_MS} ms → ${ok(f.medians.acceptMs <= ACCEPT_BAR_MS)}`);
  console.log(`  warm all SENT           ${spread(f.server.map((s) => s.warm.allSentMs))} ms   bar ≤ ${ALL_SENT_BAR_MS} ms → ${ok(f.medians.allSentMs <= ALL_SENT_BAR_MS)}`);
  console.log(`  with Idempotency-Key    202 ${spread(f.server.map((s) => s.withKey.acceptMs))} ms, all SENT ${spread(f.server.map((s) => s.withKey.allSentMs))} ms (not part of the bars)`);
  console.log(`  reference INSERT        ${spread(f.referenceInsertMs)} ms   (same ${f.recipients.toLocaleString('en-US')} rows, separate process, fresh file, one transaction)`);
  console.log(`  all SENT ÷ reference    ${spread(f.overReference, 2)} ×    bar ≤ ${OVER_REFERENCE_BAR} × → ${ok(f.medians.overReference <= OVER_REFERENCE_BAR)}`);
  // CPU hardly moves with the machine's load: a steadier view of the same comparison (no bar).
  console.log(`  CPU: server (request → all SENT, all threads) ${spread(f.server.map((s) => s.warmCpuMs))} ms; reference ${spread(f.referenceCpuMs)} ms; ÷ ${spread(f.server.map((s, i) => s.warmCpuMs / f.referenceCpuMs[i]!), 2)} ×`);
  console.log(`  result: ${ok(f.pass)}`);
  if (!f.pass) process.exitCode = 1;
}
