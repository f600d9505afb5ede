import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOTH_DIALECTS, openScratch, type Scratch } from '../helpers/scratch-db.js';
import { AppError } from '../../src/platform/errors.js';
import { decodeCursor, encodeCursor, keysetPage, pagePagination, singlePage, type CursorScope } from '../../src/platform/pagination.js';

interface ItemsTable {
  id: string;
  n: number;
  name: string | null;
}
interface TestDb {
  items: ItemsTable;
}

const scope: CursorScope = { kind: 'items', sort: 'n', order: 'asc' };

function expectInvalidCursor(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('INVALID_CURSOR');
    expect((err as AppError).status).toBe(400);
    return;
  }
  throw new Error('expected INVALID_CURSOR');
}

describe('cursor encoding', () => {
  it('round-trips numbers and strings and is base64url', () => {
    const c = encodeCursor(scope, { value: 42, id: 'ct_1' });
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c, scope)).toEqual({ value: 42, id: 'ct_1' });
    const s = encodeCursor({ ...scope, sort: 'name' }, { value: 'ünï +/=', id: 'x' });
    expect(decodeCursor(s, { ...scope, sort: 'name' })).toEqual({ value: 'ünï +/=', id: 'x' });
  });

  it('refuses garbage, tampering and cursors of another list, sort or order', () => {
    const good = encodeCursor(scope, { value: 1, id: 'a' });
    expectInvalidCursor(() => decodeCursor('', scope));
    expectInvalidCursor(() => decodeCursor('not a cursor!', scope));
    expectInvalidCursor(() => decodeCursor('abc', scope));
    expectInvalidCursor(() => decodeCursor('x'.repeat(3000), scope));
    expectInvalidCursor(() => decodeCursor(Buffer.from('[1,2]').toString('base64url'), scope));
    expectInvalidCursor(() => decodeCursor(Buffer.from('null').toString('base64url'), scope));
    expectInvalidCursor(() => decodeCursor(good, { ...scope, kind: 'other' }));
    expectInvalidCursor(() => decodeCursor(good, { ...scope, sort: 'name' }));
    expectInvalidCursor(() => decodeCursor(good, { ...scope, order: 'desc' }));
    const bad = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64url');
    expectInvalidCursor(() => decodeCursor(bad({ k: 'items', s: 'n', o: 'asc', v: { $gt: 1 }, i: 'a' }), scope));
    expectInvalidCursor(() => decodeCursor(bad({ k: 'items', s: 'n', o: 'asc', v: 1, i: 5 }), scope));
    expectInvalidCursor(() => decodeCursor(bad({ k: 'items', s: 'n', o: 'asc', v: 1, i: '' }), scope));
    expectInvalidCursor(() => decodeCursor(bad({ k: 'items', s: 'n', o: 'asc', i: 'a' }), scope));
  });
});

describe.each(BOTH_DIALECTS)('keysetPage on %s', (dialect) => {
  let scratch: Scratch;
  let db: Kysely<TestDb>;
  let seq = 0;
  const nextId = () => `id${String(++seq).padStart(6, '0')}`;

  beforeAll(async () => {
    scratch = await openScratch(dialect);
    db = scratch.db as Kysely<TestDb>;
    await db.schema.createTable('items').addColumn('id', 'text', (c) => c.primaryKey()).addColumn('n', scratch.intType, (c) => c.notNull()).addColumn('name', 'text').execute();
    // 53 rows with many equal sort values and some NULL names.
    for (let i = 0; i < 53; i++) {
      await db.insertInto('items').values({ id: nextId(), n: i % 7, name: i % 5 === 0 ? null : `Name${(i * 13) % 11}` }).execute();
    }
  });
  afterAll(async () => {
    await scratch.close();
  });

  async function walk(order: 'asc' | 'desc', limit: number, sortExpr = sql`n`, sort = 'n', during?: () => Promise<void>) {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const { rows, pagination } = await keysetPage(db.selectFrom('items').selectAll(), {
        scope: { kind: 'items', sort, order },
        sortExpr,
        idExpr: sql.ref('id'),
        limit,
        cursor,
      });
      pages++;
      expect(pagination.count).toBe(rows.length);
      expect(pagination.limit).toBe(limit);
      expect(rows.every((r) => !('__sort_key' in r))).toBe(true);
      seen.push(...rows.map((r) => r.id));
      if (during) await during();
      if (!pagination.hasNext) {
        expect(pagination.nextCursor).toBeNull();
        break;
      }
      expect(rows.length).toBe(limit);
      cursor = pagination.nextCursor!;
      if (pages > 1000) throw new Error('runaway walk');
    }
    return seen;
  }

  it('visits every row exactly once in both orders, with ties on the sort value', async () => {
    const all = (await db.selectFrom('items').select('id').execute()).map((r) => r.id).sort();
    for (const order of ['asc', 'desc'] as const) {
      for (const limit of [1, 5, 7, 53, 200]) {
        const seen = await walk(order, limit);
        expect(new Set(seen).size).toBe(seen.length);
        expect([...seen].sort()).toEqual(all);
      }
    }
  });

  it('orders by (sort value, id)', async () => {
    const seen = await walk('desc', 10);
    const rows = await db.selectFrom('items').selectAll().execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (let i = 1; i < seen.length; i++) {
      const a = byId.get(seen[i - 1]!)!;
      const b = byId.get(seen[i]!)!;
      expect(a.n > b.n || (a.n === b.n && a.id > b.id)).toBe(true);
    }
  });

  it('works on an expression over a nullable column (coalesce)', async () => {
    const all = (await db.selectFrom('items').select('id').execute()).map((r) => r.id).sort();
    const seen = await walk('asc', 4, sql`lower(coalesce(name, ''))`, 'name');
    expect([...seen].sort()).toEqual(all);
  });

  it('never repeats or skips pre-existing rows while rows are inserted during the walk', async () => {
    const before = (await db.selectFrom('items').select('id').execute()).map((r) => r.id).sort();
    let k = 0;
    const seen = await walk('asc', 6, sql`n`, 'n', async () => {
      // Inserts before and after the current position.
      await db.insertInto('items').values({ id: nextId(), n: k++ % 7, name: 'new' }).execute();
      await db.insertInto('items').values({ id: nextId(), n: -1, name: 'new' }).execute();
    });
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen).toContain(id);
  });

  it('rejects a cursor made for another order', async () => {
    const { pagination } = await keysetPage(db.selectFrom('items').selectAll(), { scope, sortExpr: sql`n`, idExpr: sql.ref('id'), limit: 2 });
    await expect(
      keysetPage(db.selectFrom('items').selectAll(), { scope: { ...scope, order: 'desc' }, sortExpr: sql`n`, idExpr: sql.ref('id'), limit: 2, cursor: pagination.nextCursor! }),
    ).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
  });
});

describe('page pagination', () => {
  it('computes totalPages', () => {
    expect(pagePagination(1, 20, 0)).toEqual({ page: 1, limit: 20, total: 0, totalPages: 0 });
    expect(pagePagination(2, 20, 20)).toEqual({ page: 2, limit: 20, total: 20, totalPages: 1 });
    expect(pagePagination(1, 20, 21).totalPages).toBe(2);
  });
  it('singlePage has no next page', () => {
    expect(singlePage([1], 50)).toEqual({ data: [1], pagination: { nextCursor: null, hasNext: false, limit: 50, count: 1 } });
  });
});
