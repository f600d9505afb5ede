import { readFileSync } from 'node:fs';
import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from './schema.js';

/** DATABASE_URL and its companions, as config.ts parses them. */
export interface PostgresConfig {
  url: string;
  /** DATABASE_POOL_MAX: connections this instance keeps open at most. */
  poolMax: number;
  /** DATABASE_SSL; null: whatever the URL says (`?sslmode=`), else no TLS. */
  ssl: 'disable' | 'require' | 'verify-full' | null;
  /** DATABASE_SSL_CA: a PEM file of the CA(s) to trust with verify-full; null: the system's. */
  sslCaFile: string | null;
}

/**
 * The advisory lock every instance takes around its migrations (pg_advisory_lock, session level):
 * when several instances start together one migrates and the others wait, then find nothing to
 * do. A fixed key of our own; Kysely's Migrator takes a transaction-level lock of its own as well,
 * but only after creating its bookkeeping tables, which two instances could race on.
 */
export const MIGRATION_LOCK_KEY = 7_309_402_618_551_019n;

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Integer columns are bigint on PostgreSQL (dialect.ts) and `count(*)` is bigint, which `pg`
 * returns as strings by default (they may exceed 2^53). Everything this schema stores in them —
 * millisecond timestamps, milli-credits, counters — is far below 2^53, and the code expects
 * numbers, as SQLite gives them: int8 and numeric (`sum()` of bigint) are read as numbers.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** The connection string without the URL's own TLS parameters when DATABASE_SSL decides (pg lets the URL win otherwise). */
function connectionString(config: PostgresConfig): string {
  if (config.ssl === null) return config.url;
  const u = new URL(config.url);
  for (const p of ['sslmode', 'sslcert', 'sslkey', 'sslrootcert', 'ssl']) u.searchParams.delete(p);
  return u.toString();
}

function tlsOptions(config: PostgresConfig): pg.PoolConfig['ssl'] {
  switch (config.ssl) {
    case null:
      return undefined;
    case 'disable':
      return false;
    // libpq's sslmode=require: encrypted, the certificate not checked.
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-full':
      return { rejectUnauthorized: true, ...(config.sslCaFile ? { ca: readFileSync(config.sslCaFile, 'utf8') } : {}) };
  }
}

export interface PostgresHandle {
  db: Kysely<Database>;
  pool: pg.Pool;
}

/** How every connection of this process reaches the server: the pool's and the change feed's. */
export function postgresClientConfig(config: PostgresConfig): pg.ClientConfig {
  return {
    connectionString: connectionString(config),
    ssl: tlsOptions(config),
    types,
    // A database that does not answer fails a query (and /health) instead of hanging it.
    connectionTimeoutMillis: 5000,
  };
}

/** A pooled connection to PostgreSQL through Kysely's PostgresDialect; nothing is connected until the first query. */
export function connectPostgres(config: PostgresConfig, onError: (err: Error) => void): PostgresHandle {
  const pool = new pg.Pool({ ...postgresClientConfig(config), max: config.poolMax });
  // An idle connection the server drops emits 'error' on the pool; unhandled, it would end the process.
  pool.on('error', onError);
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool };
}

/** Runs `migrate` on one connection holding MIGRATION_LOCK_KEY; the lock goes with the session if the process dies. */
export async function withMigrationLock(db: Kysely<Database>, migrate: (conn: Kysely<Database>) => Promise<void>): Promise<void> {
  await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(conn);
    try {
      await migrate(conn);
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(conn);
    }
  });
}

/** True when PostgreSQL answers `select 1` through the pool. */
export async function postgresAnswers(db: Kysely<Database>): Promise<boolean> {
  try {
    const { rows } = await sql<{ ok: number }>`select 1 as ok`.execute(db);
    return rows[0]?.ok === 1;
  } catch {
    return false;
  }
}
