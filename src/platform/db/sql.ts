import { sql, type Expression, type RawBuilder } from 'kysely';
import type { DbOrTx } from './database.js';

/**
 * Small helpers for values stored as TEXT/INTEGER in a way that works the same on SQLite and
 * PostgreSQL: booleans as 0/1 integers, JSON as text.
 */
export const toBool = (v: number | boolean | null | undefined): boolean => v === 1 || v === true;
export const fromBool = (v: boolean): number => (v ? 1 : 0);

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** Escapes LIKE wildcards so user search text matches literally (used with ESCAPE '\'). */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `(SELECT value FROM json_each(?))`: a list of any length as one JSON parameter, for `x IN …`.
 * The statement text is the same for every length, so it is compiled and prepared once, and a
 * 10,000-item list is one bound value instead of 10,000. SQLite's json_each; on PostgreSQL
 * `(SELECT jsonb_array_elements_text(?::jsonb))`.
 */
export const jsonList = (values: readonly (string | number)[]): RawBuilder<string> => sql<string>`(select value from json_each(${JSON.stringify(values)}))`;

/**
 * `json_group_object(key, value)`: the rows of a group as one JSON object (a contact's custom
 * fields by tag). PostgreSQL: `json_object_agg(key, value)`.
 */
export const jsonObjectAgg = (key: string, value: string): RawBuilder<string> => sql<string>`json_group_object(${sql.ref(key)}, ${sql.ref(value)})`;

/**
 * Runs `query` and returns its rows as arrays of the values of `columns`, in that order, read from
 * one JSON value the database aggregates (`json_group_array(json_array(…))`) and parsed once.
 * For thousands of rows this costs a third of what result rows do through the SQLite driver, which
 * builds every row object property by property (10,000 contacts: ~25 ms against ~80 ms). Values
 * must survive JSON: text, integers below 2^53, NULL (no blobs). Columns named in `jsonColumns`
 * hold JSON text and come back parsed. Row order is not guaranteed. PostgreSQL:
 * `json_agg(json_build_array(…))` and `::json` for the JSON columns.
 */
export async function selectRowsViaJson<T extends unknown[]>(
  db: DbOrTx,
  query: Expression<unknown>,
  columns: readonly string[],
  jsonColumns: ReadonlySet<string> = new Set(),
): Promise<T[]> {
  const values = columns.map((c) => (jsonColumns.has(c) ? sql`json(${sql.ref(`q.${c}`)})` : sql.ref(`q.${c}`)));
  const { rows } = await sql<{ rows: string }>`select json_group_array(json_array(${sql.join(values)})) as rows from (${query}) as q`.execute(db);
  return JSON.parse(rows[0]!.rows) as T[];
}
