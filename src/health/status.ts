import { validationLimits, type ValidationLimits } from '../content/limits.js';

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
