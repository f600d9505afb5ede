import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import type { DbOrTx } from './database.js';
import { dialectOf, type DialectName } from './dialect.js';

/**
 * Compiled SQL by shape, one map per dialect: one process may hold SQLite and PostgreSQL at once
 * (tests, the copy command), and a shape's text differs between them. null when re-binding was
 * found unsafe for that shape.
 */
const sqlByShape: Record<DialectName, Map<string, string | null>> = { sqlite: new Map(), postgres: new Map() };

/**
 * Runs the statement of `shape` with `params`, building and compiling it with Kysely only the first
 * time; later calls bind `params` to the cached SQL (SQLite's prepared statement is cached by its
 * text in database.ts). Building and compiling a query costs more than running it when the query
 * is a small read on a hot path or a statement of hundreds of rows. `shape` must name everything
 * that changes the SQL text; `params` are the values it binds, in statement order. The first
 * compile of a shape checks that Kysely binds exactly `params`; if not (a constant bound as a
 * parameter, say), that shape is always compiled afresh. Shapes are kept per dialect.
 */
export async function runCompiledOnce<O>(db: DbOrTx, shape: string, params: readonly unknown[], compile: () => CompiledQuery<O>): Promise<QueryResult<O>> {
  const shapes = sqlByShape[dialectOf(db)];
  const cached = shapes.get(shape);
  if (cached) return db.executeQuery<O>(CompiledQuery.raw(cached, params as unknown[]));
  const compiled = compile();
  if (cached === undefined) {
    const same = compiled.parameters.length === params.length && compiled.parameters.every((p, i) => p === params[i]);
    shapes.set(shape, same ? compiled.sql : null);
  }
  return db.executeQuery<O>(compiled);
}

/** A read through runCompiledOnce: the rows of the query `build` makes. */
export async function selectCompiledOnce<O>(db: DbOrTx, shape: string, params: readonly unknown[], build: () => Compilable<O>): Promise<O[]> {
  return (await runCompiledOnce(db, `select:${shape}`, params, () => build().compile())).rows;
}
