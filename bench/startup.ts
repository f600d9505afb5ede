/**
 * Start-up to healthy (DESIGN §8: ≤ 1.5 s, built; issue #31: `npm start` on an unchanged tree
 * ≤ 3 s). Each case is its own process, timed from spawn until GET /api/rcs/health answers 200
 * (the URL taken from the "listening" log line):
 * - **first start**: `node dist/src/main.js` on an empty data directory (migrations, demo account, scrypt, QR);
 * - **second start**: the same on the data the first one left;
 * - **npm start**: `npm start` on the unchanged, already built tree (the README's command; the build
 *   must be skipped — `tsc -b` finds it up to date);
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
  pass: boolean;
}

export async function run(): Promise<StartupFigures> {
  const entry = path.join(PROJECT_ROOT, 'dist/src/main.js');
  if (!fs.existsSync(entry)) throw new Error('Build first: npm run build');
  const f: StartupFigures = { reference: [], first: [], second: [], npmStart: [], pass: false };
  const base = { PORT: '0', LOG_LEVEL: 'info' };
  for (let r = 0; r < ROUNDS; r++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-start-'));
    const npmDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-npm-'));
    try {
      f.reference.push(await timeToHealthy(process.execPath, ['-e', REFERENCE], {}, '/'));
      f.first.push(await timeToHealthy(process.execPath, [entry], { ...base, DATA_DIR: dataDir }, '/api/rcs/health'));
      f.second.push(await timeToHealthy(process.execPath, [entry], { ...base, DATA_DIR: dataDir }, '/api/rcs/health'));
      f.npmStart.push(await timeToHealthy('npm', ['start', '--silent'], { ...base, DATA_DIR: npmDir }, '/api/rcs/health'));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(npmDir, { recursive: true, force: true });
    }
  }
  f.pass = median(f.first) <= BUILT_BAR_MS && median(f.second) <= BUILT_BAR_MS && median(f.npmStart) <= NPM_START_BAR_MS;
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
  console.log(`bar → ${r.pass ? 'PASS' : 'FAIL'}`);
  if (!r.pass) process.exitCode = 1;
}
