import { sql, type Compilable, type QueryResult, type RawBuilder } from 'kysely';
import { runCompiledOnce } from './compiled-once.js';
import type { DbOrTx } from './database.js';
import { dialectOf } from './dialect.js';

/** One row's new values, by id. */
export type RowPatch = { id: string } & Record<string, string | number | null>;

/**
 * Rows per UPDATE statement. SQLite binds every value of its VALUES list (500 rows keep the
 * statement well inside its parameter limit); PostgreSQL reads one JSON value per statement, so
 * a dispatcher round (1,000 messages) is one statement and one round trip there.
 */
const DEFAULT_CHUNK = { sqlite: 500, postgres: 1000 } as const;

/**
 * Applies per-row patches by primary key `id` in few statements instead of one UPDATE per row
 * (the dispatcher records a 10,000-message batch in ~20 statements). Patches with the same
 * columns share statements of up to `chunk` rows: a column with one value for the whole chunk is
 * set directly, the others come from a VALUES list joined on id —
 * `WITH v(k, c1, …) AS (VALUES (?, ?, …), …) UPDATE t SET a = ?, c1 = v.c1 FROM v WHERE t.id = v.k`.
 * (A `CASE id WHEN … END` per column was tried first: SQLite evaluates it linearly per row, which
 * made recording a batch twice as slow.) `extraWhere` narrows which rows may change (e.g.
 * `pending = 1`); the ids of the rows actually updated are returned (RETURNING).
 *
 * PostgreSQL types untyped VALUES parameters as text, so there the varying columns come from one
 * JSON parameter read by the table's own row type instead:
 * `UPDATE t SET a = ?, c1 = v.c1 FROM (SELECT id, c1 FROM json_populate_recordset(null::t, ?)) v(k, c1) …`
 * (one bound value per chunk; no per-column casts to keep in step with the schema).
 */
export async function updateRowsById(db: DbOrTx, table: string, patches: readonly RowPatch[], extraWhere?: RawBuilder<unknown>, chunk: number = DEFAULT_CHUNK[dialectOf(db)]): Promise<Set<string>> {
  const updated = new Set<string>();
  const groups = new Map<string, RowPatch[]>();
  for (const p of patches) {
    // Patches built by one function have their keys in the same order: no sorting needed to
    // group them (differently ordered equal patches merely land in separate statements).
    let key = '';
    for (const k in p) if (k !== 'id' && p[k] !== undefined) key += key === '' ? k : `,${k}`;
    if (key === '') continue;
    const g = groups.get(key);
    if (g) g.push(p);
    else groups.set(key, [p]);
  }
  const postgres = dialectOf(db) === 'postgres';
  // PostgreSQL: `extraWhere` as a filter on the rows found by id (`(…) is true` keeps a row on the
  // same condition as plain `and …`, but no index can serve it). Without this, a condition such as
  // `pending = 1`, estimated at a few rows, drove the plan: every statement read every pending
  // message (10,000 while a batch was in flight) to hash-join them with its 1,000 patches.
  const whereSql = extraWhere && postgres ? sql`(${extraWhere}) is true` : extraWhere;
  const where = { sql: whereSql, key: whereSql ? whereSql.compile(db).sql : '' };
  for (const [key, rows] of groups) {
    const columns = key.split(',');
    for (let i = 0; i < rows.length; i += chunk) {
      const part = rows.slice(i, i + chunk);
      const constant: string[] = [];
      const varying: string[] = [];
      for (const c of columns) {
        const first = part[0]![c] ?? null;
        (part.every((r) => (r[c] ?? null) === first) ? constant : varying).push(c);
      }
      const { shape, params, build } = (postgres ? updateFromJson : updateFromValues)(table, part, constant, varying, where);
      const res = await runCompiledOnce<{ id: string }>(db, shape, params, () => build().compile(db));
      for (const r of res.rows) updated.add(r.id);
    }
  }
  return updated;
}

/** updateRowsById's `extraWhere` and its SQL text (part of every shape key). */
interface ExtraWhere {
  sql: RawBuilder<unknown> | undefined;
  key: string;
}

interface UpdateStatement {
  /** Everything that changes the SQL text (runCompiledOnce). */
  shape: string;
  /** The bound values, in statement order. */
  params: unknown[];
  build: () => RawBuilder<{ id: string }>;
}

function updateWhere(table: string, extraWhere: RawBuilder<unknown> | undefined): RawBuilder<unknown> {
  const join = sql`${sql.ref(`${table}.id`)} = ${sql.ref('v.k')}`;
  return extraWhere ? sql`${join} and (${extraWhere})` : join;
}

const varyingNames = (varying: readonly string[]) => sql.join(['k', ...varying.map((_, j) => `c${j}`)].map((n) => sql.ref(n)));
const setClauses = (part: readonly RowPatch[], constant: readonly string[], varying: readonly string[]) => [
  ...constant.map((c) => sql`${sql.ref(c)} = ${part[0]![c] ?? null}`),
  ...varying.map((c, j) => sql`${sql.ref(c)} = ${sql.ref(`v.c${j}`)}`),
];

/** SQLite: `WITH v(k, c0, …) AS (VALUES (?, ?, …), …) UPDATE t SET … FROM v WHERE t.id = v.k`. */
function updateFromValues(table: string, part: readonly RowPatch[], constant: readonly string[], varying: readonly string[], where: ExtraWhere): UpdateStatement {
  // Parameters in statement order: the VALUES rows, then the constant columns.
  const params: unknown[] = [];
  for (const r of part) {
    params.push(r.id);
    for (const c of varying) params.push(r[c] ?? null);
  }
  for (const c of constant) params.push(part[0]![c] ?? null);
  return {
    shape: `${table}|${varying.join(',')}|${constant.join(',')}|${part.length}|${where.key}`,
    params,
    build: () => {
      const values = sql.join(part.map((r) => sql`(${sql.join([r.id, ...varying.map((c) => r[c] ?? null)])})`));
      return sql<{ id: string }>`with v(${varyingNames(varying)}) as (values ${values}) update ${sql.table(table)} set ${sql.join(setClauses(part, constant, varying))} from v where ${updateWhere(table, where.sql)} returning ${sql.ref(`${table}.id`)}`;
    },
  };
}

/**
 * PostgreSQL: the varying columns from one JSON parameter typed by the table's row type. The
 * subquery picks the columns and renames them, so the table's own columns stay unambiguous in
 * `extraWhere` (the record type has every column of the table).
 */
function updateFromJson(table: string, part: readonly RowPatch[], constant: readonly string[], varying: readonly string[], where: ExtraWhere): UpdateStatement {
  const data = JSON.stringify(
    part.map((r) => {
      const o: Record<string, unknown> = { id: r.id };
      for (const c of varying) o[c] = r[c] ?? null;
      return o;
    }),
  );
  // Parameters in statement order: the constant columns (SET), then the JSON rows (FROM).
  const params: unknown[] = constant.map((c) => part[0]![c] ?? null);
  params.push(data);
  return {
    shape: `json:${table}|${varying.join(',')}|${constant.join(',')}|${where.key}`,
    params,
    build: () => {
      const picked = sql.join(['id', ...varying].map((c) => sql.ref(c)));
      const from = sql`(select ${picked} from json_populate_recordset(null::${sql.table(table)}, ${data}::json)) as v(${varyingNames(varying)})`;
      return sql<{ id: string }>`update ${sql.table(table)} set ${sql.join(setClauses(part, constant, varying))} from ${from} where ${updateWhere(table, where.sql)} returning ${sql.ref(`${table}.id`)}`;
    },
  };
}


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
  const params: unknown[] = new Array(rows.length * columns.length);
  let k = 0;
  for (const r of rows) for (const c of columns) params[k++] = (r as Record<string, unknown>)[c];
  return runCompiledOnce(db, `${key}|${columns.join(',')}|${rows.length}`, params, () => build(rows).compile());
}

/**
 * INSERTs many rows through one JSON parameter: SQLite reads them with json_each, so 1,000 rows of
 * 37 columns are one bound value instead of 37,000 (binding each value was most of the cost of
 * accepting a 10,000-message batch). Columns with the same value in every row of the chunk are
 * bound once. Rows must all have the same keys in the same order, with values that survive JSON:
 * strings, finite numbers (integers below 2^53 stay integers), null.
 * SQLite ≥ 3.38: `INSERT … SELECT j.value ->> 0, … FROM json_each(?) j`. PostgreSQL: the rows as
 * JSON objects read by the table's own row type, `INSERT … SELECT cols FROM
 * json_populate_recordset(null::t, ?::json)`, so every value gets its column's type without a
 * cast per column (no constant columns there: the objects carry every value). `json`, not
 * `jsonb`: the text is read once, without first building jsonb's binary form (inserting 1,000
 * message rows took ~30 % less server time that way, docs/decisions.md).
 */
export async function insertRowsAsJson<R extends object, O = never>(
  db: DbOrTx,
  table: string,
  rows: readonly R[],
  opts: {
    chunk?: number;
    /** Appended to each statement, e.g. `on conflict (…) do update … returning …`; no parameters. */
    suffix?: RawBuilder<unknown>;
  } = {},
): Promise<O[]> {
  const out: O[] = [];
  if (rows.length === 0) return out;
  const chunk = opts.chunk ?? 1000;
  const suffixSql = opts.suffix ? opts.suffix.compile(db).sql : '';
  const columns = Object.keys(rows[0]!);
  if (dialectOf(db) === 'postgres') {
    const shape = `json-insert:${table}|${columns.join(',')}|${suffixSql}`;
    const names = sql.join(columns.map((c) => sql.ref(c)));
    const insert = (data: string) => {
      const p = runCompiledOnce<O>(db, shape, [data], () => sql<O>`insert into ${sql.table(table)} (${names}) select ${names} from json_populate_recordset(null::${sql.table(table)}, ${data}::json) where true ${opts.suffix ?? sql``}`.compile(db));
      // Awaited below; until then a failure must not count as an unhandled rejection.
      p.catch(() => undefined);
      return p;
    };
    // The server works on one chunk while this process writes the next one's JSON (~1 ms per 100
    // message rows): the statements still run one after another, on the caller's connection. The
    // turn of the event loop lets the driver send the running statement before the JSON is built.
    let running = insert(JSON.stringify(rows.slice(0, chunk)));
    for (let i = chunk; i < rows.length; i += chunk) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const data = JSON.stringify(rows.slice(i, i + chunk));
      out.push(...(await running).rows);
      running = insert(data);
    }
    out.push(...(await running).rows);
    return out;
  }
  const access = accessorsFor(columns);
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk) as readonly Record<string, unknown>[];
    const first = part[0]!;
    const constant = access.sameInEveryRow(part);
    const varying = columns.filter((_, k) => !constant[k]);
    const data = JSON.stringify(part.map(access.picker(varying)));
    const params: unknown[] = [];
    columns.forEach((c, k) => constant[k] && params.push(first[c] ?? null));
    params.push(data);
    const shape = `json:${table}|${columns.join(',')}|${constant.map((x) => (x ? 1 : 0)).join('')}|${suffixSql}`;
    const res = await runCompiledOnce<O>(db, shape, params, () => {
      let v = 0;
      const select = columns.map((c, k) => (constant[k] ? sql`${first[c] ?? null}` : sql`j.value ->> ${sql.lit(v++)}`));
      // `where true`: without a WHERE, SQLite would read an upsert's ON CONFLICT as a join constraint.
      return sql<O>`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) select ${sql.join(select)} from json_each(${data}) j where true ${opts.suffix ?? sql``}`.compile(db);
    });
    out.push(...res.rows);
  }
  return out;
}

interface RowAccessors {
  /** For each column: whether every row has the first row's value. */
  sameInEveryRow(rows: readonly object[]): boolean[];
  /** A function reading the given columns of a row into an array. */
  picker(columns: readonly string[]): (row: object) => unknown[];
}

const accessorsByColumns = new Map<string, RowAccessors>();

/**
 * Column readers generated once per column list. Reading 37 properties by a variable name from
 * each of 10,000 rows is a slow keyed lookup every time (it cost ~30 ms per batch); generated code
 * reads them by fixed names, which V8 turns into direct loads (~4 ms). The names come from our own
 * row objects (Object.keys), and JSON.stringify quotes them, so no input can reach the code.
 */
function accessorsFor(columns: readonly string[]): RowAccessors {
  const key = columns.join('\u0000');
  let a = accessorsByColumns.get(key);
  if (a) return a;
  const prop = (c: string) => `[${JSON.stringify(c)}]`;
  const flags = columns.map((_, k) => `s${k}`);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- source built from column names (JSON-quoted), never from input: one compiled accessor per column set
  const same = new Function(
    'rows',
    `const f = rows[0]; let ${flags.map((f) => `${f} = true`).join(', ')};
     for (let i = 1; i < rows.length; i++) { const r = rows[i]; ${columns.map((c, k) => `if (${flags[k]} && r${prop(c)} !== f${prop(c)}) ${flags[k]} = false;`).join(' ')} }
     return [${flags.join(', ')}];`,
  ) as RowAccessors['sameInEveryRow'];
  const pickers = new Map<string, (row: object) => unknown[]>();
  a = {
    sameInEveryRow: same,
    picker(cols) {
      const k = cols.join('\u0000');
      let p = pickers.get(k);
      if (!p) {
        // eslint-disable-next-line @typescript-eslint/no-implied-eval -- as above: a per-column-set picker built once
        p = new Function('r', `return [${cols.map((c) => `r${prop(c)}`).join(', ')}];`) as (row: object) => unknown[];
        pickers.set(k, p);
      }
      return p;
    },
  };
  accessorsByColumns.set(key, a);
  return a;
}
