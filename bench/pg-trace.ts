/**
 * Where a PostgreSQL bench spends its time on the client side: every statement this process
 * sends through `pg` (Kysely's driver included), grouped by its text with numbers and lists
 * folded, with how often it ran, its total round-trip time and its slowest run; and how long
 * queries waited for a pooled connection. Round-trip time includes the server's work, the
 * network and the event loop's delay in reading the answer, so on a loaded machine it is an
 * upper bound of what the database itself spent.
 *
 * Used by bench/batch-postgres.ts with BENCH_TRACE_SQL=1; patches pg's prototypes in this
 * process only, for the measured part only.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';

interface Entry {
  count: number;
  totalMs: number;
  maxMs: number;
  /** Rows the statement returned or changed, summed. */
  rows: number;
}

export interface SqlTrace {
  /** Stops recording and returns the report (the patches stay, recording nothing). */
  stop(): string;
}

/** The statement's text with its varying parts folded, so the statements of one shape count together. */
function shapeOf(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/\$\d+(, \$\d+)+/g, '$…')
    .replace(/\(\$…\)(, \(\$…\))+/g, '($…), …')
    .slice(0, 160);
}

let recording: Map<string, Entry> | null = null;
/** Every statement's start and end (ms since the trace started) and its connection, for BENCH_TRACE_TIMELINE. */
let timeline: { start: number; end: number; conn: number; text: string }[] = [];
let traceStart = 0;
const connIds = new WeakMap<object, number>();
let poolWaits = { count: 0, totalMs: 0, maxMs: 0 };
let patched = false;
let nextConn = 0;

function patch(): void {
  if (patched) return;
  patched = true;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with apply(this, …) below
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function traced(this: pg.Client, ...args: unknown[]) {
    const out = query.apply(this, args);
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | null)?.text;
    if (!recording || text === undefined || !(out instanceof Promise)) return out;
    const into = recording;
    const t0 = performance.now();
    if (!connIds.has(this)) connIds.set(this, (nextConn += 1));
    const conn = connIds.get(this)!;
    return out.then((res: pg.QueryResult) => {
      const ms = performance.now() - t0;
      timeline.push({ start: t0 - traceStart, end: t0 - traceStart + ms, conn, text: text.replace(/\s+/g, ' ').slice(0, 90) });
      const key = shapeOf(text);
      const e = into.get(key) ?? { count: 0, totalMs: 0, maxMs: 0, rows: 0 };
      e.count++;
      e.totalMs += ms;
      e.maxMs = Math.max(e.maxMs, ms);
      e.rows += res?.rowCount ?? 0;
      into.set(key, e);
      return res;
    });
  } as typeof pg.Client.prototype.query;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with apply(this, …) below
  const connect = pg.Pool.prototype.connect as (...args: unknown[]) => unknown;
  pg.Pool.prototype.connect = function traced(this: pg.Pool, ...args: unknown[]) {
    const out = connect.apply(this, args);
    if (!recording || !(out instanceof Promise)) return out;
    const t0 = performance.now();
    return out.then((client: unknown) => {
      const ms = performance.now() - t0;
      poolWaits.count++;
      poolWaits.totalMs += ms;
      poolWaits.maxMs = Math.max(poolWaits.maxMs, ms);
      return client;
    });
  } as typeof pg.Pool.prototype.connect;
}

/** Starts recording every statement of this process until stop(). */
export function traceSql(): SqlTrace {
  patch();
  recording = new Map();
  timeline = [];
  traceStart = performance.now();
  poolWaits = { count: 0, totalMs: 0, maxMs: 0 };
  return {
    stop() {
      const entries = [...(recording ?? new Map<string, Entry>()).entries()].sort((a, b) => b[1].totalMs - a[1].totalMs);
      recording = null;
      if (process.env.BENCH_TRACE_TIMELINE) {
        writeFileSync(process.env.BENCH_TRACE_TIMELINE, timeline.sort((a, b) => a.start - b.start).map((t) => `${t.start.toFixed(1).padStart(8)} ${t.end.toFixed(1).padStart(8)} ${(t.end - t.start).toFixed(1).padStart(6)} c${t.conn} ${t.text}`).join('\n'));
      }
      const statements = entries.reduce((s, [, e]) => s + e.count, 0);
      const lines = [
        `  SQL trace: ${statements} statements, ${entries.reduce((s, [, e]) => s + e.totalMs, 0).toFixed(0)} ms of round trips (overlapping); pool.connect ${poolWaits.count}× ${poolWaits.totalMs.toFixed(0)} ms (max ${poolWaits.maxMs.toFixed(1)} ms)`,
        ...entries.map(([k, e]) => `  ${String(e.count).padStart(6)}× ${e.totalMs.toFixed(0).padStart(6)} ms max ${e.maxMs.toFixed(0).padStart(4)} ms rows ${String(e.rows).padStart(6)}  ${k}`),
      ];
      return lines.join('\n');
    },
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function processCpu(pid: number): number {
  // Fields after the command name (which may hold spaces, hence the last ')'): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** CPU seconds (user + system) each server process of a database has used so far, by pid; Linux /proc only. */
export async function backendCpu(reader: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await reader.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database]);
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      out.set(pid, processCpu(pid));
    } catch {
      // The backend ended meanwhile.
    }
  }
  return out;
}

/** CPU seconds the backends used between two backendCpu readings (backends that started in between count from zero). */
export function cpuSince(before: Map<number, number>, after: Map<number, number>, except: ReadonlySet<number> = new Set()): number {
  let s = 0;
  for (const [pid, t] of after) if (!except.has(pid)) s += t - (before.get(pid) ?? 0);
  return s;
}
