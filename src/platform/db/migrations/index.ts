import type { Migration } from 'kysely';
import * as m001 from './001_foundation.js';

/**
 * Every migration, in order. Numbered files are never edited after they land; a change to a table
 * is a new file. Each area owns its numbers: 002 sandbox, 003 address book & templates, 004 messaging.
 */
export const migrations: Record<string, Migration> = {
  '001_foundation': m001,
};
