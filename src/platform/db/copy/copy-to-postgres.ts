import { AppError } from '../../errors.js';
import { migrateToLatest } from '../database.js';
import type { Migrations } from '../migration-parts.js';
import { connectPostgres, withMigrationLock, type PostgresConfig } from '../postgres.js';
import { PostgresTarget } from './postgres-target.js';
import { SqliteSource } from './sqlite-source.js';
import { foreignKeySafeOrder } from './table-order.js';

export interface CopyProgress {
  table: string;
  tableRowsDone: number;
  tableRows: number;
  rowsDone: number;
  rowsTotal: number;
  /** 1-based position of `table` in the copy order. */
  tableNumber: number;
  tableCount: number;
}

export interface CopyResult {
  /** Per table, in the order copied: rows in the source snapshot and in the target after the copy. */
  tables: Array<{ table: string; source: number; target: number }>;
  rows: number;
  schema: string;
  sequences: string[];
  elapsedMs: number;
}

export interface CopyOptions {
  /** The SQLite file of an installation (DATA_DIR/rcs.sqlite). */
  from: string;
  to: PostgresConfig;
  /** This version's migrations (src/bootstrap/migrations.ts): the source must have run exactly these; the target gets them. */
  migrations: Migrations;
  /** Rows per INSERT statement. */
  chunkRows?: number;
  onProgress?: (p: CopyProgress) => void;
}

/**
 * 1,000 rows per statement: a message row with rich content is a few KB of JSON, so a chunk stays
 * a few MB; larger chunks measured no faster (docs/decisions.md "Copying SQLite into PostgreSQL").
 */
export const DEFAULT_CHUNK_ROWS = 1000;

/** Host, port and database of a URL, never its credentials: for messages. */
export function describeTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return '(the given URL)';
  }
}

function checkSchemaVersion(source: SqliteSource, migrations: Migrations): void {
  const expected = Object.keys(migrations);
  const missing = expected.filter((m) => !source.migrations.includes(m));
  const unknown = source.migrations.filter((m) => !expected.includes(m));
  if (missing.length === 0 && unknown.length === 0) return;
  const parts: string[] = [];
  if (missing.length > 0) {
    parts.push(`it lacks ${missing.join(', ')}: start this version of the server on it once (that migrates it), stop it, then copy`);
  }
  if (unknown.length > 0) {
    parts.push(`it has ${unknown.join(', ')}, which this version does not know: copy with the version of the server that wrote it`);
  }
  throw new AppError('VALIDATION_ERROR', `${source.file} is at another schema version than this server (${expected.at(-1)}): ${parts.join('; ')}`);
}

function notEmpty(tables: string[], where: string): AppError {
  const shown = tables.slice(0, 8).join(', ') + (tables.length > 8 ? ` and ${tables.length - 8} more` : '');
  return new AppError(
    'CONFLICT',
    `The target ${where} is not empty (rows in ${shown}). The copy goes only into an empty database, so nothing is ` +
      'overwritten or merged: create a new database (createdb …) or empty this one, then run the command again.',
  );
}

/**
 * Copies an existing SQLite installation into PostgreSQL: the source must be at this code's
 * schema version; the target is migrated to it (under the same advisory lock as a starting
 * server) and must hold no rows. Everything then happens in ONE PostgreSQL transaction — tables in
 * foreign-key order, chunked multi-row inserts, sequences moved past the copied values, row counts
 * compared per table — so a failed or refused copy leaves the target as it was, ready for another run.
 */
export async function copySqliteToPostgres(o: CopyOptions): Promise<CopyResult> {
  const started = Date.now();
  const chunkRows = o.chunkRows ?? DEFAULT_CHUNK_ROWS;
  const where = describeTarget(o.to.url);
  const source = SqliteSource.open(o.from);
  // Two connections: the copy's, and the one the migrations hold their advisory lock on.
  const { db, pool } = connectPostgres({ ...o.to, poolMax: 2 }, () => undefined);
  try {
    checkSchemaVersion(source, o.migrations);
    let client;
    try {
      client = await pool.connect();
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', `Cannot connect to PostgreSQL at ${where}: ${(err as Error).message}`, { cause: err });
    }
    try {
      const target = new PostgresTarget(client);
      const schema = await target.schema();
      // Before migrating: a database that holds something else must not get our tables created in it.
      const before = await target.tablesWithRows(await target.tables());
      if (before.length > 0) throw notEmpty(before, `${where} (schema ${schema})`);
      await withMigrationLock(db, (conn) => migrateToLatest(conn, o.migrations));

      await client.query('begin');
      try {
        const targetTables = await target.tables();
        await target.lock(targetTables);
        const raced = await target.tablesWithRows(targetTables);
        if (raced.length > 0) throw notEmpty(raced, `${where} (schema ${schema})`);
        const missing = source.tables.filter((t) => !targetTables.includes(t));
        if (missing.length > 0) throw new AppError('INTERNAL', `The migrated target lacks tables the source has: ${missing.join(', ')}`);
        for (const table of source.tables) {
          const [from, to] = [source.columns(table), await target.columns(table)];
          if (from.join(',') !== to.join(',')) {
            throw new AppError('VALIDATION_ERROR', `Table ${table} has other columns in the source (${from.join(', ')}) than this version creates (${to.join(', ')}); was the SQLite file changed by hand?`);
          }
        }
        const order = foreignKeySafeOrder(source.tables, await target.foreignKeys());
        const counts = new Map(order.map((t) => [t, source.count(t)]));
        const rowsTotal = [...counts.values()].reduce((a, b) => a + b, 0);
        let rowsDone = 0;
        for (const [i, table] of order.entries()) {
          const tableRows = counts.get(table)!;
          let tableRowsDone = 0;
          const progress = () => o.onProgress?.({ table, tableRowsDone, tableRows, rowsDone, rowsTotal, tableNumber: i + 1, tableCount: order.length });
          progress();
          await copyTable(source, target, table, chunkRows, (inserted) => {
            tableRowsDone += inserted;
            rowsDone += inserted;
            progress();
          });
        }
        const sequences = await target.resetSequences();
        const tables: CopyResult['tables'] = [];
        for (const table of order) tables.push({ table, source: counts.get(table)!, target: await target.count(table) });
        const wrong = tables.filter((t) => t.source !== t.target);
        if (wrong.length > 0) {
          throw new AppError('INTERNAL', `Row counts differ after the copy: ${wrong.map((t) => `${t.table} ${t.source} in the source, ${t.target} in the target`).join('; ')}. Nothing was committed.`);
        }
        await client.query('commit');
        return { tables, rows: rowsDone, schema, sequences, elapsedMs: Date.now() - started };
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      }
    } finally {
      client.release();
    }
  } finally {
    source.close();
    await db.destroy();
  }
}

/** One table, chunk by chunk; `onChunk` after each chunk committed to the transaction. */
async function copyTable(source: SqliteSource, target: PostgresTarget, table: string, chunkRows: number, onChunk: (inserted: number) => void): Promise<void> {
  let done = 0;
  const chunks = source.chunks(table, chunkRows);
  for (let next = chunks.next(); !next.done; ) {
    const chunk = next.value;
    let inserted: number;
    try {
      const pending = target.insertChunk(table, chunk.json);
      try {
        // The next chunk is read from SQLite while PostgreSQL inserts this one (pg has sent it already).
        next = chunks.next();
      } catch (err) {
        await pending.catch(() => undefined);
        throw err;
      }
      inserted = await pending;
    } catch (err) {
      const msg = (err as Error).message;
      const hint = /\\u0000|unsupported Unicode escape/.test(msg) ? ' (a text value holds the NUL character, which PostgreSQL text cannot store; correct that row in the SQLite file first)' : '';
      throw new AppError('VALIDATION_ERROR', `Copying ${table} failed after ${done} of its rows: ${msg}${hint}. Nothing was committed.`, { cause: err });
    }
    if (inserted !== chunk.rows) throw new AppError('INTERNAL', `Copying ${table}: ${chunk.rows} rows read, ${inserted} inserted. Nothing was committed.`);
    done += inserted;
    onChunk(inserted);
  }
}
