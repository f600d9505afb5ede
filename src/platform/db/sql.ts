import { sql, type Expression, type RawBuilder } from 'kysely';
import type { DbOrTx } from './database.js';
import { dialectOf } from './dialect.js';

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
 * A list of any length as one bound parameter, for `x IN …`: SQLite `(select value from
 * json_each(?))` (one JSON text), PostgreSQL `(select unnest(?::text[]))` (one text array). The
 * statement text is the same for every length, so it is compiled and prepared once, and a
 * 10,000-item list is one bound value instead of 10,000. PostgreSQL plans `unnest` of a bound
 * array with its real length (the set-returning function's support estimates it), where
 * `jsonb_array_elements_text` was always guessed at 100 rows — with the other side's statistics
 * stale (a table that just grew by a batch), that guess once made a nested-loop semi join that
 * expanded the 10,000-item list again for each of 20,000 rows (35 s). Text values only: a numeric
 * list needs a form of its own.
 */
export const jsonList = (db: DbOrTx, values: readonly string[]): RawBuilder<string> =>
  dialectOf(db) === 'postgres' ? sql<string>`(select unnest(${values}::text[]))` : sql<string>`(select value from json_each(${JSON.stringify(values)}))`;

/**
 * The same list as a table of one column, `value`, to drive a query from (one row per item, in no
 * particular order): `selectFrom(listRows(db, phones).as('p'))`. A correlated subquery per row
 * then reads each item's rows through an index whatever the planner believes about the other
 * table's size.
 */
export const listRows = (db: DbOrTx, values: readonly string[]): RawBuilder<{ value: string }> =>
  dialectOf(db) === 'postgres' ? sql<{ value: string }>`(select unnest(${values}::text[]) as value)` : sql<{ value: string }>`(select value from json_each(${JSON.stringify(values)}))`;

/**
 * The rows of a group as one JSON object, as text (a contact's custom fields by tag): SQLite
 * `json_group_object(key, value)`, PostgreSQL `json_object_agg(key, value)::text`, with `{}` for
 * no rows as SQLite gives (PostgreSQL's aggregate of nothing is NULL). Text on both, so callers
 * read one type; the spacing inside differs, the JSON does not.
 */
export const jsonObjectAgg = (db: DbOrTx, key: string, value: string): RawBuilder<string> =>
  dialectOf(db) === 'postgres' ? sql<string>`coalesce(json_object_agg(${sql.ref(key)}, ${sql.ref(value)})::text, '{}')` : sql<string>`json_group_object(${sql.ref(key)}, ${sql.ref(value)})`;

/**
 * A JSON object kept as text in `column`, with the keys of `set` set and those of `remove` removed
 * by the statement that writes it (an UPDATE's `.set({ column: jsonObjectPatch(…) })`), so writers
 * of other keys of the same row lose nothing: SQLite `json_patch(column, patch)` (RFC 7396, a null
 * member removes), PostgreSQL `((column::jsonb - remove) || set)::text`. Values are replaced whole
 * when they are objects with the same members. A key in both lists is set.
 */
export function jsonObjectPatch(db: DbOrTx, column: string, set: Readonly<Record<string, unknown>>, remove: readonly string[]): RawBuilder<string> {
  const removed = remove.filter((k) => !Object.hasOwn(set, k));
  if (dialectOf(db) === 'postgres') return sql<string>`((${sql.ref(column)}::jsonb - ${removed}::text[]) || ${JSON.stringify(set)}::jsonb)::text`;
  const patch: Record<string, unknown> = Object.fromEntries(removed.map((k) => [k, null]));
  Object.assign(patch, set);
  return sql<string>`json_patch(${sql.ref(column)}, ${JSON.stringify(patch)})`;
}

/**
 * Runs `query` and returns its rows as arrays of the values of `columns`, in that order, read from
 * one JSON value the database aggregates and parsed once: SQLite `json_group_array(json_array(…))`,
 * PostgreSQL `json_agg(json_build_array(…))` (NULL when there are no rows: read as []).
 * For thousands of rows this costs a third of what result rows do through the SQLite driver, which
 * builds every row object property by property (10,000 contacts: ~25 ms against ~80 ms). Values
 * must survive JSON: text, integers below 2^53, NULL (no blobs). Columns named in `jsonColumns`
 * hold JSON text and come back parsed. Row order is not guaranteed.
 */
export async function selectRowsViaJson<T extends unknown[]>(
  db: DbOrTx,
  query: Expression<unknown>,
  columns: readonly string[],
  jsonColumns: ReadonlySet<string> = new Set(),
): Promise<T[]> {
  if (dialectOf(db) === 'postgres') {
    const values = columns.map((c) => (jsonColumns.has(c) ? sql`${sql.ref(`q.${c}`)}::json` : sql.ref(`q.${c}`)));
    // pg parses a json result itself; ::text keeps one JSON.parse for both dialects.
    const { rows } = await sql<{ rows: string | null }>`select json_agg(json_build_array(${sql.join(values)}))::text as rows from (${query}) as q`.execute(db);
    return rows[0]?.rows ? (JSON.parse(rows[0].rows) as T[]) : [];
  }
  const values = columns.map((c) => (jsonColumns.has(c) ? sql`json(${sql.ref(`q.${c}`)})` : sql.ref(`q.${c}`)));
  const { rows } = await sql<{ rows: string }>`select json_group_array(json_array(${sql.join(values)})) as rows from (${query}) as q`.execute(db);
  return JSON.parse(rows[0]!.rows) as T[];
}
