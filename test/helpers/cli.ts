import { buildSync } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/paths.js';

/**
 * The admin CLI's entry, for tests that run it in a child process as an operator would. Each run
 * through tsx (`node --import tsx src/cli.ts`) spent ~2–3 s loading 300 TypeScript files through
 * the loader, and the CLI tests run it dozens of times; this bundles src/cli.ts once per test
 * process with esbuild (the same sources, npm packages left external, so the native SQLite driver is
 * the installed one) and each run takes ~1 s. The bundle sits under node_modules/.cache, below the
 * project root, so PROJECT_ROOT and package resolution work as from src/.
 */
let entry: string | undefined;
export function cliEntry(): string {
  if (entry === undefined) {
    const dir = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'rcs-test-cli');
    fs.mkdirSync(dir, { recursive: true });
    const outfile = path.join(dir, `cli-${process.pid}.mjs`);
    buildSync({ entryPoints: [path.join(PROJECT_ROOT, 'src/cli.ts')], bundle: true, platform: 'node', format: 'esm', packages: 'external', target: 'node20', outfile, logLevel: 'error' });
    process.once('exit', () => fs.rmSync(outfile, { force: true }));
    entry = outfile;
  }
  return entry;
}
