/**
 * Batch throughput (DESIGN §8): a 10,000-recipient batch with merge fields on the simulated
 * network without delays, batchSize 1000, delayMs 0. Measures the time to the 202, the time until
 * every message is SENT (polled on a second, read-only SQLite connection, so only committed rows
 * count), messages/s and peak RSS. Two tenants send the same batch one after the other: the first
 * is the process's first big batch (printed, as "cold"), the second shows the warm server, which
 * the bars are about (docs/decisions.md "Batch benchmark: cold and warm"). The baseline, measured
 * in the same run on the same disk, is a plain better-sqlite3 prepared INSERT of the same 10,000
 * message rows in one transaction.
 *
 * Run: npx tsx bench/batch.ts   (or npm run bench for every bench script)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { createLogger } from '../src/platform/logger.js';
import { ALL_PERMISSIONS } from '../src/platform/permissions.js';
import { startHttp } from '../src/server.js';
import { startWorkers, stopWorkers } from '../src/workers.js';
import { startProfile } from './lib/profile.js';

export const ACCEPT_BAR_MS = 300;
export const ALL_SENT_BAR_MS = 1000;

export interface BatchBenchFigures {
  recipients: number;
  /** The first big batch of the process (V8 still compiling the hot paths). */
  cold: { acceptMs: number; allSentMs: number };
  /** The same batch once the server is warm; the bars apply to these. */
  acceptMs: number;
  allSentMs: number;
  messagesPerSecond: number;
  peakRssMb: number;
  baselineInsertMs: number;
  baselineRowsPerSecond: number;
  /** The same batch sent with an Idempotency-Key (not part of the bars). */
  withKey: { acceptMs: number; allSentMs: number };
  pass: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Valid German mobile numbers whose last four digits never hit a simulated test number (…9990–9994). */
const numberOf = (i: number, offset = 0): string => `+49151${String(10_000_005 + (offset + i) * 10).padStart(8, '0')}`;

export async function run(options: { recipients?: number; print?: boolean } = {}): Promise<BatchBenchFigures> {
  const N = options.recipients ?? 10_000;
  const print = options.print ?? true;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-batch-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    SIM_DELIVERY_DELAY_MS: '0',
    SIM_READ_DELAY_MS: '0',
    SENDER_MAX_PER_SECOND: '1000000',
  });
  const { ctx, server } = await startHttp(config, (c) => createContext(c, { logger: createLogger('silent') }), 0, '127.0.0.1');
  await startWorkers(ctx);
  const reader = new SQLite(config.databaseFile, { readonly: true });
  try {
    // Setup (not measured): two tenants, each with senders, a custom field and N existing contacts
    // with a first name and a value for the custom field, so every recipient really is merged.
    const tenant = async (name: string, offset: number) => {
      const { accounts, senders, apiKeys } = ctx.services;
      const account = await accounts.create({ name, timezone: 'Europe/Berlin', credits: 1_000_000, companyProfile: { company_name: name } });
      const rcs = await senders.create(account.id, { name: `${name} Agent`, type: 'RCS', status: 'APPROVED', isDefault: true });
      const key = (await apiKeys.create(account.id, 'bench', ALL_PERMISSIONS)).key;
      await ctx.services.fields.create(account.id, { name: 'Tier', tag: 'tier' });
      for (let from = 0; from < N + 500; from += 1000) {
        const contacts = Array.from({ length: Math.min(1000, N + 500 - from) }, (_, k) => {
          const i = from + k;
          return { phone: numberOf(i, offset), firstName: `Person${i}`, customFields: [{ tag: 'tier', value: i % 3 === 0 ? 'gold' : 'silver' }] };
        });
        const r = await ctx.services.contacts.bulkUpsert(account.id, { contacts });
        if (r.created !== contacts.length) throw new Error(`seeding contacts failed: ${JSON.stringify(r).slice(0, 300)}`);
      }
      const body = (count: number, from: number) => ({
        phoneNumbers: Array.from({ length: count }, (_, i) => numberOf(from + i, offset)),
        messageType: 'text',
        content: { text: `Hello {{contact_first_name}}, your {{tier}} offer from {{company_name}} is ready.` },
        sendernameId: rcs.id,
        campaignName: 'bench',
        batchSize: 1000,
        delayMs: 0,
      });
      const post = async (payload: unknown, idempotencyKey?: string) => {
        const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-API-Key': key, ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) };
        const res = await fetch(`${server.url}/api/rcs/send-batch`, { method: 'POST', headers, body: JSON.stringify(payload) });
        return { status: res.status, body: (await res.json()) as { jobId: string; accepted: number } };
      };
      return { offset, body, post };
    };
    // The first tenant's batch is the first big one of the process: its figures include V8
    // compiling the hot paths. The second tenant's identical batch shows the server warm.
    const first = await tenant('First Co', 0);
    const bench = await tenant('Bench Co', 2 * N);
    const keyed = await tenant('Keyed Co', 4 * N);

    const sentCount = reader.prepare("SELECT count(*) AS n FROM messages WHERE job_id = ? AND status IN ('SENT', 'DELIVERED', 'READ')");
    const waitAllSent = async (jobId: string, total: number, deadlineMs: number, onPoll?: () => void): Promise<boolean> => {
      const end = performance.now() + deadlineMs;
      while (performance.now() < end) {
        onPoll?.();
        if ((sentCount.get(jobId) as { n: number }).n >= total) return true;
        await sleep(2);
      }
      return false;
    };
    let peakRss = process.memoryUsage.rss();
    const sampleRss = () => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    };
    /** One N-recipient batch: time to the 202 and until every message is SENT, from the request. */
    const measure = async (t: Awaited<ReturnType<typeof tenant>>, idempotencyKey?: string) => {
      const t0 = performance.now();
      const res = await t.post(t.body(N, 0), idempotencyKey);
      const acceptMs = performance.now() - t0;
      if (res.status !== 202 || res.body.accepted !== N) throw new Error(`batch answered ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`);
      const done = await waitAllSent(res.body.jobId, N, 60_000, sampleRss);
      const allSentMs = performance.now() - t0;
      if (!done) throw new Error('batch did not finish within 60 s');
      sampleRss();
      await sleep(300); // let the receipts drain before anything else is measured
      return { jobId: res.body.jobId, acceptMs, allSentMs };
    };

    // Warm-up (not measured): statement caches and first-use paths, with a small batch.
    const warm = await first.post(first.body(500, N));
    if (warm.status !== 202) throw new Error(`warm-up batch answered ${warm.status}: ${JSON.stringify(warm.body)}`);
    if (!(await waitAllSent(warm.body.jobId, 500, 30_000))) throw new Error('warm-up batch did not finish');
    await sleep(300);

    const cold = await measure(first);
    const profiler = process.env.BENCH_PROFILE ? await startProfile() : null;
    const { jobId, acceptMs, allSentMs } = await measure(bench);
    if (profiler) await profiler.stop(process.env.BENCH_PROFILE!);
    // The same batch with an Idempotency-Key (a third tenant): the key's claim, commit mark and stored answer.
    const withKey = await measure(keyed, `bench-${Date.now()}`);

    // Check the merge really happened per recipient.
    const sample = reader.prepare("SELECT text FROM messages WHERE job_id = ? AND phone = ?").get(jobId, numberOf(3, bench.offset).slice(1)) as { text: string };
    if (sample.text !== 'Hello Person3, your gold offer from Bench Co is ready.') throw new Error(`merge failed: ${sample.text}`);

    // Baseline: the same rows, one prepared INSERT each, one transaction, same pragmas and indexes.
    const rows = reader.prepare('SELECT * FROM messages WHERE job_id = ?').all(jobId) as Record<string, unknown>[];
    const baseFile = path.join(dataDir, 'baseline.sqlite');
    const base = new SQLite(baseFile);
    base.pragma('journal_mode = WAL');
    base.pragma('synchronous = NORMAL');
    base.pragma('foreign_keys = OFF'); // no accounts/jobs tables here: the rows alone are measured
    const schema = reader.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = 'messages' AND sql IS NOT NULL ORDER BY type DESC").all() as { sql: string }[];
    for (const s of schema) base.exec(s.sql);
    const cols = Object.keys(rows[0]!);
    const ins = base.prepare(`INSERT INTO messages (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`);
    const b0 = performance.now();
    base.transaction(() => {
      for (const r of rows) ins.run({ ...r, id: `${r.id as string}x` });
    })();
    const baselineInsertMs = performance.now() - b0;
    base.close();

    const figures: BatchBenchFigures = {
      recipients: N,
      cold: { acceptMs: cold.acceptMs, allSentMs: cold.allSentMs },
      acceptMs,
      allSentMs,
      messagesPerSecond: Math.round((N / allSentMs) * 1000),
      peakRssMb: Math.round(Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 1048576),
      baselineInsertMs,
      baselineRowsPerSecond: Math.round((N / baselineInsertMs) * 1000),
      withKey: { acceptMs: withKey.acceptMs, allSentMs: withKey.allSentMs },
      pass: acceptMs <= ACCEPT_BAR_MS && allSentMs <= ALL_SENT_BAR_MS,
    };
    if (print) {
      const ms = (n: number) => `${n.toFixed(0).padStart(8)} ms`;
      const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
      console.log(`batch send (${N.toLocaleString('en-US')} recipients, merge fields, batchSize 1000, delayMs 0, simulated network without delays)`);
      console.log(`  node ${process.version}, ${os.cpus().length} cores, load average ${load}`);
      console.log(`  first batch of the process (cold): time to 202 ${cold.acceptMs.toFixed(0)} ms, all SENT ${cold.allSentMs.toFixed(0)} ms`);
      console.log(`  warm server (another tenant's identical batch):`);
      console.log(`  time to 202                     ${ms(acceptMs)}   bar ≤ ${ACCEPT_BAR_MS} ms → ${acceptMs <= ACCEPT_BAR_MS ? 'PASS' : 'FAIL'}`);
      console.log(`  time until all SENT             ${ms(allSentMs)}   bar ≤ ${ALL_SENT_BAR_MS} ms → ${allSentMs <= ALL_SENT_BAR_MS ? 'PASS' : 'FAIL'}  (from the request)`);
      console.log(`  messages/s (accept to all SENT) ${figures.messagesPerSecond.toLocaleString('en-US').padStart(11)}`);
      console.log(`  with Idempotency-Key: time to 202 ${withKey.acceptMs.toFixed(0)} ms, all SENT ${withKey.allSentMs.toFixed(0)} ms (a third tenant's identical batch)`);
      console.log(`  peak RSS                        ${String(figures.peakRssMb).padStart(8)} MB`);
      console.log(`  baseline: raw prepared INSERT   ${ms(baselineInsertMs)}   (${figures.baselineRowsPerSecond.toLocaleString('en-US')} rows/s, same ${N.toLocaleString('en-US')} rows, one transaction)`);
      console.log(`  all SENT / baseline insert      ${(allSentMs / baselineInsertMs).toFixed(1).padStart(8)} ×`);
      console.log(`  result: ${figures.pass ? 'PASS' : 'FAIL'}`);
    }
    return figures;
  } finally {
    reader.close();
    await server.close();
    await stopWorkers(ctx);
    await ctx.database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await run();
  if (!figures.pass) process.exitCode = 1;
}
