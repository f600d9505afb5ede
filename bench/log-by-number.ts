/**
 * The message log filtered by one number (GET {messages_url}/log?phoneNumber=, rcs_message_log):
 * the number's own messages, found through (account_id, phone, created_at), however many messages
 * the account has in the range. Without statistics SQLite preferred walking (account_id,
 * created_at, id), which gives the log's order without a sort, over every message of the range
 * (docs/decisions.md, "Session 9").
 *
 * Setup (not measured): one account with ROWS messages over the last six days, to 100,000
 * numbers; the looked-up numbers have three messages each. Measured through the log service
 * (`ctx.services.log.list`, what the REST route and the tool call), medians of QUERIES calls,
 * alternating: a page filtered by a number (default 7-day range) against the baseline, the same
 * service answering a look-up by message id (the primary key). Bar: by number ≤ 3 × by id.
 *
 * SQLite file by default; BENCH_DATABASE=postgres runs it on a fresh database of the local
 * PostgreSQL server (POSTGRES_ADMIN_URL).
 *
 * Run: npx tsx bench/log-by-number.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
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


export async function run(options: { rows?: number; queries?: number; print?: boolean } = {}): Promise<LogByNumberFigures> {
  const rows = options.rows ?? 300_000;
  const queries = options.queries ?? 200;
  const print = options.print ?? true;
  const onPg = process.env.BENCH_DATABASE === 'postgres';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-log-'));
  const pgDb = onPg ? await createTestDatabase('bench_log') : null;
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', SEED_DEMO: 'false', ...(pgDb ? { DATABASE_URL: pgDb.url } : {}) });
  const ctx = await createContext(config, { logger: createLogger('silent') });
  try {
    const account = await ctx.services.accounts.create({ name: 'Bench log', timezone: 'Europe/Berlin', credits: 1000, companyProfile: { company_name: 'Bench log' } });
    const sender = await ctx.services.senders.create(account.id, { name: 'BENCHLOG', type: 'SMS', status: 'APPROVED', isDefault: true });
    const now = Date.now();
    const phoneOf = (i: number) => `49151${String(i % NUMBERS).padStart(7, '0')}`;
    const ids: string[] = [];
    const seedStarted = performance.now();
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
    const seedMs = performance.now() - seedStarted;
    if (onPg) await ctx.db.executeQuery(sql`analyze messages`.compile(ctx.db));

    const byNumber: number[] = [];
    const byId: number[] = [];
    for (let q = 0; q < queries; q++) {
      const phone = `+${phoneOf((q * 104_729) % NUMBERS)}`;
      let t = performance.now();
      const page = await ctx.services.log.list(account.id, { phoneNumber: phone });
      byNumber.push(performance.now() - t);
      if (page.messages.length !== Math.ceil(rows / NUMBERS)) throw new Error(`expected ${Math.ceil(rows / NUMBERS)} messages for ${phone}, got ${page.messages.length}`);
      t = performance.now();
      const one = await ctx.services.log.list(account.id, { messageId: ids[q % ids.length] });
      byId.push(performance.now() - t);
      if (one.messages.length !== 1) throw new Error('look-up by id found nothing');
    }
    const figures: LogByNumberFigures = {
      database: onPg ? 'postgres' : 'sqlite',
      rows,
      byNumberMs: Number(median(byNumber).toFixed(3)),
      byIdMs: Number(median(byId).toFixed(3)),
      ratio: 0,
      pass: false,
    };
    figures.ratio = Number((figures.byNumberMs / figures.byIdMs).toFixed(2));
    figures.pass = figures.ratio <= BAR;
    if (print) {
      const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
      console.log(`Message log by number on ${figures.database}: ${rows.toLocaleString('en')} messages of one account over 6 days to ${NUMBERS.toLocaleString('en')} numbers (seeded in ${(seedMs / 1000).toFixed(1)} s), ${queries} calls each, alternating; node ${process.version}, load avg ${load}`);
      console.log(`  by number (${Math.ceil(rows / NUMBERS)} messages, 7-day range)  median ${figures.byNumberMs} ms`);
      console.log(`  by message id (baseline)              median ${figures.byIdMs} ms`);
      console.log(`  by number / by id ${figures.ratio} × (bar ≤ ${BAR} ×)`);
      console.log(`  result: ${figures.pass ? 'PASS' : 'FAIL'}`);
    }
    return figures;
  } finally {
    await ctx.database.close();
    await pgDb?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await run();
  if (!figures.pass) process.exitCode = 1;
}
