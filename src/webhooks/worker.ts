import { performance } from 'node:perf_hooks';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import type { WebhookAttemptOutcome, WebhookDeliveriesTable, WebhookEndpointsTable } from '../platform/db/tables/webhooks-forms.js';
import { PollingLoop } from '../platform/polling-loop.js';
import type { Logger } from '../platform/logger.js';
import { assertPublicHost, BlockedAddressError, guardedAgent, outboundUrlProblem } from '../platform/net/outbound.js';
import type { AttemptReport } from './schemas.js';
import { ATTEMPT_HEADER, DELIVERY_ID_HEADER, EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signatureHeader, WEBHOOK_ID_HEADER } from './signing.js';

/** Attempts in a row that flag an endpoint as failing (it keeps receiving and retrying; people see the flag). */
export const FAILING_THRESHOLD = 5;
/** Longest response body kept in the log. */
const SNIPPET_CHARS = 500;
/** Bytes of a response read at most (the rest is discarded). */
const READ_LIMIT = 8 * 1024;
/** Without anything due: look again after this long at the latest. */
const IDLE_MS = 500;
/** Events older than this whose deliveries are all finished are deleted. */
export const EVENT_RETENTION_MS = 30 * 24 * 3_600_000;
const SWEEP_EVERY_MS = 3_600_000;
const USER_AGENT = 'rcs-mcp-server-webhooks/1';

export interface DeliveryWorkerOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  allowPrivateNetwork: boolean;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  retryWindowMs: number;
  concurrency: number;
}

interface Outcome {
  outcome: WebhookAttemptOutcome;
  statusCode: number | null;
  error: string | null;
  snippet: string | null;
  latencyMs: number;
  /** Seconds from a Retry-After header (429/503). */
  retryAfterMs: number | null;
}

/** Delay before attempt n+1 after n failed ones: base·2^(n−1), capped, ±20% jitter. */
export function backoffMs(failedAttempts: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(30, Math.max(0, failedAttempts - 1)));
  return Math.max(1, Math.round(exp * (0.8 + random() * 0.4)));
}

/** Statuses worth another attempt (issue 9): 408, 429 and every 5xx; network errors and timeouts are too. */
export const retryableStatus = (code: number): boolean => code === 408 || code === 429 || code >= 500;

function retryAfter(header: string | string[] | undefined, nowMs: number): number | null {
  const v = Array.isArray(header) ? header[0] : header;
  if (!v) return null;
  if (/^\d{1,7}$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : null;
}

/**
 * Posts queued deliveries (webhook_deliveries, status pending) with undici: signed over the exact
 * stored bytes, with a timeout, without following redirects, only to public addresses (checked
 * after DNS resolution on every attempt) unless DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS. Up to
 * `concurrency` posts in flight; each claimed with a lease, so after a crash another worker (or
 * the restarted one) takes it over — delivery is at least once. Failures retry with exponential
 * backoff and jitter until `retryWindowMs` after the event; every attempt is logged and the
 * endpoint's failure count kept, so failing endpoints are flagged rather than silently dropped.
 */
export class DeliveryWorker {
  readonly leaseMs: number;
  private readonly loop: PollingLoop;
  private readonly inFlight = new Set<Promise<void>>();
  private sweepTimer: NodeJS.Timeout | null = null;
  /** Aborted by stop(): a receiver that never answers must not hold up a shutdown for the whole timeout. */
  private stopping = new AbortController();

  constructor(
    private readonly o: DeliveryWorkerOptions,
    private readonly secretsOf: (row: WebhookEndpointsTable, now: number) => string[],
  ) {
    this.leaseMs = o.timeoutMs * 2 + 30_000;
    this.loop = new PollingLoop(() => this.pump(), (err) => this.o.logger.error({ err }, 'webhook delivery round failed'), IDLE_MS);
  }

  start(): void {
    if (!this.loop.isStopped) return;
    this.loop.start();
    this.sweepTimer = setInterval(() => {
      this.sweep().catch((err: unknown) => this.o.logger.warn({ err }, 'webhook event sweep failed'));
    }, SWEEP_EVERY_MS);
    this.sweepTimer.unref();
  }

  /**
   * Stops claiming, aborts the posts in flight and waits until they are recorded: an aborted
   * attempt is a retry like a timeout, so its lease is released and the next start posts it again.
   */
  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    await this.loop.stop();
    // Only the posts in flight now; attempts made by hand afterwards (runOnce) get a fresh signal.
    const inFlight = this.stopping;
    this.stopping = new AbortController();
    inFlight.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Something was queued: look now rather than after the idle pause. */
  wake(): void {
    this.loop.wake();
  }

  /** One loop round: claims what fits in the free slots; returns when to look again. */
  private async pump(): Promise<number> {
    const free = this.o.concurrency - this.inFlight.size;
    if (free <= 0) return IDLE_MS; // a finishing post wakes us earlier
    const claimed = await this.claimDue(free);
    for (const d of claimed) this.launch(d);
    return claimed.length === free ? 0 : await this.untilNextDue();
  }

  private launch(d: WebhookDeliveriesTable): void {
    const p: Promise<void> = this.attemptClaimed(d, false)
      .then(() => undefined)
      .catch((err: unknown) => this.o.logger.error({ err, deliveryId: d.id }, 'webhook delivery attempt failed unexpectedly'))
      .finally(() => {
        this.inFlight.delete(p);
        this.wake();
      });
    this.inFlight.add(p);
  }

  private async untilNextDue(): Promise<number> {
    const now = this.o.clock.now();
    const row = await this.o.db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
      .select('webhook_deliveries.next_attempt_at')
      .where('webhook_deliveries.status', '=', 'pending')
      .where('webhook_endpoints.enabled', '=', 1)
      .where((eb) => eb.or([eb('webhook_deliveries.lease_until', 'is', null), eb('webhook_deliveries.lease_until', '<', now)]))
      .orderBy('webhook_deliveries.next_attempt_at')
      .limit(1)
      .executeTakeFirst();
    if (!row || row.next_attempt_at === null) return IDLE_MS;
    return Math.max(0, Math.min(IDLE_MS, row.next_attempt_at - now));
  }

  /** Claims up to `limit` due deliveries of enabled endpoints with a lease. */
  async claimDue(limit: number): Promise<WebhookDeliveriesTable[]> {
    const now = this.o.clock.now();
    const due = await this.o.db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
      .select('webhook_deliveries.id')
      .where('webhook_deliveries.status', '=', 'pending')
      .where('webhook_deliveries.next_attempt_at', '<=', now)
      .where('webhook_endpoints.enabled', '=', 1)
      .where((eb) => eb.or([eb('webhook_deliveries.lease_until', 'is', null), eb('webhook_deliveries.lease_until', '<', now)]))
      .orderBy('webhook_deliveries.next_attempt_at')
      .limit(limit)
      .execute();
    if (due.length === 0) return [];
    // The conditions repeat, so a row another worker claimed in between is not claimed twice.
    return this.o.db
      .updateTable('webhook_deliveries')
      .set({ lease_until: now + this.leaseMs })
      .where('id', 'in', due.map((d) => d.id))
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .returningAll()
      .execute();
  }

  /** One pass without timers (tests with a fake clock): claims what is due and posts it. Returns how many were attempted. */
  async runOnce(): Promise<number> {
    const claimed = await this.claimDue(this.o.concurrency);
    await Promise.all(claimed.map((d) => this.attemptClaimed(d, false)));
    return claimed.length;
  }

  /** Posts a delivery this process holds the lease of, records the attempt, and reports it. */
  async attemptClaimed(d: WebhookDeliveriesTable, manual: boolean): Promise<AttemptReport> {
    const stopped = this.stopping.signal; // taken before any await: stop() aborts every attempt begun before it
    const { db, clock } = this.o;
    const [endpoint, event] = await Promise.all([
      db.selectFrom('webhook_endpoints').selectAll().where('id', '=', d.endpoint_id).executeTakeFirst(),
      db.selectFrom('webhook_events').select(['id', 'type', 'payload']).where('id', '=', d.event_id).executeTakeFirst(),
    ]);
    const attempt = d.attempts + 1;
    const startedAt = clock.now();
    if (!endpoint || !event) {
      // Deleted meanwhile (the delivery row went with it); nothing to record.
      return { eventId: d.event_id, deliveryId: d.id, delivered: false, statusCode: null, latencyMs: null, error: 'The webhook or event no longer exists' };
    }
    const result = await this.post(endpoint, d, event, attempt, startedAt, stopped);
    await this.record(d, endpoint, attempt, startedAt, result, manual);
    return {
      eventId: event.id,
      deliveryId: d.id,
      delivered: result.outcome === 'success',
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      error: result.error,
    };
  }

  private async post(endpoint: WebhookEndpointsTable, d: WebhookDeliveriesTable, event: { id: string; type: string; payload: string }, attempt: number, now: number, stopped: AbortSignal): Promise<Outcome> {
    const o = this.o;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const final = (error: string): Outcome => ({ outcome: 'failed', statusCode: null, error, snippet: null, latencyMs: elapsed(), retryAfterMs: null });
    const retry = (error: string): Outcome => ({ outcome: 'retry', statusCode: null, error, snippet: null, latencyMs: elapsed(), retryAfterMs: null });

    const urlProblem = outboundUrlProblem(endpoint.url, o.allowPrivateNetwork);
    if (urlProblem) return final(`Refused: ${urlProblem}`);
    const url = new URL(endpoint.url);
    try {
      // A clear refusal before connecting; the connection checks the addresses it uses again.
      await assertPublicHost(url.hostname, o.allowPrivateNetwork);
    } catch (err) {
      if (err instanceof BlockedAddressError) return final(`Refused: ${err.message}`);
      const code = (err as { code?: string }).code;
      return retry(`DNS lookup of ${url.hostname} failed${code ? ` (${code})` : ''}`);
    }
    const body = Buffer.from(event.payload, 'utf8');
    const t = Math.floor(now / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(this.secretsOf(endpoint, now), t, body),
      [EVENT_ID_HEADER.toLowerCase()]: event.id,
      [EVENT_TYPE_HEADER.toLowerCase()]: event.type,
      [DELIVERY_ID_HEADER.toLowerCase()]: d.id,
      [ATTEMPT_HEADER.toLowerCase()]: String(attempt),
      [WEBHOOK_ID_HEADER.toLowerCase()]: endpoint.id,
    };
    try {
      const { request } = await import('undici');
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: await guardedAgent({ allowPrivateNetwork: o.allowPrivateNetwork, timeoutMs: o.timeoutMs }),
        signal: AbortSignal.any([AbortSignal.timeout(o.timeoutMs), stopped]),
      });
      const status = res.statusCode;
      let snippet = '';
      try {
        let read = 0;
        for await (const chunk of res.body) {
          const buf = chunk as Buffer;
          if (read < READ_LIMIT) snippet += buf.subarray(0, READ_LIMIT - read).toString('utf8');
          read += buf.length;
          if (read >= READ_LIMIT) break;
        }
      } catch {
        /* the status is what counts */
      } finally {
        res.body.destroy();
      }
      const latencyMs = elapsed();
      const kept = snippet.trim() === '' ? null : snippet.slice(0, SNIPPET_CHARS);
      if (status >= 200 && status < 300) return { outcome: 'success', statusCode: status, error: null, snippet: kept, latencyMs, retryAfterMs: null };
      const redirect = status >= 300 && status < 400;
      return {
        outcome: retryableStatus(status) ? 'retry' : 'failed',
        statusCode: status,
        error: redirect ? `HTTP ${status}: redirects are not followed; point the webhook at the final URL` : `HTTP ${status}`,
        snippet: kept,
        latencyMs,
        retryAfterMs: status === 429 || status === 503 ? retryAfter(res.headers['retry-after'], Date.now()) : null,
      };
    } catch (err) {
      const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
      if (e.code === 'EBLOCKED' || e.cause?.code === 'EBLOCKED') return final(`Refused: ${e.cause?.message ?? e.message ?? 'private address'}`);
      if (stopped.aborted) return retry('Aborted: the server shut down during the attempt');
      if (e.name === 'TimeoutError' || e.name === 'AbortError' || /TIMEOUT/i.test(e.code ?? '')) return retry(`Timed out after ${o.timeoutMs} ms`);
      return retry(`Network error: ${e.code ?? e.cause?.code ?? e.message ?? 'unknown'}`);
    }
  }

  /** One transaction: the log row, the delivery's new state, the endpoint's health. */
  private async record(d: WebhookDeliveriesTable, endpoint: WebhookEndpointsTable, attempt: number, startedAt: number, r: Outcome, manual: boolean): Promise<void> {
    const { db, clock, logger } = this.o;
    const now = clock.now();
    let status: WebhookDeliveriesTable['status'];
    let next: number | null = null;
    if (r.outcome === 'success') status = 'delivered';
    else if (r.outcome === 'failed' || now >= d.give_up_at) status = 'failed';
    else {
      status = 'pending';
      const wait = Math.max(backoffMs(attempt, this.o.retryBaseMs, this.o.retryMaxMs), Math.min(r.retryAfterMs ?? 0, this.o.retryMaxMs));
      next = now + wait;
    }
    const logOutcome: WebhookAttemptOutcome = r.outcome === 'retry' && status === 'failed' ? 'failed' : r.outcome;
    const recorded = await db.transaction().execute(async (tx) => {
      // The webhook may have been deleted during the attempt (its deliveries and log went with it).
      const still = await tx.selectFrom('webhook_deliveries').select('id').where('id', '=', d.id).executeTakeFirst();
      if (!still) return false;
      await tx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: d.id,
          attempt,
          account_id: d.account_id,
          endpoint_id: d.endpoint_id,
          started_at: startedAt,
          latency_ms: r.latencyMs,
          status_code: r.statusCode,
          outcome: logOutcome,
          error: r.error,
          response_snippet: r.snippet,
          manual: manual ? 1 : 0,
        })
        .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
        .execute();
      await tx
        .updateTable('webhook_deliveries')
        .set({
          status,
          attempts: attempt,
          next_attempt_at: next,
          lease_until: null,
          last_attempt_at: startedAt,
          last_status_code: r.statusCode,
          last_latency_ms: r.latencyMs,
          last_error: r.error,
          delivered_at: status === 'delivered' ? now : null,
        })
        .where('id', '=', d.id)
        .execute();
      if (r.outcome === 'success') {
        await tx.updateTable('webhook_endpoints').set({ consecutive_failures: 0, failing_since: null, last_success_at: now }).where('id', '=', endpoint.id).execute();
      } else {
        await tx
          .updateTable('webhook_endpoints')
          .set((eb) => ({
            consecutive_failures: eb('consecutive_failures', '+', 1),
            failing_since: eb.fn.coalesce('failing_since', eb.val(now)),
            last_failure_at: now,
            last_error: r.error,
          }))
          .where('id', '=', endpoint.id)
          .execute();
      }
      return true;
    });
    if (!recorded) return;
    if (r.outcome !== 'success' && endpoint.consecutive_failures + 1 === FAILING_THRESHOLD) {
      logger.warn({ accountId: d.account_id, webhookId: endpoint.id, error: r.error }, 'webhook endpoint is failing');
    }
    if (status === 'failed' && !manual) {
      logger.warn({ accountId: d.account_id, webhookId: endpoint.id, deliveryId: d.id, eventId: d.event_id, attempts: attempt, error: r.error }, 'webhook delivery gave up');
    }
  }

  /** Deletes events older than the retention whose deliveries are all finished (their deliveries and log go with them). */
  async sweep(now = this.o.clock.now()): Promise<number> {
    const res = await this.o.db
      .deleteFrom('webhook_events')
      .where('created_at', '<', now - EVENT_RETENTION_MS)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries').select('webhook_deliveries.id').whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id').where('webhook_deliveries.status', '=', 'pending'))))
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
