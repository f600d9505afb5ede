import SQLite from 'better-sqlite3';
import type { ChildServer } from './child-server.js';

/**
 * What the reliability tests use to watch a server process from outside: its REST API with a key,
 * read-only looks at its SQLite file (WAL: they see what the server committed), and a poll until
 * a condition holds. One copy, so each test says only what it checks.
 */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Valid German mobile numbers ending in 5: never one of the simulated network's special …999x numbers. */
export const testNumber = (base: number, i: number) => `+49151${String(base + i * 10 + 5).padStart(8, '0')}`;

export function childApi(server: () => ChildServer | null | undefined, apiKey: () => string) {
  return async (method: string, pathname: string, body?: unknown) => {
    const res = await fetch(`${server()!.url}${pathname}`, {
      method,
      headers: { 'X-API-Key': apiKey(), ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) };
  };
}

export function readOnlyDb(dbFile: string) {
  function query<T>(sql: string, ...params: unknown[]): T[] {
    const db = new SQLite(dbFile, { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).all(...params) as T[];
    } finally {
      db.close();
    }
  }
  const one = <T>(sql: string, ...params: unknown[]) => query<T>(sql, ...params)[0]!;
  return { query, one };
}

/** Polls `probe` until `ok`; on timeout the error carries the last value and the server's recent output. */
export function poller(server: () => ChildServer | null | undefined, outputChars = 2000) {
  return async function until<T>(probe: () => T, ok: (v: T) => boolean, timeoutMs: number, what: string, pollMs = 10): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = probe();
      if (ok(v)) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}\n${server()?.output().slice(-outputChars)}`);
      await sleep(pollMs);
    }
  };
}
