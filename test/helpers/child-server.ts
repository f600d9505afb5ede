import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/paths.js';

export interface ChildServer {
  proc: ChildProcess;
  output: () => string;
  url: string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * Starts the real entry point (src/main.ts through tsx) in a child process and waits until it listens.
 * `nodeArgs` go to node before the entry point (a bench preloads its profiler with `--import`). `entry`: a built
 * JavaScript entry point to run instead, without tsx (the one-file server, scripts/bundle.mjs).
 */
export async function startChildServer(env: Record<string, string>, timeoutMs = 30_000, nodeArgs: readonly string[] = [], entry?: string): Promise<ChildServer> {
  const args = entry === undefined ? ['--import', 'tsx', ...nodeArgs, path.join(PROJECT_ROOT, 'src/main.ts')] : [...nodeArgs, entry];
  const proc = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: nothing would stop a server whose start was given up on.
      proc.kill('SIGKILL');
      reject(new Error(`server did not start in time:\n${out}`));
    }, timeoutMs);
    const check = () => {
      const m = /"msg":"listening"/.test(out) ? /"url":"([^"]+)"/.exec(out) : null;
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${out}`));
    });
  });
  return {
    proc,
    output: () => out,
    url,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/**
 * A key from the first start's credentials: a child server's stdout is not a terminal, so they are
 * in the data directory's 0600 file rather than in its output. '' when the file has no such line.
 */
export function firstStartKey(dataDir: string, label: 'Automation' | 'Assistant' = 'Automation'): string {
  const text = fs.readFileSync(path.join(dataDir, 'first-start-credentials.txt'), 'utf8');
  return new RegExp(`${label} API key:\\s+(rcsk_\\S+)`).exec(text)?.[1] ?? '';
}
