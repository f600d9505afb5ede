/**
 * SMPP end to end (issue #31): a 2,000-recipient RCS batch to numbers that cannot receive RCS, so
 * every message falls back to SMS and goes out over SMPP (CARRIER_SMS=smpp), through the real entry
 * point in a child process — accept, dispatcher rounds, the capability check, the fallback, the
 * SMPP adapter's records and submit_sm, the record of each outcome — against the `smpp` package's
 * own client submitting the same 2,000 fallback texts' PDUs with the same window to the same SMSC
 * (the fake SMSC of test/carriers answering at once, in a process of its own; bench/smpp.ts).
 * The server is timed from the POST to the last message SENT (polled on its SQLite file, read-only);
 * the client from its first submit_sm to its last answer, after an unmeasured warm-up of 500. Each
 * pair gets a fresh server (fresh data directory, so the per-recipient throttle starts empty),
 * warmed by a 200-recipient batch first; sides alternate, the order flipped each pair, BENCH_ROUNDS
 * pairs (default 3). Bar: the median of the pairs' client time ÷ server time ≥ 80 %. Exits 1 when missed.
 *
 *   npx tsx bench/smpp-fallback.ts
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { newId } from '../src/platform/ids.js';
import { analyzeSms, splitSms } from '../src/sms/index.js';
import { firstStartKey, startChildServer } from '../test/helpers/child-server.js';
import { libraryRun, pdusOf, startSmscChild } from './smpp.js';
import { median } from './lib/stats.js';
import { diagnosticsAround, diagnosticsNodeArgs, diagnosticsWanted } from './lib/child-diagnostics.js';
import { processCpu } from './pg-trace.js';

const RECIPIENTS = 2_000;
const WARM_UP = 200;
const WINDOW = 10;
const BAR = 0.8;
const FALLBACK_TEXT = 'Your code is 4711. It expires in 10 minutes. Do not share it.';

/** Numbers the simulated RCS network cannot reach with RCS (…9990: falls back to SMS); `prefix`, a German mobile prefix, tells batches apart. */
const numbers = (count: number, prefix: 151 | 152 | 157) => Array.from({ length: count }, (_, i) => `+49${prefix}${String(i).padStart(4, '0')}9990`);

/** One server side: a fresh child server, a warm-up batch, then the measured batch; ms from the POST to all SENT. */
async function serverSide(smscPort: number, diagnose: boolean): Promise<{ total: number; accept: number; cpu: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-smpp-fallback-'));
  const server = await startChildServer({
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    LOG_LEVEL: 'info', // startChildServer waits for the "listening" line
    CARRIER_SMS: 'smpp',
    SMPP_URL: `smpp://rcsapp:s3cret@127.0.0.1:${smscPort}`,
    SMPP_WINDOW: String(WINDOW),
    SIM_DELIVERY_DELAY_MS: '0',
    SIM_READ_DELAY_MS: '0',
    SENDER_MAX_PER_SECOND: '1000000',
  }, 30_000, diagnose ? diagnosticsNodeArgs() : []);
  const db = new Database(path.join(dataDir, 'rcs.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const key = firstStartKey(dataDir);
    const api = async (method: string, pathname: string, body?: unknown) => {
      const res = await fetch(`${server.url}${pathname}`, { method, headers: { 'X-API-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> & { sendernames?: { id: string; type: string; isTest: boolean }[]; jobId?: string; accepted?: number } };
    };
    const senders = (await api('GET', '/api/rcs/senders')).body.sendernames ?? [];
    const rcs = senders.find((s) => s.type === 'RCS' && !s.isTest)!.id;
    const sms = senders.find((s) => s.type === 'SMS' && !s.isTest)!.id;
    const batch = async (phones: string[]) => {
      const cpu0 = processCpu(server.proc.pid!);
      const started = performance.now();
      const r = await api('POST', '/api/rcs/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Your code is 4711.' }, sendernameId: rcs, smsFallback: { message: FALLBACK_TEXT, sendernameId: sms }, batchSize: 1000, delayMs: 0 });
      const accept = performance.now() - started;
      if (r.status !== 202 || r.body.accepted !== phones.length) throw new Error(`batch: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      const pending = db.prepare<[string], { n: number }>('select count(*) as n from messages where job_id = ? and pending = 1');
      for (;;) {
        if (pending.get(r.body.jobId as string)!.n === 0) break;
        await new Promise((res) => setTimeout(res, 2));
      }
      const ms = performance.now() - started;
      const cpu = (processCpu(server.proc.pid!) - cpu0) * 1000;
      const wrong = db.prepare<[string], { n: number }>("select count(*) as n from messages where job_id = ? and not (status in ('SENT', 'DELIVERED', 'READ') and method = 'SMS' and fallback_used = 1)").get(r.body.jobId as string)!.n;
      if (wrong > 0) throw new Error(`${wrong} messages did not go out by the SMS fallback`);
      return { total: ms, accept, cpu };
    };
    await batch(numbers(WARM_UP, 152));
    const around = diagnose ? diagnosticsAround(server) : undefined;
    await around?.before();
    const measured = await batch(numbers(RECIPIENTS, 151));
    await around?.after();
    return measured;
  } finally {
    db.close();
    await server.stop('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The client side in a process of its own: warm-up, then the same 2,000 fallback texts' PDUs; ms, and its CPU ms. */
function clientSide(smscPort: number): Promise<{ total: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--client', String(smscPort)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`client exited ${code}`));
      const [total, cpu] = out.trim().split('\n').pop()!.split(' ').map(Number);
      resolve({ total: total!, cpu: cpu! });
    });
  });
}

function fallbackMessages(phones: string[]) {
  const parts = splitSms(FALLBACK_TEXT).map((p) => p.text);
  return phones.map((to) => ({ messageId: newId('msg'), accountId: 'acc_bench', senderId: 'snd_bench', senderName: 'ACME', to, text: FALLBACK_TEXT, parts, encoding: analyzeSms(FALLBACK_TEXT).encoding }));
}

export async function run(): Promise<{ serverMs: number[]; acceptMs: number[]; clientMs: number[]; serverCpuMs: number[]; clientCpuMs: number[]; ratios: number[]; pass: boolean }> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const { port, child } = await startSmscChild();
  const serverMs: number[] = [];
  const acceptMs: number[] = [];
  const clientMs: number[] = [];
  const serverCpuMs: number[] = [];
  const clientCpuMs: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['client', 'server'] as const) : (['server', 'client'] as const);
      for (const side of order) {
        if (side === 'client') {
          const c = await clientSide(port);
          clientMs.push(c.total);
          clientCpuMs.push(c.cpu);
        } else {
          // BENCH_PROFILE / BENCH_TRACE_SQL: the last pair's measured batch (bench/lib/diagnose-on-signal.ts).
          const s = await serverSide(port, diagnosticsWanted && r === rounds - 1);
          serverMs.push(s.total);
          acceptMs.push(s.accept);
          serverCpuMs.push(s.cpu);
        }
      }
    }
  } finally {
    child.kill();
  }
  const ratios = serverMs.map((s, i) => clientMs[i]! / s);
  return { serverMs, acceptMs, clientMs, serverCpuMs, clientCpuMs, ratios, pass: median(ratios) >= BAR };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--client');
  if (at !== -1) {
    const port = Number(process.argv[at + 1]);
    await libraryRun(port, pdusOf(fallbackMessages(numbers(500, 157))));
    const pdus = pdusOf(fallbackMessages(numbers(RECIPIENTS, 151)));
    const r = await libraryRun(port, pdus);
    process.stdout.write(`${(pdus.length / r.perSecond) * 1000} ${(r.cpuMicros * pdus.length) / 1000}\n`);
  } else {
    const before = os.loadavg();
    const r = await run();
    const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (${xs.map((x) => x.toFixed(0)).join(', ')})`;
    console.log(`SMPP end to end: a ${RECIPIENTS}-recipient RCS batch falling back to SMS over SMPP (window ${WINDOW}, SMSC answering at once), ${r.ratios.length} alternating pairs; load average before ${before.map((l) => l.toFixed(2)).join(' ')}, after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`  server, POST to all SENT by SMS:       ${fmt(r.serverMs)}`);
    console.log(`    of which POST to 202 (the accept):    ${fmt(r.acceptMs)}`);
    console.log(`  smpp client, the same ${RECIPIENTS} submit_sm: ${fmt(r.clientMs)}`);
    console.log(`  CPU, server process (POST to all SENT): ${fmt(r.serverCpuMs)}; client (its submits): ${fmt(r.clientCpuMs)}`);
    console.log(`  client ÷ server per pair: ${r.ratios.map((x) => `${(x * 100).toFixed(0)} %`).join(', ')}; median ${(median(r.ratios) * 100).toFixed(0)} %`);
    console.log(`  bar: ≥ ${BAR * 100} % → ${r.pass ? 'PASS' : 'FAIL'}`);
    if (!r.pass) process.exitCode = 1;
  }
}
