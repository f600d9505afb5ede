import type pg from 'pg';
import { AppError } from '../../errors.js';
import type { ForeignKeyEdge } from './table-order.js';
import { isBookkeepingTable } from './sqlite-source.js';

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * The PostgreSQL side of the copy, on one connection: what the target schema (the first schema of
 * the connection's search_path, where the server's unqualified names go) holds, and the statements
 * that fill it.
 */
export class PostgresTarget {
  constructor(private readonly client: pg.PoolClient | pg.Client) {}

  async schema(): Promise<string> {
    const { rows } = await this.client.query<{ schema: string | null }>('select current_schema() as schema');
    const schema = rows[0]?.schema;
    if (!schema) throw new AppError('VALIDATION_ERROR', 'The target has no schema on its search_path: create it, or fix search_path in the URL');
    return schema;
  }

  /** Every table of the target schema except the migrator's bookkeeping. */
  async tables(): Promise<string[]> {
    const { rows } = await this.client.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name",
    );
    return rows.map((r) => r.name).filter((n) => !isBookkeepingTable(n));
  }

  /** Tables that hold at least one row (an existence probe: a count of a large table would take a while). */
  async tablesWithRows(tables: readonly string[]): Promise<string[]> {
    const nonEmpty: string[] = [];
    for (const t of tables) {
      const { rowCount } = await this.client.query(`select 1 from ${quoteIdent(t)} limit 1`);
      if ((rowCount ?? 0) > 0) nonEmpty.push(t);
    }
    return nonEmpty;
  }

  async columns(table: string): Promise<string[]> {
    const { rows } = await this.client.query<{ name: string }>(
      'select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = $1 order by ordinal_position',
      [table],
    );
    return rows.map((r) => r.name);
  }

  async foreignKeys(): Promise<ForeignKeyEdge[]> {
    const { rows } = await this.client.query<ForeignKeyEdge>(
      `select child.relname as child, parent.relname as parent
       from pg_constraint c
       join pg_class child on child.oid = c.conrelid
       join pg_class parent on parent.oid = c.confrelid
       join pg_namespace n on n.oid = child.relnamespace
       where c.contype = 'f' and n.nspname = current_schema()`,
    );
    return rows;
  }

  /**
   * EXCLUSIVE: nobody else writes these tables until the copy commits (a server started on the
   * target too early waits instead of seeding a demo account between the check and the copy);
   * reads still go on.
   */
  async lock(tables: readonly string[]): Promise<void> {
    if (tables.length > 0) await this.client.query(`lock table ${tables.map(quoteIdent).join(', ')} in exclusive mode`);
  }

  /**
   * One chunk of rows, given as a JSON array of objects keyed by column name. The table's own row
   * type converts every value (json_populate_recordset), so no per-column cast list has to follow
   * the migrations; integers travel as JSON digits, exact beyond 2^53.
   */
  async insertChunk(table: string, json: string): Promise<number> {
    const t = quoteIdent(table);
    const { rowCount } = await this.client.query(`insert into ${t} select * from json_populate_recordset(null::${t}, $1::json)`, [json]);
    return rowCount ?? 0;
  }

  async count(table: string): Promise<number> {
    const { rows } = await this.client.query<{ n: string | number }>(`select count(*) as n from ${quoteIdent(table)}`);
    return Number(rows[0]!.n);
  }

  /**
   * Moves every sequence that feeds a column of the schema (serial or identity) past the largest
   * value copied, so the next generated value does not collide with a copied row. The migrations
   * create none today (ids are ULIDs); this keeps the copy right if one ever does.
   */
  async resetSequences(): Promise<string[]> {
    const { rows } = await this.client.query<{ table_name: string; column_name: string; seq: string }>(
      `select table_name, column_name, pg_get_serial_sequence(format('%I.%I', table_schema, table_name), column_name) as seq
       from information_schema.columns
       where table_schema = current_schema() and (column_default like 'nextval(%' or is_identity = 'YES')`,
    );
    const reset: string[] = [];
    for (const r of rows) {
      if (!r.seq || isBookkeepingTable(r.table_name)) continue;
      const col = quoteIdent(r.column_name);
      // is_called = false when the table is empty: the next value is the sequence's start, as in a fresh database.
      await this.client.query(
        `select setval($1::regclass, coalesce((select max(${col}) from ${quoteIdent(r.table_name)}), (select seqstart from pg_sequence where seqrelid = $1::regclass)), (select max(${col}) from ${quoteIdent(r.table_name)}) is not null)`,
        [r.seq],
      );
      reset.push(r.seq);
    }
    return reset;
  }
}
