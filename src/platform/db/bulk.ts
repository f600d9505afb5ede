import { CompiledQuery, sql, type Compilable, type QueryResult, type RawBuilder } from 'kysely';
import type { DbOrTx } from './database.js';

/** One row's new values, by id. */
export type RowPatch = { id: string } & Record<string, string | number | null>;

const DEFAULT_CHUNK = 200;

/**
 * Applies per-row patches by primary key `id` in few statements instead of one UPDATE per row
 * (the dispatcher records a 10,000-message batch in ~50 statements). Patches with the same
 * columns share statements of up to `chunk` rows; a column with one value for the whole chunk is
 * set directly, the others through `CASE id WHEN … THEN … END`. `extraWhere` narrows which rows
 * may change (e.g. `pending = 1`); the ids of the rows actually updated are returned (RETURNING).
 *
 * Portable SQL: SQLite ≥ 3.35 and PostgreSQL both run it. PostgreSQL types untyped CASE branches
 * as text, so its dialect will need `CAST(? AS <column type>)` on numeric branches.
 */
export async function updateRowsById(db: DbOrTx, table: string, patches: readonly RowPatch[], extraWhere?: RawBuilder<unknown>, chunk = DEFAULT_CHUNK): Promise<Set<string>> {
  const updated = new Set<string>();
  const groups = new Map<string, RowPatch[]>();
  for (const p of patches) {
    const key = Object.keys(p)
      .filter((k) => k !== 'id' && p[k] !== undefined)
      .sort()
      .join(',');
    if (key === '') continue;
    const g = groups.get(key);
    if (g) g.push(p);
    else groups.set(key, [p]);
  }
  for (const [key, rows] of groups) {
    const columns = key.split(',');
    for (let i = 0; i < rows.length; i += chunk) {
      const part = rows.slice(i, i + chunk);
      const sets = columns.map((c) => {
        const first = part[0]![c] ?? null;
        if (part.every((r) => (r[c] ?? null) === first)) return sql`${sql.ref(c)} = ${first}`;
        return sql`${sql.ref(c)} = case ${sql.ref('id')} ${sql.join(
          part.map((r) => sql`when ${r.id} then ${r[c] ?? null}`),
          sql` `,
        )} end`;
      });
      const ids = sql.join(part.map((r) => r.id));
      const where = extraWhere ? sql`${sql.ref('id')} in (${ids}) and (${extraWhere})` : sql`${sql.ref('id')} in (${ids})`;
      const res = await sql<{ id: string }>`update ${sql.table(table)} set ${sql.join(sets)} where ${where} returning ${sql.ref('id')}`.execute(db);
      for (const r of res.rows) updated.add(r.id);
    }
  }
  return updated;
}

/** Compiled SQL of bulk statements by shape; null when re-binding was found unsafe for that shape. */
const compiledByShape = new Map<string, string | null>();

/**
 * Runs a multi-row statement (an INSERT of `rows`, optionally with ON CONFLICT / RETURNING) built
 * by `build`, compiling it with Kysely only once per shape (key, columns, row count): later calls
 * re-bind the rows' values to the cached SQL. Compiling a 500-row INSERT costs more than running
 * it. The first compile of a shape checks that Kysely's parameters are exactly the row values in
 * row-major column order (no parameters elsewhere); if not, that shape is always compiled afresh.
 * Rows must all have the same keys in the same order. Dialect-neutral: the SQL is the dialect's own.
 */
export async function executeBulk<R extends object, O = unknown>(db: DbOrTx, key: string, rows: readonly R[], build: (rows: readonly R[]) => Compilable<O>): Promise<QueryResult<O>> {
  if (rows.length === 0) return { rows: [] };
  const columns = Object.keys(rows[0]!);
  const shape = `${key}|${columns.join(',')}|${rows.length}`;
  const params: unknown[] = new Array(rows.length * columns.length);
  let k = 0;
  for (const r of rows) for (const c of columns) params[k++] = (r as Record<string, unknown>)[c];
  const cached = compiledByShape.get(shape);
  if (cached) return db.executeQuery<O>(CompiledQuery.raw(cached, params));
  const compiled = build(rows).compile();
  if (cached === undefined) {
    const same = compiled.parameters.length === params.length && compiled.parameters.every((p, i) => p === params[i]);
    compiledByShape.set(shape, same ? compiled.sql : null);
  }
  return db.executeQuery<O>(compiled);
}
