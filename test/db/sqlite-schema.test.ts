import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/bootstrap/database.js';

/**
 * The SQLite schema the migrations produce, byte for byte, against fixtures/sqlite-schema.sql:
 * taken from sqlite_master before the PostgreSQL dialect (dialect.ts) changed how the migrations
 * name their column types. A new migration adds to the fixture; nothing may change what is there.
 */
describe('SQLite schema', () => {
  it('is exactly what the migrations made before the PostgreSQL dialect', async () => {
    const expected = readFileSync(new URL('./fixtures/sqlite-schema.sql', import.meta.url), 'utf8');
    const database = await openDatabase(':memory:');
    try {
      const rows = database.raw.prepare("select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%' order by type, name").all() as { type: string; name: string; tbl_name: string; sql: string | null }[];
      const actual = rows.map((r) => `${r.type} ${r.name} ${r.tbl_name}\n${r.sql ?? ''}\n`).join('\n');
      expect(actual).toBe(expected);
    } finally {
      await database.close();
    }
  });
});
