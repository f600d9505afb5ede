import { detachedFromRequest } from './db/commit-hook.js';

/**
 * A background loop over durable work: runs `round` once at a time; the round returns how long to
 * wait before the next one (0 = at once), and wake() cuts the wait short when new work was
 * committed. Used by the message dispatcher and the webhook delivery worker; the work itself
 * lives in the database, so the loop holds no state worth losing.
 */
export class PollingLoop {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private again = false;
  private stopped = true;
  private current: Promise<void> | null = null;

  constructor(
    private readonly round: () => Promise<number>,
    private readonly onError: (err: unknown) => void,
    /** Wait after a round that threw. */
    private readonly errorDelayMs: number,
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops scheduling and waits for the round in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current;
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    // A wake() from inside a request must not hand the request's async context to the loop.
    this.timer = detachedFromRequest(() =>
      setTimeout(() => {
        this.timer = null;
        this.current = this.run().finally(() => (this.current = null));
      }, ms),
    );
    this.timer.unref?.();
  }

  private async run(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    this.again = false;
    let next = this.errorDelayMs;
    try {
      next = await this.round();
    } catch (err) {
      this.onError(err);
    } finally {
      this.running = false;
    }
    this.schedule(this.again ? 0 : next);
  }
}
