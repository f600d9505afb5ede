import { PostgresAdapter, type Kysely } from 'kysely';

/** Which database a Kysely instance talks to. */
export type DialectName = 'sqlite' | 'postgres';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations pass Kysely<any>
export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * The column type of every integer column the migrations create: `integer` on SQLite (64-bit
 * there, the SQL text the migrations have always produced), `bigint` on PostgreSQL, whose
 * `integer` is 32-bit and overflows on millisecond timestamps (≈1.7e12) and milli-credit amounts.
 * All integer columns get it, flags and counters too: one rule, no per-column judgement that a
 * later migration could get wrong. The pool reads int8 back as a JS number (database.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations pass Kysely<any>
export function intType(db: Kysely<any>): 'integer' | 'bigint' {
  return dialectOf(db) === 'postgres' ? 'bigint' : 'integer';
}
