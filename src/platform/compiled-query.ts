import { CompiledQuery, type Compilable } from 'kysely';
import type { DbOrTx } from './db/database.js';

/** Compiled SQL by shape; null when re-binding was found unsafe for that shape. */
const sqlByShape = new Map<string, string | null>();

/**
 * Runs the query `build` makes, building and compiling it with Kysely only the first time per
 * `shape`; later calls bind `params` to the cached SQL (SQLite's prepared statement is cached by
 * its text in database.ts). For small reads on hot paths: building a select with a few where and
 * order-by clauses and compiling it costs several times what SQLite takes to run it. `shape` must
 * name everything that changes the SQL text (which optional filters are present); `params` are the
 * values the query binds, in statement order. The first compile of a shape checks that Kysely binds
 * exactly `params`; if not (a constant bound as a parameter, say), that shape is always compiled
 * afresh. The same scheme as the bulk statements of db/bulk.ts.
 */
export async function selectCompiledOnce<O>(db: DbOrTx, shape: string, params: readonly unknown[], build: () => Compilable<O>): Promise<O[]> {
  const cached = sqlByShape.get(shape);
  if (cached) return (await db.executeQuery<O>(CompiledQuery.raw(cached, params as unknown[]))).rows;
  const compiled = build().compile();
  if (cached === undefined) {
    const same = compiled.parameters.length === params.length && compiled.parameters.every((p, i) => p === params[i]);
    sqlByShape.set(shape, same ? compiled.sql : null);
  }
  return (await db.executeQuery<O>(compiled)).rows;
}
