import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonList, jsonObjectAgg, selectRowsViaJson } from '../../src/platform/db/sql.js';
import { BOTH_DIALECTS, openScratch, type Scratch } from '../helpers/scratch-db.js';

describe.each(BOTH_DIALECTS)('JSON helpers on %s', (dialect) => {
// Untyped like a caller's ad-hoc tables: any table name is allowed.
let db: Kysely<any>;
let scratch: Scratch;

beforeEach(async () => {
  scratch = await openScratch(dialect);
  db = scratch.db;
  await sql`create table p (id text primary key, name text, n ${sql.raw(scratch.intType)}, note text)`.execute(db);
  await sql`create table tag (p_id text not null, k text not null, v text not null)`.execute(db);
  await db.insertInto('p').values([
    { id: 'a', name: 'Ann "quoted" \\ \u00e9 \u{1F600}', n: 2 ** 52, note: null },
    { id: 'b', name: 'Bob', n: -7, note: 'line\nbreak' },
    { id: 'c', name: 'Cy', n: 0, note: '' },
  ]).execute();
  await db.insertInto('tag').values([
    { p_id: 'a', k: 'tier', v: 'gold' },
    { p_id: 'a', k: 'city', v: '{"not":"json for us"}' },
    { p_id: 'b', k: 'tier', v: 'silver' },
  ]).execute();
});

afterEach(async () => {
  await scratch.close();
});

const withTags = () =>
  db
    .selectFrom('p')
    .select(['p.id', 'p.name', 'p.n', 'p.note'])
    .select((eb) => eb.selectFrom('tag').select(jsonObjectAgg(db, 'tag.k', 'tag.v').as('tags')).whereRef('tag.p_id', '=', 'p.id').as('tags'));

describe('selectRowsViaJson', () => {
  it('returns the rows as arrays with text, integers and NULL exactly as stored, JSON columns parsed', async () => {
    const rows = await selectRowsViaJson<[string, string, number, string | null, Record<string, string>]>(db, withTags(), ['id', 'name', 'n', 'note', 'tags'], new Set(['tags']));
    const byId = new Map(rows.map((r) => [r[0], r]));
    expect(rows).toHaveLength(3);
    expect(byId.get('a')).toEqual(['a', 'Ann "quoted" \\ \u00e9 \u{1F600}', 2 ** 52, null, { tier: 'gold', city: '{"not":"json for us"}' }]);
    expect(byId.get('b')).toEqual(['b', 'Bob', -7, 'line\nbreak', { tier: 'silver' }]);
    // No rows to aggregate: an empty object, not NULL and not a string.
    expect(byId.get('c')).toEqual(['c', 'Cy', 0, '', {}]);
  });

  it('keeps a JSON column as text when it is not named as JSON', async () => {
    const rows = await selectRowsViaJson<[string, string]>(db, withTags().where('p.id', '=', 'b'), ['id', 'tags']);
    expect(rows).toHaveLength(1);
    expect(rows[0]![0]).toBe('b');
    // Text (PostgreSQL spaces it differently), holding the same object.
    expect(typeof rows[0]![1]).toBe('string');
    expect(JSON.parse(rows[0]![1])).toEqual({ tier: 'silver' });
  });

  it('binds the parameters of the inner query, and answers an empty list for no rows', async () => {
    const some = await selectRowsViaJson<[string]>(db, db.selectFrom('p').select('id').where('id', 'in', jsonList(db, ['a', 'c', 'zz'])), ['id']);
    expect(some.map((r) => r[0]).sort()).toEqual(['a', 'c']);
    expect(await selectRowsViaJson(db, db.selectFrom('p').select('id').where('id', '=', 'nobody'), ['id'])).toEqual([]);
  });
});
});
