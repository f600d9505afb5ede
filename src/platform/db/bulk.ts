import { sql, type RawBuilder } from 'kysely';
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
