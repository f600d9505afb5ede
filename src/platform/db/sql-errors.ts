import { AppError } from '../errors.js';

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

/**
 * True for a transaction PostgreSQL aborted to break a cycle of waits (40P01, deadlock detected) or because a
 * serializable snapshot could not be kept (40001): nothing it did was kept, and running it again is the remedy the
 * database itself prescribes.
 */
export function isTransactionConflict(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === '40P01' || code === '40001';
}

/**
 * PostgreSQL text cannot hold U+0000 (SQLSTATE 22021, "invalid byte sequence for encoding UTF8:
 * 0x00"); SQLite stores it. Message text and contact data refuse NUL with the other control
 * characters at their door (content/characters.ts), but a name or a search term may still carry
 * one: on PostgreSQL that is the caller's mistake, answered as such instead of as a server fault.
 */
export function unstorableTextError(err: unknown): AppError | null {
  if (typeof err !== 'object' || err === null || (err as { code?: unknown }).code !== '22021') return null;
  const message = 'A text value contains U+0000 (NUL), which the database cannot store; remove it and send the request again.';
  return new AppError('VALIDATION_ERROR', message, { details: [{ path: '', code: 'invalid_character', message }] });
}
