import type { OpenDb } from '../platform/db/database.js';
import type { Carriers } from '../carriers/carrier.js';
import type { Clock } from '../platform/clock.js';
import type { DatabaseStatus } from './status.js';

export interface HealthDeps {
  /** Whether the database answers, and which one it is. */
  database: Pick<OpenDb, 'answers' | 'dialect'>;
  /** The configured carrier networks, by name only. */
  carriers: Pick<Carriers, 'rcs' | 'sms'>;
  clock: Clock;
}

/**
 * What /health, /status and rcs_health look at: whether the database answers, which carrier
 * networks are configured, and the server time. A service of its own so that neither the routes
 * nor the tool need the raw database handle or the carriers themselves.
 */
export class HealthService {
  constructor(private readonly d: HealthDeps) {}

  /** True when the database answers. The health endpoint reports nothing else on purpose. */
  databaseUp(): Promise<boolean> {
    // `select 1`: on the SQLite handle, or through the PostgreSQL pool (database.ts).
    return this.d.database.answers();
  }

  /**
   * Which database, whether it answers, and how long `select 1` took (for /status): behind a load
   * balancer an operator sees which instance has a slow or lost link to the shared database.
   */
  async databaseStatus(): Promise<DatabaseStatus> {
    const started = performance.now();
    const up = await this.d.database.answers();
    return { dialect: this.d.database.dialect, status: up ? 'up' : 'down', latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  }

  carrierNames(): { rcs: string; sms: string } {
    return { rcs: this.d.carriers.rcs.name, sms: this.d.carriers.sms.name };
  }

  now(): number {
    return this.d.clock.now();
  }
}
