/**
 * Preloaded (`node --import tsx --import bench/lib/diagnose-on-signal.ts …`) into a server a bench
 * runs as a child process, so its diagnostics cover the measured part only, not the start or the
 * warm-up: the first SIGUSR2 starts them, the second stops them and prints "diagnostics: done".
 * - BENCH_PROFILE=file.cpuprofile: a CPU profile (bench/lib/profile.ts), written to that file;
 * - BENCH_TRACE_SQL=1: every statement sent through `pg` (bench/pg-trace.ts) and run by better-sqlite3
 *   (bench/lib/sqlite-trace.ts), the reports on stderr.
 * (SIGUSR1 is Node's own: it opens the inspector.)
 */
import { traceSql, type SqlTrace } from '../pg-trace.js';
import { startProfile } from './profile.js';
import { traceSqlite } from './sqlite-trace.js';

const profileFile = process.env.BENCH_PROFILE;
const traceWanted = process.env.BENCH_TRACE_SQL === '1';
const onPostgres = Boolean(process.env.DATABASE_URL);
let running: { profile: Awaited<ReturnType<typeof startProfile>> | null; trace: SqlTrace | null; sqlite: { stop(): string } | null } | null = null;
process.on('SIGUSR2', () => {
  void (async () => {
    if (!running) {
      running = { profile: profileFile ? await startProfile() : null, trace: traceWanted && onPostgres ? traceSql() : null, sqlite: traceWanted && !onPostgres ? traceSqlite() : null };
      process.stderr.write('diagnostics: started\n');
      return;
    }
    const { profile, trace, sqlite } = running;
    running = null;
    if (profile) await profile.stop(profileFile!);
    if (trace) process.stderr.write(`${trace.stop()}\n`);
    if (sqlite) process.stderr.write(`${sqlite.stop()}\n`);
    process.stderr.write('diagnostics: done\n');
  })();
});
