/**
 * The ledger invariant (issue #18): every account's cached balance (accounts.credits_milli) is
 * the sum of its credit_ledger entries. Called after the API tests (test/helpers/server.ts close),
 * the reliability and the crash tests, where a database is reachable.
 */
import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/platform/db/schema.js';

export interface Imbalance {
  account: string;
  balance: number;
  ledger: number;
}

const IMBALANCES = `
  SELECT a.id AS account, a.credits_milli AS balance, COALESCE(l.total, 0) AS ledger
  FROM accounts a LEFT JOIN (SELECT account_id, SUM(amount_milli) AS total FROM credit_ledger GROUP BY account_id) l ON l.account_id = a.id
  WHERE a.credits_milli <> COALESCE(l.total, 0)`;

function fail(found: Imbalance[], where: string): never {
  const list = found.map((i) => `${i.account}: balance ${i.balance} ≠ ledger ${i.ledger}`).join('; ');
  throw new Error(`credit ledger invariant broken (${where}): ${list}`);
}

/** Throws when an account's balance differs from the sum of its ledger entries. */
export async function expectLedgerBalanced(db: Kysely<Database>, where = 'database'): Promise<void> {
  const { rows } = await sql<Imbalance>`${sql.raw(IMBALANCES)}`.execute(db);
  const found = rows.map((r) => ({ account: r.account, balance: Number(r.balance), ledger: Number(r.ledger) }));
  if (found.length > 0) fail(found, where);
}

/** The same on a SQLite file (child-process tests), read-only; a file that does not exist has nothing to check. */
export function expectLedgerBalancedFile(dbFile: string): void {
  if (!fs.existsSync(dbFile)) return;
  const db = new SQLite(dbFile, { readonly: true, fileMustExist: true });
  try {
    const hasLedger = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'credit_ledger'").get();
    if (!hasLedger) throw new Error(`credit ledger invariant: ${dbFile} has no credit_ledger table`);
    const found = db.prepare(IMBALANCES).all() as Imbalance[];
    if (found.length > 0) fail(found, dbFile);
  } finally {
    db.close();
  }
}
