import { validationLimits, type ValidationLimits } from '../content/limits.js';

export interface SystemStatus {
  status: 'healthy' | 'down';
  validationLimits: ValidationLimits;
  timestamp: string;
}

/** GET /status body (spec §4.1): validationLimits comes from src/content's constants, the same the validator uses. */
export function systemStatus(up: boolean, now: number): SystemStatus {
  return { status: up ? 'healthy' : 'down', validationLimits: validationLimits(), timestamp: new Date(now).toISOString() };
}
