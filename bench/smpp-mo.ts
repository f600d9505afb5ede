/**
 * Incoming SMS over SMPP (issue #19): what putting concatenated messages together in the database
 * costs. Since the parts of one message may reach different instances, each part is stored under a
 * lock on its message (smpp_mo_parts) before `deliver_sm_resp`, and the instance that stores the
 * last part hands the message to the inbound path; before, parts waited in the bind's memory.
 *
 * Measured, on a server with the SMPP adapter and the local test SMSC (test/carriers/fake-smsc.ts,
 * in-process), 20 `deliver_sm` outstanding: one-part messages (deliver_sm → inbound path: message
 * row, contact, opt-out keywords) against two-part messages (two deliver_sm, each stored, the second
 * completing it → the same inbound path), until every message is a row of `messages`. Each side
 * runs in a process of its own (this script with `--case`: a fresh server and SMSC, an unmeasured
 * warm-up round, one measured round), alternating in BENCH_ROUNDS pairs (default 5), the order
 * flipped each pair. (Before issue #31 both ran in one process, one server, alternating rounds.)
 * Bar, on the median of the pairs' ratios: a two-part message costs at most twice a one-part one
 * (two-part messages/s ≥ 50 % of one-part messages/s), i.e. storing and joining its parts costs no
 * more than the whole inbound path does.
 *
 * SQLite file by default; BENCH_DATABASE=postgres runs it on a fresh database of the local
 * PostgreSQL server (POSTGRES_ADMIN_URL).
 *
 * Run: npx tsx bench/smpp-mo.ts
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SmppCarrier } from '../src/carriers/smpp/carrier.js';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { createLogger } from '../src/platform/logger.js';
import { startHttp } from '../src/server.js';
import { startWorkers, stopWorkers } from '../src/workers.js';
import { startFakeSmsc } from '../test/carriers/fake-smsc.js';
import { createTestDatabase } from '../test/helpers/pg-database.js';
import { median } from './lib/stats.js';

export const RATIO_BAR = 0.5;
const CONCURRENCY = 20;

export interface SmppMoFigures {
  database: 'sqlite' | 'postgres';
  /** Messages (rows of `messages`) per second. */
  onePartPerSecond: number;
  twoPartPerSecond: number;
  /** The median over the pairs of two-part ÷ one-part messages/s: the bar. */
  ratio: number;
  pass: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Kind = 'one-part' | 'two-part';

/**
 * One side of one pair, in this process: a fresh server with the SMPP adapter bound to the local
 * test SMSC (in this process too), an unmeasured warm-up round of the same kind (the first round
 * ran 30–40 % slower while V8 compiled the path), then one measured round; messages/s.
 */
async function measureCase(kind: Kind, N: number): Promise<number> {
  const onPg = process.env.BENCH_DATABASE === 'postgres';
  const smsc = await startFakeSmsc();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-smpp-mo-'));
  const pgDb = onPg ? await createTestDatabase('bench_mo') : null;
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    CARRIER_SMS: 'smpp',
    SMPP_URL: smsc.url(),
    ...(pgDb ? { DATABASE_URL: pgDb.url } : {}),
  });
  const { ctx, server } = await startHttp(config, (c) => createContext(c, { logger: createLogger('silent') }), 0, '127.0.0.1');
  await startWorkers(ctx);
  try {
    const account = await ctx.services.accounts.create({ name: 'Bench MO', timezone: 'Europe/Berlin', credits: 1000, companyProfile: { company_name: 'Bench MO' } });
    await ctx.services.senders.create(account.id, { name: 'BENCHMO', type: 'SMS', status: 'APPROVED', isDefault: true });
    const carrier = ctx.carriers.sms as SmppCarrier;
    for (let i = 0; !carrier.isBound(); i += 1) {
      if (i > 500) throw new Error('SMPP adapter did not bind');
      await sleep(10);
    }
    let offset = 0;
    // The round's rows only, through (account_id, created_at, id): a count over the whole table,
    // polled, would slow the measured writes more as the rounds add rows.
    const inboundSince = async (since: number) =>
      Number(
        (await ctx.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', account.id).where('created_at', '>=', since).where('direction', '=', 'INBOUND').executeTakeFirstOrThrow()).n,
      );

    /** Sends `pdus` with CONCURRENCY outstanding; resolves with messages/s once the round's `messages` inbound rows exist. */
    const measure = async (pdus: Array<() => Promise<number>>, messages: number): Promise<number> => {
      const since = Date.now();
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < pdus.length) {
            const status = await pdus[next++]!();
            if (status !== 0) throw new Error(`deliver_sm answered ${status}`);
          }
        }),
      );
      while ((await inboundSince(since)) < messages) await sleep(10);
      return messages / ((performance.now() - started) / 1000);
    };

    const from = (i: number) => `+49151${String(60_000_000 + i).padStart(8, '0')}`;
    const onePart = (n: number) => {
      const base = offset;
      offset += n;
      return Array.from({ length: n }, (_, i) => () => smsc.mo(from(base + i), 'BENCHMO', `When do you open tomorrow? (${base + i})`));
    };
    const twoPart = (n: number) => {
      const base = offset;
      offset += n;
      // Part 2 before part 1 for half of them: arrival order does not matter to the store.
      return Array.from({ length: n }, (_, i) => {
        const ref = (base + i) % 256;
        const first = () => smsc.mo(from(base + i), 'BENCHMO', `Hello, I would like to move my delivery `, { concat: { ref, total: 2, seq: 1 } });
        const second = () => smsc.mo(from(base + i), 'BENCHMO', `to Friday afternoon, please. (${base + i})`, { concat: { ref, total: 2, seq: 2 } });
        return i % 2 === 0 ? [first, second] : [second, first];
      }).flat();
    };
    const round = kind === 'one-part' ? onePart : twoPart;
    await measure(round(N), N); // warm-up, not measured
    const perSecond = await measure(round(N), N);
    const left = Number((await ctx.db.selectFrom('smpp_mo_parts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    if (left !== 0) throw new Error(`${left} parts left in smpp_mo_parts`);
    return perSecond;
  } finally {
    await server.close();
    await stopWorkers(ctx);
    await ctx.database.close();
    await smsc.close();
    await pgDb?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One side in a process of its own (this script with --case), so neither inherits the other's JIT, heap or tables. */
function caseInChild(kind: Kind, N: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--case', kind, String(N)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(Number(out.trim().split('\n').pop())) : reject(new Error(`smpp-mo --case ${kind} exited ${code}`))));
  });
}

export async function run(options: { messages?: number; rounds?: number; print?: boolean } = {}): Promise<SmppMoFigures> {
  const N = options.messages ?? 1000;
  const rounds = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 5);
  const print = options.print ?? true;
  const before = os.loadavg();
  const one: number[] = [];
  const two: number[] = [];
  // Pairs, the order flipped each pair, so drift on a shared machine hits both alike.
  for (let r = 0; r < rounds; r += 1) {
    const order: Kind[] = r % 2 === 0 ? ['one-part', 'two-part'] : ['two-part', 'one-part'];
    for (const kind of order) (kind === 'one-part' ? one : two).push(await caseInChild(kind, N));
  }
  const pairRatios = two.map((t, i) => t / one[i]!);
  const figures: SmppMoFigures = {
    database: process.env.BENCH_DATABASE === 'postgres' ? 'postgres' : 'sqlite',
    onePartPerSecond: Math.round(median(one)),
    twoPartPerSecond: Math.round(median(two)),
    ratio: median(pairRatios),
    pass: false,
  };
  figures.pass = figures.ratio >= RATIO_BAR;
  if (print) {
    const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
    const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
    console.log(`SMPP incoming messages on ${figures.database}, ${N} messages per round, ${rounds} alternating pairs (each side a fresh server in a process of its own), ${CONCURRENCY} deliver_sm outstanding; node ${process.version}`);
    console.log(`  load average before ${load(before)}, after ${load(os.loadavg())}`);
    console.log(`  one-part messages   messages/s per pair ${one.map((x) => Math.round(x)).join(', ')}  median ${figures.onePartPerSecond} (${figures.onePartPerSecond} deliver_sm/s)`);
    console.log(`  two-part messages   messages/s per pair ${two.map((x) => Math.round(x)).join(', ')}  median ${figures.twoPartPerSecond} (${figures.twoPartPerSecond * 2} deliver_sm/s)`);
    console.log(`  two-part ÷ one-part per pair ${pairRatios.map(pct).join(', ')}: median ${pct(figures.ratio)} (${pct(Math.min(...pairRatios))}–${pct(Math.max(...pairRatios))}), bar ≥ ${RATIO_BAR * 100} %`);
    console.log(`  result: ${figures.pass ? 'PASS' : 'FAIL'}`);
  }
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argCase = process.argv.indexOf('--case');
  if (argCase !== -1) {
    const kind = process.argv[argCase + 1];
    if (kind !== 'one-part' && kind !== 'two-part') throw new Error('--case one-part|two-part <messages>');
    process.stdout.write(`${await measureCase(kind, Number(process.argv[argCase + 2] ?? 1000))}\n`);
  } else {
    const figures = await run();
    if (!figures.pass) process.exitCode = 1;
  }
}
