import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/bootstrap/database.js';
import type { PostgresConfig } from '../../src/platform/db/postgres.js';
import { migrations } from '../../src/bootstrap/migrations.js';
import { testDatabaseEnv } from '../helpers/database.js';
import type { TestSchema } from '../helpers/postgres.js';

/**
 * A rolling upgrade (docs/deployment.md): the first instance of the new version migrates, and an
 * instance of the previous version that restarts meanwhile must still start — on the newer,
 * additive schema, without migrating — instead of refusing as Kysely's Migrator does.
 */
describe('an instance of an older version on a database a newer one migrated', () => {
  let target: string | PostgresConfig;
  let schema: TestSchema | null = null;
  let dir: string | null = null;
  const known = Object.keys(migrations);
  const last = known[known.length - 1]!;

  beforeAll(async () => {
    const { env, schema: s } = await testDatabaseEnv('newer_schema');
    schema = s;
    if (s) target = loadConfig(env).postgres!;
    else {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-newer-'));
      target = path.join(dir, 'rcs.sqlite');
    }
    // The newer version: every migration of this one, and one more.
    const db = await openDatabase(target);
    await sql`insert into kysely_migration (name, timestamp) values ('999_from_a_newer_version', ${new Date().toISOString()})`.execute(db.db);
    await db.close();
  });
  afterAll(async () => {
    await schema?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts without migrating and names the migrations it does not know', async () => {
    const newer: string[][] = [];
    const db = await openDatabase(target, { onNewerSchema: (n) => newer.push(n) });
    try {
      expect(newer).toEqual([['999_from_a_newer_version']]);
      // The schema is usable as it is: a read and a write of this version's tables.
      await db.db.insertInto('accounts').values({ id: 'acc_old', name: 'Old', timezone: 'UTC', approval_required: 0, unsubscribe_url: null, company_profile: '{}', active: 1, created_at: 0 }).execute();
      expect(await db.db.selectFrom('accounts').select('id').execute()).toEqual([{ id: 'acc_old' }]);
      const names = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db.db)).rows.map((r) => r.name);
      expect(names).toEqual([...known, '999_from_a_newer_version'].sort());
    } finally {
      await db.close();
    }
  });

  it('refuses a database that holds unknown migrations but lacks one of its own', async () => {
    const db = await openDatabase(target, { onNewerSchema: () => undefined });
    await sql`delete from kysely_migration where name = ${last}`.execute(db.db);
    await db.close();
    const seen: string[][] = [];
    await expect(openDatabase(target, { onNewerSchema: (n) => seen.push(n) })).rejects.toThrow(new RegExp(`migrations this version does not know \\(999_from_a_newer_version\\) but not this version's ${last}`));
    expect(seen).toEqual([]);
  });
});
