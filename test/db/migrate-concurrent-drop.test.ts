import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/bootstrap/database.js';
import { testDatabaseEnv } from '../helpers/database.js';
import { createTestSchema, onPostgres } from '../helpers/postgres.js';

/**
 * Migrating while another session drops its own schema in the same database (another
 * installation, another test file): Kysely's Migrator lists every table of every schema and
 * resolves each by name, so a schema dropped between the listing and the lookup failed the
 * migration with "schema … does not exist" (seen in the suite with three files at once). The
 * migration is tried again; nothing of it ran.
 */
describe.runIf(onPostgres)('migrations while other schemas come and go', () => {
  it('a fresh schema migrates while other sessions create and drop schemas with tables', async () => {
    // Many tables elsewhere make each listing long enough for drops to land inside it.
    const ballast = await createTestSchema('ballast');
    const b = new pg.Client({ connectionString: ballast.url });
    await b.connect();
    await b.query(`do $$ begin for i in 1..1500 loop execute format('create table b%s (id serial primary key)', i); end loop; end $$`);
    await b.end();
    let stop = false;
    const churn = async () => {
      while (!stop) {
        const other = await createTestSchema('churn');
        const c = new pg.Client({ connectionString: other.url });
        await c.connect();
        // Serial columns: what the Migrator's listing resolves by name.
        await c.query(`do $$ begin for i in 1..30 loop execute format('create table t%s (id serial primary key)', i); end loop; end $$`);
        await c.end();
        await other.drop();
      }
    };
    const churning = [churn(), churn(), churn()];
    try {
      for (let i = 0; i < 4; i++) {
        const { env, schema } = await testDatabaseEnv(`migrate_race_${i}`);
        const db = await openDatabase(loadConfig(env).postgres!);
        await db.close();
        await schema?.drop();
      }
    } finally {
      stop = true;
      await Promise.all(churning);
      await ballast.drop();
    }
    expect(stop).toBe(true);
  }, 120_000);
});
