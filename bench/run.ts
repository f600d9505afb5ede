/**
 * Runs every benchmark in bench/ (each *.ts file here except this one), one after another, each
 * in its own Node process so that memory figures and event-loop timings do not leak between
 * them. Prints each bench's own report, then a summary; exits 1 when any bench missed its bar.
 *
 * Run: npm run bench            (or: npx tsx bench/run.ts [name …] to run only some, e.g. batch)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2).map((a) => a.replace(/\.ts$/, ''));
const scripts = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f !== 'run.ts')
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.ts$/, '')))
  .sort();

function runOne(file: string): Promise<{ code: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, file)], { stdio: 'inherit', env: process.env });
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), ms: performance.now() - started }));
  });
}

const results: { file: string; code: number; ms: number }[] = [];
for (const file of scripts) {
  console.log(`\n=== bench/${file} ===`);
  results.push({ file, ...(await runOne(file)) });
}
console.log('\n=== summary ===');
for (const r of results) console.log(`  ${r.code === 0 ? 'PASS' : 'FAIL'}  bench/${r.file}  (${(r.ms / 1000).toFixed(1)} s)`);
if (results.length === 0) console.log('  no bench scripts found');
if (results.some((r) => r.code !== 0)) process.exitCode = 1;
