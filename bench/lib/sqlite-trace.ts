/**
 * Where a SQLite bench's server spends its time in SQLite: every better-sqlite3 statement this
 * process runs (`run`, `all`, `get`, `iterate` — Kysely's driver included), grouped by its text
 * with lists folded, with how often it ran, its total and slowest time, and the rows it returned
 * or changed. The calls are synchronous, so the time is SQLite's own (plus binding and building
 * the result rows), not waiting. Used through bench/lib/diagnose-on-signal.ts (BENCH_TRACE_SQL=1).
 */
import SQLite from 'better-sqlite3';

interface Entry {
  count: number;
  totalMs: number;
  maxMs: number;
  rows: number;
}

let recording: Map<string, Entry> | null = null;
let patched = false;

const shapeOf = (text: string): string =>
  text
    .replace(/\s+/g, ' ')
    .replace(/\?(, \?)+/g, '?…')
    .slice(0, 160);

function patch(): void {
  if (patched) return;
  patched = true;
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate'] as const) {
    const original = proto[method]!;
    proto[method] = function traced(this: { source: string }, ...args: unknown[]) {
      if (!recording) return original.apply(this, args);
      const t0 = performance.now();
      const out = original.apply(this, args);
      const ms = performance.now() - t0;
      const key = shapeOf(this.source);
      const e = recording.get(key) ?? { count: 0, totalMs: 0, maxMs: 0, rows: 0 };
      e.count++;
      e.totalMs += ms;
      e.maxMs = Math.max(e.maxMs, ms);
      e.rows += Array.isArray(out) ? out.length : ((out as { changes?: number } | undefined)?.changes ?? (out === undefined ? 0 : 1));
      recording.set(key, e);
      return out;
    };
  }
}

/** Starts recording every statement of this process until stop(), which returns the report. */
export function traceSqlite(): { stop(): string } {
  patch();
  recording = new Map();
  return {
    stop() {
      const entries = [...(recording ?? new Map<string, Entry>()).entries()].sort((a, b) => b[1].totalMs - a[1].totalMs);
      recording = null;
      return [
        `  SQLite trace: ${entries.reduce((s, [, e]) => s + e.count, 0)} statements, ${entries.reduce((s, [, e]) => s + e.totalMs, 0).toFixed(0)} ms inside them`,
        ...entries.map(([k, e]) => `  ${String(e.count).padStart(6)}× ${e.totalMs.toFixed(1).padStart(7)} ms max ${e.maxMs.toFixed(1).padStart(6)} ms rows ${String(e.rows).padStart(6)}  ${k}`),
      ].join('\n');
    },
  };
}
