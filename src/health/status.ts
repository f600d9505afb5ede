import { z } from 'zod';
import { validationLimits, type ValidationLimits } from '../content/limits.js';
import { ValidationLimitsSchema } from '../content/limits-schemas.js';

/** The database as /status reports it: which one, whether it answers, and the round trip of `select 1`. */
export interface DatabaseStatus {
  dialect: 'sqlite' | 'postgres';
  status: 'up' | 'down';
  latencyMs: number;
}

export interface SystemStatus {
  status: 'healthy' | 'down';
  validationLimits: ValidationLimits;
  timestamp: string;
  database: DatabaseStatus;
}

/**
 * GET /status body (spec §4.1): validationLimits comes from src/content's constants, the same the
 * validator uses. `database` is ours, beside the spec's fields (/health keeps the spec's exact body;
 * docs/decisions.md "Operations on PostgreSQL").
 */
export function systemStatus(database: DatabaseStatus, now: number): SystemStatus {
  return { status: database.status === 'up' ? 'healthy' : 'down', validationLimits: validationLimits(), timestamp: new Date(now).toISOString(), database };
}

/** GET /status's body for /openapi.json (200 healthy, 503 down: the same shape). */
export const SystemStatusSchema: z.ZodType<SystemStatus> = z.object({
  status: z.enum(['healthy', 'down']),
  validationLimits: ValidationLimitsSchema,
  timestamp: z.string(),
  database: z.object({ dialect: z.enum(['sqlite', 'postgres']), status: z.enum(['up', 'down']), latencyMs: z.number() }),
});
