/**
 * True for a unique-constraint violation on SQLite or PostgreSQL. Services check uniqueness
 * first inside their transaction (for a clear message); this catches the race that remains when
 * several instances share one PostgreSQL database.
 */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
