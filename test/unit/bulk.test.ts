import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeBulk, insertRowsAsJson, updateRowsById } from '../../src/platform/db/bulk.js';
import { connectPostgres } from '../../src/platform/db/postgres.js';
import { createTestSchema } from '../helpers/postgres.js';
import { BOTH_DIALECTS, openScratch, type Scratch } from '../helpers/scratch-db.js';

interface T {
  id: string;
  status: string;
  n: number | null;
  note: string | null;
  pending: number;
}

const createT = (s: Scratch) => sql`create table t (id text primary key, status text not null, n ${sql.raw(s.intType)}, note text, pending ${sql.raw(s.intType)} not null)`.execute(s.db);

describe.each(BOTH_DIALECTS)('bulk statements on %s', (dialect) => {
// Untyped like the callers of bulk.ts see the database: any table name is allowed there.
let db: Kysely<any>;
let scratch: Scratch;

beforeEach(async () => {
  scratch = await openScratch(dialect);
  db = scratch.db;
  await createT(scratch);
  const rows = Array.from({ length: 30 }, (_, i) => ({ id: `r${String(i).padStart(2, '0')}`, status: 'NEW', n: i, note: null, pending: i % 10 === 9 ? 0 : 1 }));
  await executeBulk(db, 'test.insert', rows, (part) => db.insertInto('t').values([...part]));
});

afterEach(async () => {
  await scratch.close();
});

const all = () => db.selectFrom('t').selectAll().orderBy('id').execute() as Promise<T[]>;

describe('executeBulk', () => {
  it('inserts every row, also when the compiled statement of a shape is re-used', async () => {
    await executeBulk(db, 'test.insert', [{ id: 'x1', status: 'A', n: 1, note: 'a', pending: 1 }], (part) => db.insertInto('t').values([...part]));
    await executeBulk(db, 'test.insert', [{ id: 'x2', status: 'B', n: null, note: "it's", pending: 0 }], (part) => db.insertInto('t').values([...part]));
    const rows = await all();
    expect(rows).toHaveLength(32);
    expect(rows.find((r) => r.id === 'x2')).toEqual({ id: 'x2', status: 'B', n: null, note: "it's", pending: 0 });
  });
});

describe('updateRowsById', () => {
  it('writes per-row values and shared values, only where extraWhere holds, and returns the ids it changed', async () => {
    const patches = Array.from({ length: 30 }, (_, i) => ({ id: `r${String(i).padStart(2, '0')}`, status: 'SENT', note: `carrier-${i}`, n: i % 2 === 0 ? null : i * 100 }));
    const updated = await updateRowsById(db, 't', patches, sql`pending = 1`, 7);
    const expected = patches.filter((_, i) => i % 10 !== 9).map((p) => p.id);
    expect([...updated].sort()).toEqual(expected);
    for (const r of await all()) {
      const i = Number(r.id.slice(1));
      if (i % 10 === 9) expect(r).toMatchObject({ status: 'NEW', n: i, note: null });
      else expect(r).toMatchObject({ status: 'SENT', note: `carrier-${i}`, n: i % 2 === 0 ? null : i * 100 });
    }
  });

  it('groups patches by their columns and leaves columns a patch does not name alone', async () => {
    const updated = await updateRowsById(db, 't', [
      { id: 'r00', status: 'FAILED' },
      { id: 'r01', note: 'only the note' },
      { id: 'r02', status: 'READ', note: 'both' },
      { id: 'nope', status: 'X' },
    ]);
    expect([...updated].sort()).toEqual(['r00', 'r01', 'r02']);
    const rows = await all();
    expect(rows[0]).toMatchObject({ status: 'FAILED', note: null, n: 0 });
    expect(rows[1]).toMatchObject({ status: 'NEW', note: 'only the note', n: 1 });
    expect(rows[2]).toMatchObject({ status: 'READ', note: 'both', n: 2 });
  });

  it('re-uses a compiled shape with new values (chunks of the same size)', async () => {
    await updateRowsById(db, 't', [{ id: 'r03', note: 'a' }, { id: 'r04', note: 'b' }]);
    await updateRowsById(db, 't', [{ id: 'r05', note: 'c' }, { id: 'r06', note: 'd' }]);
    const rows = await all();
    expect(rows.slice(3, 7).map((r) => r.note)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('insertRowsAsJson', () => {
  it('stores every value with its type: per-row and shared columns, nulls, large integers, quotes and emoji', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => ({ id: `j${String(i).padStart(2, '0')}`, status: 'SAME', n: i % 3 === 0 ? null : 1_790_000_000_000 + i, note: i === 4 ? `it's "quoted" \\ 😀` : null, pending: 1 }));
    await insertRowsAsJson(db, 't', rows, { chunk: 10 });
    const back = (await all()).filter((r) => r.id.startsWith('j'));
    expect(back).toEqual(rows);
    // Stored as integers, not as the text JSON carried them in.
    const typeOf = dialect === 'sqlite' ? sql`typeof(n)` : sql`pg_typeof(n)::text`;
    const types = await sql<{ t: string }>`select distinct ${typeOf} as t from t where id like 'j%' and n is not null`.execute(db);
    expect(types.rows).toEqual([{ t: dialect === 'sqlite' ? 'integer' : 'bigint' }]);
  });

  it('re-uses a compiled shape with other values in the shared columns', async () => {
    await insertRowsAsJson(db, 't', [{ id: 'k1', status: 'A', n: 1, note: null, pending: 1 }, { id: 'k2', status: 'A', n: 2, note: null, pending: 1 }]);
    await insertRowsAsJson(db, 't', [{ id: 'k3', status: 'B', n: 3, note: null, pending: 0 }, { id: 'k4', status: 'B', n: 4, note: null, pending: 0 }]);
    const back = (await all()).filter((r) => r.id.startsWith('k'));
    expect(back.map((r) => [r.id, r.status, r.n, r.pending])).toEqual([['k1', 'A', 1, 1], ['k2', 'A', 2, 1], ['k3', 'B', 3, 0], ['k4', 'B', 4, 0]]);
  });
});

describe('insertRowsAsJson with an upsert suffix', () => {
  it('returns the stored row for new and for already present ids', async () => {
    const suffix = sql`on conflict (id) do update set id = excluded.id returning id, status`;
    const out = await insertRowsAsJson<T, { id: string; status: string }>(db, 't', [
      { id: 'r00', status: 'OTHER', n: 0, note: null, pending: 1 },
      { id: 'u1', status: 'FRESH', n: 1, note: null, pending: 1 },
    ], { suffix });
    expect(out.sort((a, b) => a.id.localeCompare(b.id))).toEqual([{ id: 'r00', status: 'NEW' }, { id: 'u1', status: 'FRESH' }]);
  });
});
});

describe.runIf(BOTH_DIALECTS.includes('postgres'))('one process on both dialects', () => {
  it('keeps each shape compiled per dialect: the same statement shape runs on SQLite and on PostgreSQL in turn', async () => {
    const lite = await openScratch('sqlite');
    const pg = await openScratch('postgres');
    try {
      await createT(lite);
      await createT(pg);
      for (const [i, s] of [lite, pg, lite, pg].entries()) {
        const row = { id: `d${i}`, status: 'S', n: i, note: null, pending: 1 };
        await insertRowsAsJson(s.db, 't', [row, { ...row, id: `e${i}` }]);
        expect([...(await updateRowsById(s.db, 't', [{ id: `d${i}`, note: 'x' }, { id: `e${i}`, note: 'y' }], sql`pending = 1`))].sort()).toEqual([`d${i}`, `e${i}`]);
      }
      for (const s of [lite, pg]) expect((await s.db.selectFrom('t').select('id').orderBy('id').execute()).map((r) => r.id)).toHaveLength(4);
    } finally {
      await lite.close();
      await pg.close();
    }
  });
});

describe.runIf(BOTH_DIALECTS.includes('postgres'))('updateRowsById on PostgreSQL: the plan', () => {
  it('finds the rows by id, not by extraWhere, however many rows extraWhere matches', async () => {
    const schema = await createTestSchema('bulkplan');
    const { pool } = connectPostgres({ url: schema.url, poolMax: 1, ssl: null, sslCaFile: null }, () => undefined);
    const run: CompiledQuery[] = [];
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log: (e) => void (e.level === 'query' && run.push(e.query)) });
    try {
      await sql`create table t (id text primary key, status text not null, n bigint, note text, pending bigint not null)`.execute(db);
      await sql`create index t_pending on t (pending)`.execute(db);
      // 20,000 pending rows of some width and no statistics (as right after a batch, before any
      // ANALYZE): the planner takes `pending = 1` for a handful of rows.
      await sql`insert into t select 'p' || g, 'NEW', g, repeat('x', 300), 1 from generate_series(1, 20000) g`.execute(db);
      run.length = 0;
      const updated = await updateRowsById(db, 't', Array.from({ length: 20 }, (_, i) => ({ id: `p${i + 1}`, note: `n${i}`, status: 'SENT' })), sql`pending = 1`);
      expect(updated.size).toBe(20);
      const statement = run.find((q) => q.sql.startsWith('update'))!;
      const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${sql.raw(statement.sql.replace(/\$(\d+)/g, (_, k: string) => lit(statement.parameters[Number(k) - 1])))}`.execute(db);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('Index Scan using t_pkey');
      expect(plan).not.toContain('t_pending');
    } finally {
      await db.destroy();
      await schema.drop();
    }
  });
});

/** A bound value as an SQL literal, to EXPLAIN a statement exactly as it ran. */
function lit(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string') throw new Error(`unexpected parameter ${typeof v}`);
  return `'${v.replace(/'/g, "''")}'`;
}
