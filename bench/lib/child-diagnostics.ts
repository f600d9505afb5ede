import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { ChildServer } from '../../test/helpers/child-server.js';

/** Wanted when BENCH_PROFILE or BENCH_TRACE_SQL=1 is set (bench/lib/diagnose-on-signal.ts). */
export const diagnosticsWanted = Boolean(process.env.BENCH_PROFILE) || process.env.BENCH_TRACE_SQL === '1';

/** The node arguments that preload the diagnostics into a child server (none when not wanted). */
export const diagnosticsNodeArgs = (): string[] => (diagnosticsWanted ? ['--import', fileURLToPath(new URL('./diagnose-on-signal.ts', import.meta.url))] : []);

export async function waitForOutput(server: ChildServer, line: string, timeoutMs = 10_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!server.output().includes(line)) {
    if (performance.now() > end) throw new Error(`server did not print "${line}"`);
    await sleep(5);
  }
}

/**
 * Starts the preloaded diagnostics of a child server (SIGUSR2) before a measured part and stops them after it,
 * printing their report (the server's non-JSON stderr lines in between).
 */
export function diagnosticsAround(server: ChildServer): { before(): Promise<void>; after(): Promise<void> } {
  let outputAt = 0;
  return {
    before: async () => {
      server.proc.kill('SIGUSR2');
      await waitForOutput(server, 'diagnostics: started');
      outputAt = server.output().length;
    },
    after: async () => {
      server.proc.kill('SIGUSR2');
      await waitForOutput(server, 'diagnostics: done');
      const report = server
        .output()
        .slice(outputAt)
        .split('\n')
        .filter((l) => l && !l.startsWith('{') && !l.startsWith('diagnostics:'));
      if (report.length) console.log(report.join('\n'));
    },
  };
}
