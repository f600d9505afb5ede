import { sql, type RawBuilder } from 'kysely';

/**
 * Small helpers for values stored as TEXT/INTEGER in a way that works the same on SQLite and
 * PostgreSQL: booleans as 0/1 integers, JSON as text.
 */
export const toBool = (v: number | boolean | null | undefined): boolean => v === 1 || v === true;
export const fromBool = (v: boolean): number => (v ? 1 : 0);

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** Escapes LIKE wildcards so user search text matches literally (used with ESCAPE '\'). */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `(SELECT value FROM json_each(?))`: a list of any length as one JSON parameter, for `x IN …`.
 * The statement text is the same for every length, so it is compiled and prepared once, and a
 * 10,000-item list is one bound value instead of 10,000. SQLite's json_each; on PostgreSQL
 * `(SELECT jsonb_array_elements_text(?::jsonb))`.
 */
export const jsonList = (values: readonly (string | number)[]): RawBuilder<string> => sql<string>`(select value from json_each(${JSON.stringify(values)}))`;
