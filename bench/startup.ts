/**
 * Start-up to healthy (DESIGN §8: ≤ 1.5 s, built; issue #31: `npm start` on an unchanged tree
 * ≤ 3 s). Each case is its own process, timed from spawn until GET /api/rcs/health answers 200
 * (the URL taken from the "listening" log line):
 * - **first start**: `node dist/server.mjs` (what `npm start` runs: the server in one file, scripts/bundle.mjs) on
 *   an empty data directory (migrations, demo account, scrypt, QR);
 * - **second start**: the same on the data the first one left;
 * - **npm start**: `npm start` on the unchanged, already built tree (the README's command; the build
 *   and the bundle must be skipped — scripts/start.mjs finds them up to date);
 * - **300k messages** (issue #31): a start on a database holding 300,000 messages (sent and delivered
 *   over the last days, 1,000 scheduled for later) and 2,000 more claimed by a process that was killed
 *   (its `instances` row left behind, its pid no longer running): the start gives those back and
 *   sends them. Seeded once with SQL before the rounds; the claims are put back before each round;
 * - **reference**: a bare `node -e` http server, answering 200 the same way.
 * The cases alternate (reference, first, second, npm start) for BENCH_ROUNDS rounds (default 3);
 * medians and the spread are printed; exits 1 when a median misses its bar.
 *
 *   npm run build && npx tsx bench/startup.ts
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { thisHost } from '../src/platform/instances/identity.js';
import { request } from 'undici';
import { PROJECT_ROOT } from '../src/platform/paths.js';
import { median } from './lib/stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BUILT_BAR_MS = 1500;
const NPM_START_BAR_MS = 3000;
const REFERENCE = "require('http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log(JSON.stringify({ msg: 'listening', url: 'http://127.0.0.1:' + this.address().port })) })";

/** Spawns `cmd args` in its own process group, resolves with the ms from spawn to a 200 from its health URL, then stops the group. */
function timeToHealthy(cmd: string, args: string[], env: Record<string, string>, healthPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    // detached: `npm start` runs node under a shell; the whole group is stopped, not just npm.
    const proc = spawn(cmd, args, { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let probing = false;
    const stop = () => {
      try {
        process.kill(-proc.pid!, 'SIGTERM');
      } catch {
        /* already gone */
      }
    };
    const probe = async (url: string) => {
      for (;;) {
        try {
          const res = await request(`${url}${healthPath}`);
          await res.body.dump();
          if (res.statusCode === 200) break;
        } catch {
          /* not accepting yet */
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      proc.once('exit', () => resolve(ms));
      stop();
    };
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /"msg":"listening"[^\n]*?"url":"([^"]+)"|"url":"([^"]+)"[^\n]*?"msg":"listening"/.exec(out);
      if (m && !probing) {
        probing = true;
        void probe(m[1] ?? m[2]!);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => {
      if (!probing) reject(new Error(`${cmd} ${args.join(' ')} exited ${code} before it was healthy:\n${out}`));
    });
  });
}

export interface StartupFigures {
  reference: number[];
  first: number[];
  second: number[];
  npmStart: number[];
  large: number[];
  pass: boolean;
}

const LARGE_MESSAGES = 300_000;
const LARGE_CLAIMED = 2_000;
const DEAD_INSTANCE = `${os.hostname()}:999999:deadbeef`;

/** 300,000 messages in the database the first start made in `dataDir` (see the header). */
function seedLarge(dataDir: string): void {
  const db = new Database(path.join(dataDir, 'rcs.sqlite'));
  try {
    const now = Date.now();
    const account = (db.prepare('select id from accounts limit 1').get() as { id: string }).id;
    const sender = (db.prepare('select id from senders where account_id = ? limit 1').get(account) as { id: string }).id;
    db.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${LARGE_MESSAGES + LARGE_CLAIMED})
       insert into messages (id, account_id, type, status, direction, source, phone, country, sendername_id, message_type, content, text,
         credits_cost_milli, method, carrier_message_id, created_at, sent_at, delivered_at, pending, due_at, attempts)
       select printf('msg_bench%07d', i), ?, 'RCS', 'DELIVERED', 'OUTBOUND', 'API', printf('4915%08d', i), 'DE', ?, 'text', '{"text":"Hello"}', 'Hello',
         35, 'RCS', printf('sim_bench%07d', i), ? - i * 1000, ? - i * 1000 + 50, ? - i * 1000 + 900, 0, ? - i * 1000, 1 from n`,
    ).run(account, sender, now, now, now, now);
    // 1,000 scheduled for tomorrow (the dispatcher's idle query sees them).
    const n = (db.prepare('select count(*) as n from messages').get() as { n: number }).n;
    if (n < LARGE_MESSAGES + LARGE_CLAIMED) throw new Error(`seeded ${n} messages, not ${LARGE_MESSAGES + LARGE_CLAIMED}`);
    db.prepare(`update messages set status = 'SCHEDULED', pending = 1, sent_at = null, delivered_at = null, carrier_message_id = null, due_at = ?, scheduled_at = ? where id > 'msg_bench0301000'`).run(now + 86_400_000, now + 86_400_000);
  } finally {
    db.close();
  }
}

/** Before each large round: 2,000 messages claimed by an instance of this host whose process has ended. */
function claimByDeadInstance(dataDir: string): void {
  const db = new Database(path.join(dataDir, 'rcs.sqlite'));
  try {
    const now = Date.now();
    db.prepare(`update messages set status = 'SENDING', pending = 1, sent_at = null, delivered_at = null, carrier_message_id = null, due_at = ?, lease_until = ?, claimed_by = ? where id > 'msg_bench0300000' and id <= 'msg_bench0301000' or id <= 'msg_bench0001000'`).run(now - 1000, now + 30_000, DEAD_INSTANCE);
    db.prepare('delete from sim_messages where message_id > ? and message_id <= ? or message_id <= ?').run('msg_bench0300000', 'msg_bench0301000', 'msg_bench0001000');
    db.prepare('insert or replace into instances (id, host, pid, started_at, heartbeat_at) values (?, ?, 999999, ?, ?)').run(DEAD_INSTANCE, thisHost(), now - 60_000, now - 1000);
  } finally {
    db.close();
  }
}

export async function run(): Promise<StartupFigures> {
  const entry = path.join(PROJECT_ROOT, 'dist/server.mjs');
  if (!fs.existsSync(entry)) throw new Error('Build first: npm run build');
  const f: StartupFigures = { reference: [], first: [], second: [], npmStart: [], large: [], pass: false };
  const base = { PORT: '0', LOG_LEVEL: 'info' };
  const largeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-large-'));
  await timeToHealthy(process.execPath, [entry], { ...base, DATA_DIR: largeDir }, '/api/rcs/health');
  seedLarge(largeDir);
  for (let r = 0; r < ROUNDS; r++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-start-'));
    const npmDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-npm-'));
    try {
      f.reference.push(await timeToHealthy(process.execPath, ['-e', REFERENCE], {}, '/'));
      f.first.push(await timeToHealthy(process.execPath, [entry], { ...base, DATA_DIR: dataDir }, '/api/rcs/health'));
      f.second.push(await timeToHealthy(process.execPath, [entry], { ...base, DATA_DIR: dataDir }, '/api/rcs/health'));
      f.npmStart.push(await timeToHealthy('npm', ['start', '--silent'], { ...base, DATA_DIR: npmDir }, '/api/rcs/health'));
      claimByDeadInstance(largeDir);
      f.large.push(await timeToHealthy(process.execPath, [entry], { ...base, DATA_DIR: largeDir }, '/api/rcs/health'));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(npmDir, { recursive: true, force: true });
    }
  }
  fs.rmSync(largeDir, { recursive: true, force: true });
  f.pass = median(f.first) <= BUILT_BAR_MS && median(f.second) <= BUILT_BAR_MS && median(f.npmStart) <= NPM_START_BAR_MS && median(f.large) <= BUILT_BAR_MS;
  return f;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  const show = (xs: number[]) => `median ${median(xs).toFixed(0).padStart(5)} ms  (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
  console.log(`start-up to healthy, ${ROUNDS} alternating rounds, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, ${os.cpus().length} cores`);
  console.log(`bare node http server (reference):      ${show(r.reference)}`);
  console.log(`first start (empty data dir):           ${show(r.first)}   bar ≤ ${BUILT_BAR_MS} ms`);
  console.log(`second start:                           ${show(r.second)}   bar ≤ ${BUILT_BAR_MS} ms`);
  console.log(`npm start, unchanged tree (first start): ${show(r.npmStart)}   bar ≤ ${NPM_START_BAR_MS} ms`);
  console.log(`start on 300k messages, 2k to take over:  ${show(r.large)}   bar ≤ ${BUILT_BAR_MS} ms`);
  console.log(`bar → ${r.pass ? 'PASS' : 'FAIL'}`);
  if (!r.pass) process.exitCode = 1;
}
