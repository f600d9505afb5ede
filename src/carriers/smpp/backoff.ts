/**
 * Reconnect delays: exponential from `minMs`, capped at `maxMs`, each spread by ±`jitter` so that
 * many clients (or several binds of one server) that lost the same SMSC do not knock on it in
 * step. Never longer than `maxMs`, never shorter than `minMs × (1 − jitter)`.
 */
export interface BackoffOptions {
  minMs: number;
  maxMs: number;
  /** Relative spread, 0 … 1 (0.2 = ±20 %). */
  jitter: number;
  /** Uniform in [0, 1): Math.random, or a fixed sequence in tests. */
  random?: () => number;
}

export function backoffDelay(attempt: number, o: BackoffOptions): number {
  const base = Math.min(o.maxMs, o.minMs * 2 ** Math.min(attempt, 40));
  const r = (o.random ?? Math.random)();
  const spread = 1 - o.jitter + 2 * o.jitter * r;
  return Math.round(Math.min(o.maxMs, base * spread));
}

/** Consecutive failed attempts → the next delay; reset once a bind succeeded. */
export class Backoff {
  private attempt = 0;
  constructor(private readonly options: BackoffOptions) {}

  next(): number {
    return backoffDelay(this.attempt++, this.options);
  }

  reset(): void {
    this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}
