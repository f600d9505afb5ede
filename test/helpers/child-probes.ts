import path from 'node:path';
import SQLite from 'better-sqlite3';
import type pg from 'pg';
import { connectPostgres } from '../../src/platform/db/postgres.js';
import { expectLedgerBalanced, expectLedgerBalancedFile } from '../billing/invariant.js';
import type { ChildServer } from './child-server.js';

/**
 * What the reliability tests use to watch a server process from outside: its REST API with a key,
 * looks at its database (serverDb), and a poll until
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

/**
 * Looks at a child server's database from outside: its SQLite file read-only (WAL: they see what
 * the server committed), or with DATABASE_URL in `env` its PostgreSQL schema through a connection
 * of its own. SQL is written with `?` placeholders for both.
 */
export function serverDb(env: Record<string, string>) {
  const url = env.DATABASE_URL;
  const dbFile = path.join(env.DATA_DIR!, env.DATABASE_FILE ?? 'rcs.sqlite');
  let pool: pg.Pool | null = null;
  async function query<T>(text: string, ...params: unknown[]): Promise<T[]> {
    if (url !== undefined) {
      pool ??= connectPostgres({ url, poolMax: 1, ssl: null, sslCaFile: null }, () => undefined).pool;
      let n = 0;
      return (await pool.query(text.replace(/\?/g, () => `$${++n}`), params)).rows as T[];
    }
    const db = new SQLite(dbFile, { readonly: true, fileMustExist: true });
    try {
      return db.prepare(text).all(...params) as T[];
    } finally {
      db.close();
    }
  }
  const one = async <T>(text: string, ...params: unknown[]) => (await query<T>(text, ...params))[0]!;
  return {
    query,
    one,
    /** The credit ledger invariant on this database; nothing to check when the SQLite file does not exist. */
    async expectLedgerBalanced(): Promise<void> {
      if (url === undefined) return expectLedgerBalancedFile(dbFile);
      const { db } = connectPostgres({ url, poolMax: 1, ssl: null, sslCaFile: null }, () => undefined);
      try {
        await expectLedgerBalanced(db, 'PostgreSQL schema');
      } finally {
        await db.destroy();
      }
    },
    async close(): Promise<void> {
      await pool?.end();
      pool = null;
    },
  };
}

/** Polls `probe` until `ok`; on timeout the error carries the last value and the server's recent output. */
export function poller(server: () => ChildServer | null | undefined, outputChars = 2000) {
  return async function until<T>(probe: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs: number, what: string, pollMs = 10): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await probe();
      if (ok(v)) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}\n${server()?.output().slice(-outputChars)}`);
      await sleep(pollMs);
    }
  };
}
