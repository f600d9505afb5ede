/**
 * The message log filtered by one number (GET {messages_url}/log?phoneNumber=, rcs_message_log):
 * the number's own messages, found through (account_id, phone, created_at), however many messages
 * the account has in the range. Without statistics SQLite preferred walking (account_id,
 * created_at, id), which gives the log's order without a sort, over every message of the range
 * (docs/decisions.md, "Session 9").
 *
 * Setup (not measured): one account with ROWS messages over the last six days, to 100,000
 * numbers; the looked-up numbers have three messages each. Measured through the log service
 * (`ctx.services.log.list`, what the REST route and the tool call), QUERIES calls per side: a page
 * filtered by a number (default 7-day range) against the reference, the same service answering a
 * look-up by message id (the primary key). Each side runs in a process of its own on the seeded
 * database (this script with `--side`, an unmeasured warm-up of 20 calls), alternating in
 * BENCH_ROUNDS pairs (default 3), the order flipped each pair. Bar: the median over the pairs of
 * by number ÷ by id (each a median of its calls) ≤ 3 ×. (Before issue #31 both alternated call
 * by call in one process.)
 *
 * SQLite file by default; BENCH_DATABASE=postgres runs it on a fresh database of the local
 * PostgreSQL server (POSTGRES_ADMIN_URL).
 *
 * Run: npx tsx bench/log-by-number.ts
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { insertRowsAsJson } from '../src/platform/db/bulk.js';
import { createLogger } from '../src/platform/logger.js';
import { createTestDatabase } from '../test/helpers/pg-database.js';
import { median } from './lib/stats.js';

export const BAR = 3;
const NUMBERS = 100_000;
const DAY = 86_400_000;

export interface LogByNumberFigures {
  database: 'sqlite' | 'postgres';
  rows: number;
  /** Median milliseconds per call. */
  byNumberMs: number;
  byIdMs: number;
  ratio: number;
  pass: boolean;
}


type Side = 'number' | 'id';

interface Seeded {
  config: { DATA_DIR: string; DATABASE_URL?: string };
  accountId: string;
  ids: string[];
  rows: number;
  queries: number;
}

const phoneOf = (i: number) => `49151${String(i % NUMBERS).padStart(7, '0')}`;

/**
 * One side in this process, on the database the parent seeded: QUERIES calls of the log service,
 * after an unmeasured warm-up of 20 (JIT, statement caches, the first pages); milliseconds per call.
 */
async function measureSide(side: Side, seeded: Seeded): Promise<number[]> {
  const config = loadConfig({ ...seeded.config, PORT: '0', LOG_LEVEL: 'silent', SEED_DEMO: 'false' });
  const ctx = await createContext(config, { logger: createLogger('silent') });
  try {
    const expected = Math.ceil(seeded.rows / NUMBERS);
    const call = async (q: number) => {
      if (side === 'number') {
        const phone = `+${phoneOf((q * 104_729) % NUMBERS)}`;
        const page = await ctx.services.log.list(seeded.accountId, { phoneNumber: phone });
        if (page.messages.length !== expected) throw new Error(`expected ${expected} messages for ${phone}, got ${page.messages.length}`);
      } else {
        const one = await ctx.services.log.list(seeded.accountId, { messageId: seeded.ids[q % seeded.ids.length] });
        if (one.messages.length !== 1) throw new Error('look-up by id found nothing');
      }
    };
    for (let q = 0; q < 20; q++) await call(seeded.queries + q);
    const ms: number[] = [];
    for (let q = 0; q < seeded.queries; q++) {
      const t = performance.now();
      await call(q);
      ms.push(performance.now() - t);
    }
    return ms;
  } finally {
    await ctx.database.close();
  }
}

/** One side in a process of its own (this script with --side and the seeded database in a file). */
function sideInChild(side: Side, seededFile: string): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--side', side, seededFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as number[]) : reject(new Error(`log-by-number --side ${side} exited ${code}`))));
  });
}

export async function run(options: { rows?: number; queries?: number; rounds?: number; print?: boolean } = {}): Promise<LogByNumberFigures> {
  const rows = options.rows ?? 300_000;
  const queries = options.queries ?? 200;
  const rounds = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3);
  const print = options.print ?? true;
  const onPg = process.env.BENCH_DATABASE === 'postgres';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-log-'));
  const pgDb = onPg ? await createTestDatabase('bench_log') : null;
  const seededConfig = { DATA_DIR: dataDir, ...(pgDb ? { DATABASE_URL: pgDb.url } : {}) };
  try {
    // Setup (not measured), in this process: the account and its messages; then closed.
    const config = loadConfig({ ...seededConfig, PORT: '0', LOG_LEVEL: 'silent', SEED_DEMO: 'false' });
    const ctx = await createContext(config, { logger: createLogger('silent') });
    const ids: string[] = [];
    let accountId = '';
    const seedStarted = performance.now();
    try {
      const account = await ctx.services.accounts.create({ name: 'Bench log', timezone: 'Europe/Berlin', credits: 1000, companyProfile: { company_name: 'Bench log' } });
      accountId = account.id;
      const sender = await ctx.services.senders.create(account.id, { name: 'BENCHLOG', type: 'SMS', status: 'APPROVED', isDefault: true });
      const now = Date.now();
      for (let from = 0; from < rows; from += 10_000) {
        const chunk = [];
        for (let i = from; i < Math.min(rows, from + 10_000); i++) {
          const id = `msg_${String(i).padStart(26, '0')}`;
          const created = now - 60_000 - Math.floor(((i * 7919) % rows) / rows * 6 * DAY);
          if (i % 1000 === 0) ids.push(id);
          chunk.push({ id, account_id: account.id, type: 'SMS', status: 'DELIVERED', direction: 'OUTBOUND', source: 'API_MESSAGE', phone: phoneOf(i), country: 'DE', sendername_id: sender.id, text: 'Your order has shipped.', created_at: created, sent_at: created, delivered_at: created, pending: 0, due_at: created });
        }
        await insertRowsAsJson(ctx.db, 'messages', chunk);
      }
      if (onPg) await ctx.db.executeQuery(sql`analyze messages`.compile(ctx.db));
    } finally {
      await ctx.database.close();
    }
    const seedMs = performance.now() - seedStarted;
    const seededFile = path.join(dataDir, 'seeded.json');
    fs.writeFileSync(seededFile, JSON.stringify({ config: seededConfig, accountId, ids, rows, queries } satisfies Seeded));

    // Pairs, the order flipped each pair, each side in a process of its own.
    const before = os.loadavg();
    const byNumber: number[][] = [];
    const byId: number[][] = [];
    for (let r = 0; r < rounds; r++) {
      const order: Side[] = r % 2 === 0 ? ['number', 'id'] : ['id', 'number'];
      for (const side of order) (side === 'number' ? byNumber : byId).push(await sideInChild(side, seededFile));
    }
    const pairRatios = byNumber.map((n, i) => median(n) / median(byId[i]!));
    const figures: LogByNumberFigures = {
      database: onPg ? 'postgres' : 'sqlite',
      rows,
      byNumberMs: Number(median(byNumber.flat()).toFixed(3)),
      byIdMs: Number(median(byId.flat()).toFixed(3)),
      ratio: Number(median(pairRatios).toFixed(2)),
      pass: false,
    };
    figures.pass = figures.ratio <= BAR;
    if (print) {
      const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
      const perPair = (xs: number[][]) => xs.map((x) => median(x).toFixed(3)).join(', ');
      console.log(`Message log by number on ${figures.database}: ${rows.toLocaleString('en')} messages of one account over 6 days to ${NUMBERS.toLocaleString('en')} numbers (seeded in ${(seedMs / 1000).toFixed(1)} s); node ${process.version}`);
      console.log(`  ${rounds} alternating pairs of ${queries} calls each, each side in a process of its own; load average before ${load(before)}, after ${load(os.loadavg())}`);
      console.log(`  by number (${Math.ceil(rows / NUMBERS)} messages, 7-day range)  median ${figures.byNumberMs} ms   (per pair ${perPair(byNumber)})`);
      console.log(`  by message id (reference)             median ${figures.byIdMs} ms   (per pair ${perPair(byId)})`);
      console.log(`  by number ÷ by id, median of the pairs ${figures.ratio} × (${Math.min(...pairRatios).toFixed(2)}–${Math.max(...pairRatios).toFixed(2)}; bar ≤ ${BAR} ×)`);
      console.log(`  result: ${figures.pass ? 'PASS' : 'FAIL'}`);
    }
    return figures;
  } finally {
    await pgDb?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const argSide = process.argv.indexOf('--side');
if (argSide !== -1) {
  const side = process.argv[argSide + 1];
  if (side !== 'number' && side !== 'id') throw new Error('--side number|id <seeded.json>');
  const seeded = JSON.parse(fs.readFileSync(process.argv[argSide + 2]!, 'utf8')) as Seeded;
  process.stdout.write(`${JSON.stringify(await measureSide(side, seeded))}\n`);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await run();
  if (!figures.pass) process.exitCode = 1;
}
