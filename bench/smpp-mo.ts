/**
 * Incoming SMS over SMPP (issue #19): what putting concatenated messages together in the database
 * costs. Since the parts of one message may reach different instances, each part is stored under a
 * lock on its message (smpp_mo_parts) before `deliver_sm_resp`, and the instance that stores the
 * last part hands the message to the inbound path; before, parts waited in the bind's memory.
 *
 * Measured, on a server with the SMPP adapter and the local test SMSC (test/carriers/fake-smsc.ts,
 * in-process), 20 `deliver_sm` outstanding: one-part messages (deliver_sm → inbound path: message
 * row, contact, opt-out keywords) against two-part messages (two deliver_sm, each stored, the second
 * completing it → the same inbound path), until every message is a row of `messages`, alternating
 * rounds, medians. Bar: a two-part message costs at most twice a one-part one (two-part messages/s
 * ≥ 50 % of one-part messages/s), i.e. storing and joining its parts costs no more than the whole
 * inbound path does.
 *
 * SQLite file by default; BENCH_DATABASE=postgres runs it on a fresh database of the local
 * PostgreSQL server (POSTGRES_ADMIN_URL).
 *
 * Run: npx tsx bench/smpp-mo.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
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
  /** twoPartPerSecond / onePartPerSecond: the bar. */
  ratio: number;
  pass: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(options: { messages?: number; rounds?: number; print?: boolean } = {}): Promise<SmppMoFigures> {
  const N = options.messages ?? 1000;
  const rounds = options.rounds ?? 5;
  const print = options.print ?? true;
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

    // Warm-up (not measured): both paths, a full round each (the first round of either ran
    // 30–40 % slower while V8 compiled the paths).
    await measure(onePart(N), N);
    await measure(twoPart(N), N);

    const one: number[] = [];
    const two: number[] = [];
    for (let r = 0; r < rounds; r += 1) {
      one.push(await measure(onePart(N), N));
      two.push(await measure(twoPart(N), N));
    }
    const figures: SmppMoFigures = {
      database: onPg ? 'postgres' : 'sqlite',
      onePartPerSecond: Math.round(median(one)),
      twoPartPerSecond: Math.round(median(two)),
      ratio: median(two) / median(one),
      pass: false,
    };
    figures.pass = figures.ratio >= RATIO_BAR;
    const left = Number((await ctx.db.selectFrom('smpp_mo_parts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    if (left !== 0) throw new Error(`${left} parts left in smpp_mo_parts`);
    if (print) {
      const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
      console.log(`SMPP incoming messages on ${figures.database}, ${N} messages per round, ${rounds} rounds alternating, ${CONCURRENCY} deliver_sm outstanding; node ${process.version}, load avg ${load}`);
      console.log(`  one-part messages   messages/s per round ${one.map((x) => Math.round(x)).join(', ')}  median ${figures.onePartPerSecond} (${figures.onePartPerSecond} deliver_sm/s)`);
      console.log(`  two-part messages   messages/s per round ${two.map((x) => Math.round(x)).join(', ')}  median ${figures.twoPartPerSecond} (${figures.twoPartPerSecond * 2} deliver_sm/s)`);
      console.log(`  two-part / one-part ${(figures.ratio * 100).toFixed(0)} % messages/s (bar ≥ ${RATIO_BAR * 100} %)`);
      console.log(`  result: ${figures.pass ? 'PASS' : 'FAIL'}`);
    }
    return figures;
  } finally {
    await server.close();
    await stopWorkers(ctx);
    await ctx.database.close();
    await smsc.close();
    await pgDb?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await run();
  if (!figures.pass) process.exitCode = 1;
}
