import { sql, type RawBuilder } from 'kysely';

/**
 * A list's sort column as an expression no index can give the order of: `+column`, the same value
 * on SQLite and PostgreSQL. For lists filtered by a column that has its own index, such as
 * (account_id, phone, created_at), and ordered by (created_at, id) for their cursor. SQLite plans
 * here without statistics and prefers an index that already gives that order, such as
 * (account_id, created_at, id). It then walks every row of the account to find the few that
 * match: 512 ms for one number's page among 300,000 messages. With this sort key it searches by
 * the filter and sorts only the matching rows: 0.34 ms (docs/decisions.md, "Session 9").
 * Use it only when such a filter is present. Without one it would sort every row of the range.
 */
export function sortAfterFilter(column: string): RawBuilder<unknown> {
  return sql`+${sql.ref(column)}`;
}
