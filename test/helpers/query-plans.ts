import type SQLite from 'better-sqlite3';

/**
 * What SQLite plans for the statements a code path runs: records the SQL of every statement
 * prepared on the raw handle from now on (statements prepared earlier, and cached, are not seen),
 * so a test can check that a look-up by phone number uses an index on it rather than reading
 * every message of an account, or of every account.
 */
export function recordStatements(raw: SQLite.Database): { statements: () => string[]; stop: () => void } {
  const seen = new Set<string>();
  const original = raw.prepare.bind(raw);
  const patched = ((source: string) => {
    seen.add(source);
    return original(source);
  }) as SQLite.Database['prepare'];
  Object.defineProperty(raw, 'prepare', { value: patched, configurable: true, writable: true });
  return {
    statements: () => [...seen],
    stop: () => {
      delete (raw as { prepare?: unknown }).prepare;
    },
  };
}

/** The EXPLAIN QUERY PLAN lines of a statement (its parameters bound to null: SQLite's plan does not depend on them here). */
export function planOf(raw: SQLite.Database, source: string): string[] {
  const params = (source.match(/\?/g) ?? []).map(() => null);
  return (raw.prepare(`explain query plan ${source}`).all(...params) as { detail: string }[]).map((r) => r.detail);
}

/**
 * The recorded SELECTs on `table` that filter by `"<column>" = ?` but whose plan does not search an
 * index by that column (a SCAN, or an index on other columns walked over every row it covers).
 */
export function lookupsWithoutIndexOn(raw: SQLite.Database, statements: readonly string[], table: string, column: string): { sql: string; plan: string[] }[] {
  const searches = new RegExp(`^SEARCH ${table} USING (COVERING )?INDEX \\S+ \\([^)]*\\b${column}=\\?`);
  return statements
    .filter((s) => /^select/i.test(s) && s.includes(`from "${table}"`) && s.includes(`"${column}" = ?`))
    .map((s) => ({ sql: s, plan: planOf(raw, s) }))
    .filter(({ plan }) => !plan.some((line) => searches.test(line)));
}

/** lookupsWithoutIndexOn for `"phone" = ?`, on `messages` unless told. */
export function phoneLookupsWithoutPhoneIndex(raw: SQLite.Database, statements: readonly string[], table = 'messages'): { sql: string; plan: string[] }[] {
  return lookupsWithoutIndexOn(raw, statements, table, 'phone');
}
