import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import { AppError } from '../../errors.js';

/** Tables that are the migrator's bookkeeping, not data: the target gets its own from the migrations. */
export const isBookkeepingTable = (name: string): boolean => name.startsWith('kysely_') || name.startsWith('sqlite_');

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** One chunk of a table's rows as a JSON array of objects keyed by column name. */
export interface SourceChunk {
  json: string;
  rows: number;
}

/**
 * An existing SQLite installation, opened read-only inside one read transaction: every count and
 * every row comes from the same snapshot, even if something still wrote to the file meanwhile.
 * Rows leave as JSON built by SQLite itself (json_object): integers keep all 64 bits as digits
 * (JavaScript numbers would round above 2^53) and no row object is built in JavaScript.
 */
export class SqliteSource {
  private readonly raw: SQLite.Database;
  /** The migrations the file has applied, by name. */
  readonly migrations: string[];
  /** Application tables (not the migrator's), by name. */
  readonly tables: string[];

  private constructor(
    readonly file: string,
    raw: SQLite.Database,
  ) {
    this.raw = raw;
    const names = (raw.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((r) => r.name);
    if (!names.includes('kysely_migration')) {
      throw new AppError('VALIDATION_ERROR', `${file} is a SQLite database but not one of this server (it has no kysely_migration table)`);
    }
    this.migrations = (raw.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map((r) => r.name);
    this.tables = names.filter((n) => !isBookkeepingTable(n)).sort();
  }

  static open(file: string): SqliteSource {
    if (!fs.existsSync(file)) throw new AppError('VALIDATION_ERROR', `--from: no such file: ${file}`);
    if (!fs.statSync(file).isFile()) throw new AppError('VALIDATION_ERROR', `--from: not a file: ${file}`);
    let raw: SQLite.Database | undefined;
    try {
      raw = new SQLite(file, { readonly: true, fileMustExist: true });
      raw.pragma('busy_timeout = 5000');
      // The snapshot starts at the first read after BEGIN: everything below sees one state of the file.
      raw.exec('begin');
      return new SqliteSource(file, raw);
    } catch (err) {
      raw?.close();
      if (err instanceof AppError) throw err;
      const code = (err as { code?: unknown }).code;
      if (code === 'SQLITE_NOTADB') throw new AppError('VALIDATION_ERROR', `--from: ${file} is not a SQLite database`);
      throw new AppError('VALIDATION_ERROR', `--from: cannot read ${file}: ${(err as Error).message}`, { cause: err });
    }
  }

  columns(table: string): string[] {
    return (this.raw.prepare(`select name from pragma_table_info(?) order by cid`).all(table) as { name: string }[]).map((r) => r.name);
  }

  foreignKeys(): Array<{ child: string; parent: string }> {
    const edges: Array<{ child: string; parent: string }> = [];
    const stmt = this.raw.prepare('select "table" as parent from pragma_foreign_key_list(?)');
    for (const child of this.tables) for (const r of stmt.all(child) as { parent: string }[]) edges.push({ child, parent: r.parent });
    return edges;
  }

  count(table: string): number {
    return (this.raw.prepare(`select count(*) as n from ${quoteIdent(table)}`).get() as { n: number }).n;
  }

  /**
   * The table's rows in rowid order, `chunkRows` at a time (keyset pagination: each chunk is its
   * own statement, so nothing holds the connection while the caller awaits PostgreSQL).
   */
  *chunks(table: string, chunkRows: number): Generator<SourceChunk> {
    const pairs = this.columns(table).map((c) => `'${c.replace(/'/g, "''")}', ${quoteIdent(c)}`);
    const stmt = this.raw.prepare(
      `select json_group_array(json_object(${pairs.join(', ')})) as json, count(*) as n, max(__copy_rowid) as last
       from (select rowid as __copy_rowid, * from ${quoteIdent(table)} where rowid > ? order by rowid limit ?)`,
    );
    let after = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const chunk = stmt.get(after, chunkRows) as { json: string; n: number; last: number | null };
      if (chunk.n === 0) return;
      yield { json: chunk.json, rows: chunk.n };
      after = chunk.last!;
      if (chunk.n < chunkRows) return;
    }
  }

  close(): void {
    if (!this.raw.open) return;
    try {
      this.raw.exec('commit');
    } finally {
      this.raw.close();
    }
  }
}
