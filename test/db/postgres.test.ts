import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/bootstrap/database.js';
import { sqliteHandle, type PostgresDb } from '../../src/platform/db/database.js';
import { migrations } from '../../src/bootstrap/migrations.js';
import { MIGRATION_LOCK_KEY, connectPostgres, postgresAnswers } from '../../src/platform/db/postgres.js';
import { until } from '../carriers/until.js';
import { ADVISORY_LOCK_WAITERS_SQL } from '../helpers/postgres.js';

/**
 * The PostgreSQL dialect against a real server (POSTGRES_ADMIN_URL, default the local cluster).
 * Each test makes its own database and drops it. Without a server the file skips, unless
 * REQUIRE_POSTGRES=1 (set by .ci/run): then it fails.
 */
const ADMIN_URL = process.env.POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function reachable(): Promise<string | null> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
    return null;
  } catch (err) {
    return String(err);
  } finally {
    await c.end().catch(() => undefined);
  }
}

const unreachable = await reachable();
const required = process.env.REQUIRE_POSTGRES === '1';

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const made: string[] = [];
async function freshDatabase(): Promise<string> {
  const name = `rcs_test_${process.pid}_${made.length}_${Date.now()}`;
  await admin((c) => c.query(`create database "${name}"`));
  made.push(name);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Opens the way the server does: DATABASE_URL through loadConfig, then openDatabase. */
async function openUrl(url: string): Promise<PostgresDb> {
  const config = loadConfig({ DATABASE_URL: url, DATABASE_POOL_MAX: '3' });
  expect(config.postgres).not.toBeNull();
  return openDatabase(config.postgres!);
}

async function tablesOf(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public' and table_name not like 'kysely_%' order by table_name");
    return rows.map((r) => r.table_name);
  } finally {
    await c.end();
  }
}

describe.runIf(required && unreachable !== null)('PostgreSQL required (REQUIRE_POSTGRES=1)', () => {
  it('is reachable', () => {
    throw new Error(`PostgreSQL is not reachable at ${ADMIN_URL.replace(/\/\/[^@]*@/, '//…@')}: ${unreachable}`);
  });
});

describe.skipIf(unreachable !== null)('PostgreSQL dialect', () => {
  let sqliteTables: string[] = [];

  beforeAll(async () => {
    const lite = await openDatabase(':memory:');
    sqliteTables = (sqliteHandle(lite).prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' order by name").all() as { name: string }[]).map((r) => r.name);
    await lite.close();
  });

  afterAll(async () => {
    await admin(async (c) => {
      for (const name of made) await c.query(`drop database if exists "${name}" with (force)`);
    });
  });

  it('DATABASE_URL opens PostgreSQL, runs every migration and creates the tables SQLite has', async () => {
    const url = await freshDatabase();
    const database = await openUrl(url);
    try {
      expect(database.dialect).toBe('postgres');
      const applied = await database.db.selectFrom('kysely_migration' as never).select('name' as never).execute();
      expect((applied as { name: string }[]).map((r) => r.name).sort()).toEqual(Object.keys(migrations).sort());
      expect(sqliteTables.length).toBeGreaterThan(30);
      expect(await tablesOf(url)).toEqual([...sqliteTables].sort());
      await expect(database.answers()).resolves.toBe(true);
    } finally {
      await database.close();
    }
  });

  it('stores millisecond timestamps and counts in bigint columns and reads them back as numbers', async () => {
    const url = await freshDatabase();
    const database = await openUrl(url);
    try {
      const { rows } = await database.pool.query<{ data_type: string }>("select data_type from information_schema.columns where table_name = 'accounts' and column_name = 'created_at'");
      expect(rows[0]?.data_type).toBe('bigint');
      const at = 1_795_000_000_123; // beyond int4
      await database.db.insertInto('accounts').values({ id: 'acc_pg', name: 'PG', timezone: 'UTC', approval_required: 1, credits_milli: 5_000_000_000, unsubscribe_url: null, company_profile: '{}', active: 1, created_at: at }).execute();
      const row = await database.db.selectFrom('accounts').select(['created_at', 'credits_milli']).where('id', '=', 'acc_pg').executeTakeFirstOrThrow();
      expect(row).toEqual({ created_at: at, credits_milli: 5_000_000_000 });
      const count = await database.db.selectFrom('accounts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(count.n).toBe(1);
    } finally {
      await database.close();
    }
  });

  it('messages carry no per-row foreign-key checks, yet follow a deleted account and a deleted job (migration 034)', async () => {
    const url = await freshDatabase();
    const database = await openUrl(url);
    try {
      const { rows: keys } = await database.pool.query<{ conname: string }>("select conname from pg_constraint where conrelid = 'messages'::regclass and contype = 'f'");
      expect(keys).toEqual([]);
      const db = database.db;
      // Plain SQL: only the columns these rows need (the other columns have defaults or allow null).
      const q = (text: string) => database.pool.query(text);
      await q("insert into accounts (id, name, timezone, approval_required, credits_milli, company_profile, active, created_at) values ('acc_a', 'A', 'UTC', 1, 0, '{}', 1, 1), ('acc_b', 'B', 'UTC', 1, 0, '{}', 1, 1)");
      await q("insert into jobs (id, account_id, kind, type, sendername_id, total, rejected, batch_size, delay_ms, created_at) values ('job_a', 'acc_a', 'batch', 'SMS', 'snd_x', 1, '[]', 1, 0, 1), ('job_b1', 'acc_b', 'batch', 'SMS', 'snd_x', 1, '[]', 1, 0, 1), ('job_b2', 'acc_b', 'batch', 'SMS', 'snd_x', 1, '[]', 1, 0, 1)");
      const message = (id: string, accountId: string, jobId: string | null) => `('${id}', '${accountId}', ${jobId === null ? 'null' : `'${jobId}'`}, 'SMS', 'SENT', 'outbound', 'api', '491510000000', 'snd_x', 'hi', 1, 0, 1)`;
      await q(`insert into messages (id, account_id, job_id, type, status, direction, source, phone, sendername_id, text, created_at, pending, due_at) values ${[message('msg_a1', 'acc_a', 'job_a'), message('msg_a2', 'acc_a', null), message('msg_b1', 'acc_b', 'job_b1'), message('msg_b2', 'acc_b', 'job_b2')].join(', ')}`);

      await db.deleteFrom('jobs').where('id', '=', 'job_b1').execute();
      await db.deleteFrom('accounts').where('id', '=', 'acc_a').execute();
      const left = await db.selectFrom('messages').select(['id', 'job_id']).orderBy('id').execute();
      // acc_a's messages went with it; msg_b1 lost its deleted job; msg_b2 is untouched.
      expect(left).toEqual([
        { id: 'msg_b1', job_id: null },
        { id: 'msg_b2', job_id: 'job_b2' },
      ]);
    } finally {
      await database.close();
    }
  });

  it('two instances starting together: one migrates under the advisory lock, both open', async () => {
    const url = await freshDatabase();
    // Hold the migration lock first (advisory locks are per database): neither instance may touch the schema until it is released.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query(`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
    let settled = 0;
    const track = (p: Promise<PostgresDb>) => p.finally(() => settled++);
    const opens = [track(openUrl(url)), track(openUrl(url))] as const;
    try {
      // Both are queued for the lock in PostgreSQL's lock manager: blocked, not merely slower than a fixed sleep.
      await until('both instances queued for the migration lock', async () => (await holder.query<{ n: number }>(ADVISORY_LOCK_WAITERS_SQL)).rows[0]!.n >= 2);
      expect(settled).toBe(0);
      expect(await tablesOf(url)).toEqual([]);
    } finally {
      await holder.query(`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
      await holder.end();
    }
    const [a, b] = await Promise.all(opens);
    try {
      const { rows } = await a.pool.query<{ n: number }>('select count(*) as n from kysely_migration');
      expect(rows[0]?.n).toBe(Object.keys(migrations).length);
      expect(await tablesOf(url)).toEqual([...sqliteTables].sort());
      await expect(b.answers()).resolves.toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a database that does not answer is reported down, not hung', async () => {
    const errors: Error[] = [];
    const { db } = connectPostgres({ url: 'postgres://postgres@127.0.0.1:1/none', poolMax: 1, ssl: null, sslCaFile: null }, (e) => errors.push(e));
    try {
      await expect(postgresAnswers(db)).resolves.toBe(false);
    } finally {
      await db.destroy();
    }
  });
});
