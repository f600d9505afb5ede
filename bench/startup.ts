/**
 * Cold start to ready (DESIGN §8: ≤ 1.5 s, built): spawns the built server (`npm run build` first)
 * and times until it logs "listening" — a first start on an empty data directory (migrations,
 * demo account) and a second start on the same data. Baseline, same run: a bare `node -e` that
 * starts an http server.
 *
 *   npm run build && npx tsx bench/startup.ts
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/platform/paths.js';

function timeToReady(args: string[], env: Record<string, string>, marker: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const proc = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (marker.test(out)) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        proc.kill('SIGTERM');
        proc.once('exit', () => resolve(ms));
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => {
      if (!marker.test(out)) reject(new Error(`exited ${code} before ready:\n${out}`));
    });
  });
}

export async function run(): Promise<{ baselineMs: number; firstMs: number; secondMs: number; pass: boolean }> {
  const entry = path.join(PROJECT_ROOT, 'dist/src/main.js');
  if (!fs.existsSync(entry)) throw new Error('Build first: npm run build');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-bench-start-'));
  const env = { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' };
  const baselineMs = await timeToReady(['-e', "require('http').createServer().listen(0, () => console.log('listening'))"], {}, /listening/);
  const firstMs = await timeToReady([entry], env, /"msg":"listening"/);
  const secondMs = await timeToReady([entry], env, /"msg":"listening"/);
  fs.rmSync(dataDir, { recursive: true, force: true });
  return { baselineMs, firstMs, secondMs, pass: secondMs <= 1500 && firstMs <= 1500 };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  console.log(`bare node http server:        ${r.baselineMs.toFixed(0)} ms (baseline)`);
  console.log(`first start (empty data dir): ${r.firstMs.toFixed(0)} ms (migrations, demo account, scrypt)`);
  console.log(`second start:                 ${r.secondMs.toFixed(0)} ms`);
  console.log(`bar: ready ≤ 1500 ms → ${r.pass ? 'PASS' : 'FAIL'}`);
}
