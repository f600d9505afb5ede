import pg from 'pg';

/** The channel migration 020's triggers notify when cached rows change (api_keys, accounts.active, senders). */
export const CHANGE_CHANNEL = 'rcs_cache_changes';
/** How the feed's connection shows in pg_stat_activity. */
export const CHANGE_FEED_APPLICATION = 'rcs change feed';

export interface ChangeFeedOptions {
  /** Wait before connecting again after the connection failed or was lost. */
  retryMs?: number;
  /** How often the idle connection is asked `select 1`, so a silently dead one is noticed. */
  heartbeatMs?: number;
  onError?: (err: Error) => void;
}

/**
 * PostgreSQL's side of the change stamp (change-stamp.ts): one dedicated connection per process
 * that LISTENs on CHANGE_CHANNEL. Every notification moves the generation on, so every cache
 * taken under the old one is dropped, wherever the change was made; freshStamp() makes sure the
 * notifications of everything committed before it have arrived.
 *
 * While the connection is not listening — not yet connected, lost, the server restarting — a
 * notification could be missed, so the stamp is a fresh value on every call and nothing is served
 * from a cache; once LISTEN succeeds again the generation moves on, dropping whatever was cached
 * before the gap.
 */
export class ChangeFeed {
  private client: pg.Client | null = null;
  private generation = 0;
  private listening = false;
  private missed = 0;
  private closed = false;
  private connecting: Promise<void> | null = null;
  private inFlight: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly retryMs: number;
  private readonly heartbeatMs: number;

  constructor(
    private readonly clientConfig: pg.ClientConfig,
    private readonly options: ChangeFeedOptions = {},
  ) {
    this.retryMs = options.retryMs ?? 1000;
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
  }

  /** True while notifications are being received. */
  get isListening(): boolean {
    return this.listening;
  }

  /** The server process of the listening connection (pg_stat_activity.pid); null while not connected. */
  get backendPid(): number | null {
    return (this.client as { processID?: number } | null)?.processID ?? null;
  }

  /** The stamp as of the notifications received so far: the same while nothing changed and the feed listened throughout. */
  stamp(): string {
    return this.listening ? `g${this.generation}` : `down${++this.missed}`;
  }

  /**
   * The stamp as of this call: it reflects every change committed before it, wherever made. A
   * notification reaches this process some time after the commit; one round trip on the feed's
   * connection closes that gap, because the server hands a listening session the notifications
   * signalled to it before it answers a query ("ReadyForQuery"), and the committing session
   * signalled before its COMMIT returned. Callers arriving together share one round trip: each
   * waits for one sent after it arrived, at most the one in flight plus the next.
   */
  async freshStamp(): Promise<string> {
    if (!this.listening) return this.stamp();
    try {
      await this.fence();
    } catch {
      // The connection failed: lost() stopped listening, and stamp() now answers "nothing cached".
    }
    return this.stamp();
  }

  private fence(): Promise<void> {
    if (!this.inFlight) {
      this.inFlight = this.roundTrip().finally(() => (this.inFlight = null));
      return this.inFlight;
    }
    // The round trip in flight may have left before the caller's change committed: wait for the next one.
    this.next ??= this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return this.fence();
      });
    return this.next;
  }

  private async roundTrip(): Promise<void> {
    const client = this.client;
    if (!client) throw new Error('change feed not connected');
    await client.query('select 1');
  }

  /** Connects and listens; resolves once listening, or once the first attempt failed (retries continue). Idempotent. */
  start(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.listening) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    // A stalled server fails the heartbeat instead of hanging it; TCP keepalive notices a vanished peer.
    const client = new pg.Client({ ...this.clientConfig, application_name: CHANGE_FEED_APPLICATION, keepAlive: true, keepAliveInitialDelayMillis: 10_000, query_timeout: 10_000 });
    client.on('notification', (msg) => {
      if (msg.channel === CHANGE_CHANNEL) this.generation++;
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`listen ${CHANGE_CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      this.options.onError?.(err as Error);
      this.retryLater();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Whatever changed while nobody listened is unknown: every cache from before goes.
    this.generation++;
    this.listening = true;
    this.heartbeat = setInterval(() => {
      client.query('select 1').catch((err: unknown) => this.lost(client, err as Error));
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private lost(client: pg.Client, err: Error | null): void {
    if (client !== this.client) return;
    this.client = null;
    this.listening = false;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (this.closed) return;
    if (err) this.options.onError?.(err);
    client.end().catch(() => undefined);
    this.retryLater();
  }

  private retryLater(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.start();
    }, this.retryMs);
    this.retryTimer.unref();
  }
}
