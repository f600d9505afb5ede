import { sql, type RawBuilder } from 'kysely';

/**
 * A list's sort column. With `afterFilter`, an expression no index can give the order of:
 * `+column`, the same value on SQLite and PostgreSQL. That is for lists filtered by a column that
 * has its own index, such as (account_id, phone, created_at), and ordered by (created_at, id) for
 * their cursor. SQLite plans here without statistics and prefers an index that already gives that
 * order, such as (account_id, created_at, id). It then walks every row of the account to find the
 * few that match: 512 ms for one number's page among 300,000 messages. With the filter's index it
 * searches by the filter and sorts only the matching rows: 0.34 ms (docs/decisions.md,
 * "Session 9"). Without such a filter the ordered index is the right plan, so the plain column.
 */
export function sortKey(column: string, opts: { afterFilter: boolean }): RawBuilder<unknown> {
  return opts.afterFilter ? sql`+${sql.ref(column)}` : sql`${sql.ref(column)}`;
}
