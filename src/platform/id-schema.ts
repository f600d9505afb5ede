import { z } from 'zod';
import type { IdPrefix } from './ids.js';

/**
 * zod schema of an id inside a request body (`groups[2]`, `contactIds[9]`). A malformed one is a
 * 400 VALIDATION_ERROR with the item's path; ids in the URL path use assertId (400 INVALID_ID).
 */
export const idSchema = (prefix: IdPrefix, what: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be ${what} id (${prefix}_ followed by 26 characters)`)
    .describe(`${what[0]!.toUpperCase()}${what.slice(1)} id (${prefix}_…).`);
