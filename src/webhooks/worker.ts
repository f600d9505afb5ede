import { performance } from 'node:perf_hooks';
import type { Clock } from '../platform/clock.js';
import { claimLockClause, lockedForClaim } from '../platform/db/claim.js';
import type { Db, Tx } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import { sql, type ExpressionBuilder } from 'kysely';
import type { WebhookAttemptOutcome, WebhookDeliveriesTable, WebhookEndpointsTable } from './tables.js';
import { PollingLoop } from '../platform/polling-loop.js';
import type { Logger } from '../platform/logger.js';
import type { Released } from '../platform/instances/registry.js';
import { assertPublicHost, BlockedAddressError, guardedAgent, outboundUrlProblem } from '../platform/net/outbound.js';
import { RoundRobin, type DueGroup } from './fair-order.js';
import type { AttemptReport } from './schemas.js';
import { ATTEMPT_HEADER, DELIVERY_ID_HEADER, EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signatureHeader, WEBHOOK_ID_HEADER } from './signing.js';

/** Failed attempts in a row that open an endpoint's circuit (flagged failing; its events wait, probed now and then). */
export const FAILING_THRESHOLD = 5;
/** Posts in flight per endpoint, over every instance (deliveries holding a lease). */
export const ENDPOINT_CONCURRENCY = 4;
/** An endpoint whose last attempt failed gets one post at a time until one succeeds. */
export const FAILING_ENDPOINT_CONCURRENCY = 1;
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
  /** Posts in flight per endpoint (default ENDPOINT_CONCURRENCY). */
  endpointConcurrency?: number;
  /**
   * The instance this process claims under (src/platform/instances/): a dead instance's deliveries are given back
   * through its heartbeat instead of after their lease. Absent: claims carry no instance and end with their lease.
   */
  claimer?: { readonly id: string };
}

/** A claimed delivery whose attempt is recorded (number, start) before anything is posted. */
export interface StartedAttempt {
  d: WebhookDeliveriesTable;
  attempt: number;
  startedAt: number;
  manual: boolean;
  /** Read by the claim with the others of its round (else read before the post). */
  endpoint?: WebhookEndpointsTable | undefined;
  event?: { id: string; type: string; payload: string } | undefined;
}

/** What one recorded attempt changed at its endpoint, for the log lines said once per streak. */
interface CircuitChange {
  opened: boolean;
  recovered: boolean;
  failures: number;
  openUntil: number | null;
  gaveUp: number;
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

let undiciModule: Promise<typeof import('undici')> | null = null;
/** Loaded on the first post (not at start-up), then kept: a dynamic import per post costs a module resolution each time. */
const undici = (): Promise<typeof import('undici')> => (undiciModule ??= import('undici'));

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
 * stored bytes, with a deadline on the whole response, without following redirects, only to public
 * addresses (checked after DNS resolution on every attempt) unless
 * DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS.
 *
 * Fair: each claim takes at most ENDPOINT_CONCURRENCY deliveries in flight per endpoint (one while
 * the endpoint is failing), counted over every instance by their leases, and hands the free slots
 * out round-robin over accounts and their endpoints (fair-order.ts); `concurrency` stays the
 * ceiling of the process. A hanging, failing or slow endpoint therefore holds a few slots, never
 * all of them. After FAILING_THRESHOLD failures in a row the endpoint's circuit opens: its
 * deliveries wait without attempts (their next_attempt_at moves to the end of the open period),
 * then one probe goes out (half-open); a success closes the circuit and releases the backlog, a
 * failure opens it again for longer. The warning is logged once, when the circuit opens, and one
 * recovery line when it closes.
 *
 * Every attempt is recorded (number, start, outcome unknown) in the transaction that claims it,
 * before the post, so a crash mid-post leaves that attempt in the log and the next one after the
 * lease runs out carries the next number. Delivery is at least once.
 */
export class DeliveryWorker {
  readonly leaseMs: number;
  private readonly loop: PollingLoop;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly order = new RoundRobin();
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

  private get endpointCap(): number {
    return Math.max(1, this.o.endpointConcurrency ?? ENDPOINT_CONCURRENCY);
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

  /** Posts of this process in flight now (tests wait for none, with nothing due, instead of sleeping). */
  get postsInFlight(): number {
    return this.inFlight.size;
  }

  /** The id this process's claims carry (null: none). */
  get claimedBy(): string | null {
    return this.o.claimer?.id ?? null;
  }

  /**
   * ClaimHolder (platform/instances/registry.ts): the deliveries the given instances were posting are due again
   * now. Their started attempts stay in the log with an unknown outcome; the next post carries the next number.
   */
  async releaseClaimsOf(instances: readonly string[]): Promise<Released> {
    if (instances.length === 0) return { released: 0, left: 0 };
    const theirs = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) => eb.and([eb('status', '=', 'pending'), eb('lease_until', 'is not', null), eb('claimed_by', 'in', instances)]);
    // Held rows are skipped, not waited for (a deadlock otherwise); the registry asks again while any are left.
    const released = await this.o.db
      .updateTable('webhook_deliveries')
      .set({ lease_until: null, claimed_by: null })
      .where('id', 'in', (eb) => lockedForClaim(this.o.db, eb.selectFrom('webhook_deliveries').select('id').where(theirs).orderBy('id')))
      .where('status', '=', 'pending')
      .where('claimed_by', 'in', instances)
      .executeTakeFirst();
    const n = Number(released.numUpdatedRows);
    if (n > 0) this.wake();
    const left = await this.o.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where(theirs).executeTakeFirstOrThrow();
    return { released: n, left: Number(left.n) };
  }

  /** One loop round: claims what fits in the free slots; returns when to look again. */
  private async pump(): Promise<number> {
    const free = this.o.concurrency - this.inFlight.size;
    if (free <= 0) return IDLE_MS; // a finishing post wakes us earlier
    const claimed = await this.claimDue(free);
    for (const s of claimed) this.launch(s);
    // Due deliveries left unclaimed wait for their endpoint's posts (whose end wakes us) or its circuit.
    return claimed.length === free ? IDLE_MS : await this.untilNextDue();
  }

  private launch(s: StartedAttempt): void {
    const p: Promise<void> = this.deliver(s)
      .then(() => undefined)
      .catch((err: unknown) => this.o.logger.error({ err, deliveryId: s.d.id }, 'webhook delivery attempt failed unexpectedly'))
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
      .select('next_attempt_at')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '>', now)
      .orderBy('next_attempt_at')
      .limit(1)
      .executeTakeFirst();
    if (!row || row.next_attempt_at === null) return IDLE_MS;
    return Math.max(0, Math.min(IDLE_MS, row.next_attempt_at - now));
  }

  /**
   * Claims up to `limit` due deliveries with a lease, fairly (see the class comment), and records
   * their attempts as started — all in one transaction. On PostgreSQL, where several instances
   * claim at once, the transaction first locks the endpoints it will serve (SKIP LOCKED: an
   * endpoint another instance is claiming for is left to it this round), so the in-flight count
   * read next is not raced and the per-endpoint cap holds over every instance; the deliveries are
   * locked the same way (platform/db/claim.ts).
   */
  async claimDue(limit: number): Promise<StartedAttempt[]> {
    if (limit <= 0) return [];
    const { db, clock } = this.o;
    const cap = this.endpointCap;
    return db.transaction().execute(async (tx) => {
      const now = clock.now();
      const endpoints = await this.claimableEndpoints(tx, now);
      if (endpoints.length === 0) return [];
      const busy = new Map<string, number>();
      for (const b of await tx
        .selectFrom('webhook_deliveries')
        .select((eb) => ['endpoint_id', eb.fn.countAll<number>().as('n')])
        .where('lease_until', '>=', now)
        .where('status', '=', 'pending')
        .where('endpoint_id', 'in', endpoints.map((e) => e.id))
        .groupBy('endpoint_id')
        .execute()) {
        busy.set(b.endpoint_id, Number(b.n));
      }
      const allowance = new Map<string, number>();
      for (const e of endpoints) {
        const inFlight = busy.get(e.id) ?? 0;
        // A probe goes out alone; a failing endpoint gets one post at a time.
        const n = e.circuit_state !== 'closed' ? (inFlight === 0 ? 1 : 0) : (e.consecutive_failures > 0 ? FAILING_ENDPOINT_CONCURRENCY : cap) - inFlight;
        if (n > 0) allowance.set(e.id, n);
      }
      const due = await this.dueOf(tx, allowance, now);
      const groups = new Map<string, DueGroup & { deliveryIds: string[] }>();
      for (const r of due) {
        let g = groups.get(r.endpoint_id);
        if (!g) groups.set(r.endpoint_id, (g = { accountId: r.account_id, endpointId: r.endpoint_id, deliveryIds: [] }));
        g.deliveryIds.push(r.id);
      }
      let picks = this.order.pick([...groups.values()], limit);
      const byId = new Map(endpoints.map((e) => [e.id, e]));
      for (const endpointId of new Set(picks.map((p) => p.endpointId))) {
        if (byId.get(endpointId)!.circuit_state === 'closed') continue;
        // Half-open: the one instance whose update lands sends the probe; the lease covers a crash.
        const won = await tx
          .updateTable('webhook_endpoints')
          .set({ circuit_state: 'half_open', circuit_until: now + this.leaseMs })
          .where('id', '=', endpointId)
          .where('circuit_state', '!=', 'closed')
          .where('circuit_until', '<=', now)
          .executeTakeFirst();
        if (Number(won.numUpdatedRows) !== 1) picks = picks.filter((p) => p.endpointId !== endpointId);
      }
      if (picks.length === 0) return [];
      // The conditions repeat, so a row another worker claimed in between is not claimed twice.
      const leased = await tx
        .updateTable('webhook_deliveries')
        .set((eb) => ({ lease_until: now + this.leaseMs, claimed_by: this.claimedBy, attempts: eb('attempts', '+', 1), last_attempt_at: now }))
        .where('id', 'in', picks.map((p) => p.deliveryId))
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .returningAll()
        .execute();
      if (leased.length === 0) return [];
      await this.insertStarted(tx, leased, now, false);
      // What the posts need, read once per round rather than once per post.
      const [rows, events] = await Promise.all([
        tx.selectFrom('webhook_endpoints').selectAll().where('id', 'in', [...new Set(leased.map((d) => d.endpoint_id))]).execute(),
        tx.selectFrom('webhook_events').select(['id', 'type', 'payload']).where('id', 'in', leased.map((d) => d.event_id)).execute(),
      ]);
      const endpointRow = new Map(rows.map((r) => [r.id, r]));
      const eventRow = new Map(events.map((e) => [e.id, e]));
      const rank = new Map(picks.map((p, i) => [p.deliveryId, i]));
      return leased
        .sort((a, b) => rank.get(a.id)! - rank.get(b.id)!)
        .map((d) => ({ d, attempt: d.attempts, startedAt: now, manual: false, endpoint: endpointRow.get(d.endpoint_id), event: eventRow.get(d.event_id) }));
    });
  }

  /**
   * Enabled endpoints with pending deliveries whose circuit lets a post through now, locked for
   * this claim on PostgreSQL (skipping those another claim holds). The endpoints with pending
   * deliveries are found by skipping through the (status, endpoint_id, …) index, one seek per
   * endpoint, so the cost follows the number of such endpoints, not their backlogs.
   */
  private async claimableEndpoints(tx: Tx, now: number): Promise<Array<Pick<WebhookEndpointsTable, 'id' | 'account_id' | 'circuit_state' | 'consecutive_failures'>>> {
    const withPending = await sql<{ id: string }>`
      with recursive ep(id) as (
        select (select endpoint_id from webhook_deliveries where status = 'pending' order by endpoint_id limit 1)
        union all
        select (select endpoint_id from webhook_deliveries where status = 'pending' and endpoint_id > ep.id order by endpoint_id limit 1) from ep where ep.id is not null
      )
      select id from ep where id is not null`.execute(tx);
    if (withPending.rows.length === 0) return [];
    const out: Array<Pick<WebhookEndpointsTable, 'id' | 'account_id' | 'circuit_state' | 'consecutive_failures'>> = [];
    const ids = withPending.rows.map((r) => r.id);
    for (let i = 0; i < ids.length; i += 500) {
      out.push(
        ...(await lockedForClaim(
          tx,
          tx
            .selectFrom('webhook_endpoints')
            .select(['id', 'account_id', 'circuit_state', 'consecutive_failures'])
            .where('id', 'in', ids.slice(i, i + 500))
            .where('enabled', '=', 1)
            .where((eb) => eb.or([eb('circuit_state', '=', 'closed'), eb('circuit_until', '<=', now)]))
            .orderBy('id'),
        ).execute()),
      );
    }
    return out;
  }

  /** Each endpoint's oldest due, unleased deliveries, as many as its allowance: one index range per endpoint. */
  private async dueOf(tx: Tx, allowance: ReadonlyMap<string, number>, now: number): Promise<Array<{ id: string; endpoint_id: string; account_id: string }>> {
    const out: Array<{ id: string; endpoint_id: string; account_id: string }> = [];
    const entries = [...allowance];
    for (let i = 0; i < entries.length; i += 100) {
      const parts = entries.slice(i, i + 100).map(
        ([endpointId, n], j) =>
          sql`select * from (select id, endpoint_id, account_id from webhook_deliveries
            where status = 'pending' and endpoint_id = ${endpointId} and next_attempt_at <= ${now} and (lease_until is null or lease_until < ${now})
            order by next_attempt_at, id limit ${n} ${claimLockClause(tx)}) as ${sql.raw(`q${j}`)}`,
      );
      out.push(...(await sql<{ id: string; endpoint_id: string; account_id: string }>`${sql.join(parts, sql` union all `)}`.execute(tx)).rows);
    }
    return out;
  }

  /** The log rows of attempts about to be made: outcome unknown until they are recorded. */
  private async insertStarted(tx: Tx, rows: readonly WebhookDeliveriesTable[], now: number, manual: boolean): Promise<void> {
    if (rows.length === 0) return;
    await tx
      .insertInto('webhook_attempts')
      .values(
        rows.map((d) => ({
          delivery_id: d.id,
          attempt: d.attempts,
          account_id: d.account_id,
          endpoint_id: d.endpoint_id,
          started_at: now,
          latency_ms: 0,
          status_code: null,
          outcome: 'unknown' as const,
          error: null,
          response_snippet: null,
          manual: manual ? 1 : 0,
        })),
      )
      .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
      .execute();
  }

  /** One pass without timers (tests with a fake clock): claims what is due and posts it. Returns how many were attempted. */
  async runOnce(): Promise<number> {
    const claimed = await this.claimDue(this.o.concurrency);
    await Promise.all(claimed.map((s) => this.deliver(s)));
    return claimed.length;
  }

  /**
   * Posts a delivery this process holds the lease of (test event, redelivery), whatever its
   * endpoint's circuit says: a person asked for it. Recorded like every attempt.
   */
  async attemptClaimed(d: WebhookDeliveriesTable, manual: boolean): Promise<AttemptReport> {
    const now = this.o.clock.now();
    const started = await this.o.db.transaction().execute(async (tx) => {
      const row = await tx
        .updateTable('webhook_deliveries')
        .set((eb) => ({ attempts: eb('attempts', '+', 1), last_attempt_at: now }))
        .where('id', '=', d.id)
        .returningAll()
        .executeTakeFirst();
      if (row) await this.insertStarted(tx, [row], now, manual);
      return row;
    });
    if (!started) return { eventId: d.event_id, deliveryId: d.id, delivered: false, statusCode: null, latencyMs: null, error: 'The webhook or event no longer exists' };
    return this.deliver({ d: started, attempt: started.attempts, startedAt: now, manual });
  }

  /** Posts a started attempt, records its outcome, and reports it. */
  private async deliver(s: StartedAttempt): Promise<AttemptReport> {
    const stopped = this.stopping.signal; // taken before any await: stop() aborts every attempt begun before it
    const { db } = this.o;
    const { d } = s;
    const [endpoint, event] = await Promise.all([
      s.endpoint ?? db.selectFrom('webhook_endpoints').selectAll().where('id', '=', d.endpoint_id).executeTakeFirst(),
      s.event ?? db.selectFrom('webhook_events').select(['id', 'type', 'payload']).where('id', '=', d.event_id).executeTakeFirst(),
    ]);
    if (!endpoint || !event) {
      // Deleted meanwhile (the delivery row went with it); nothing to record.
      return { eventId: d.event_id, deliveryId: d.id, delivered: false, statusCode: null, latencyMs: null, error: 'The webhook or event no longer exists' };
    }
    const result = await this.post(endpoint, d, event, s.attempt, s.startedAt, stopped);
    await this.record(s, endpoint, result);
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
    const timedOut = () => retry(`Timed out after ${o.timeoutMs} ms`);

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
    // One deadline for the whole exchange: connecting, the headers and the last byte of the body.
    // (undici's own timeouts are per phase and per chunk: a body trickling a byte a second would pass.)
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), o.timeoutMs);
    // A shutdown aborts the post too, so a receiver that never answers cannot hold the stop up.
    const aborted = AbortSignal.any([deadline.signal, stopped]);
    try {
      const { request } = await undici();
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: await guardedAgent({ allowPrivateNetwork: o.allowPrivateNetwork, timeoutMs: o.timeoutMs }),
        signal: aborted,
      });
      const status = res.statusCode;
      let snippet = '';
      const onAbort = () => res.body.destroy(new Error('deadline'));
      aborted.addEventListener('abort', onAbort, { once: true });
      try {
        let read = 0;
        for await (const chunk of res.body) {
          const buf = chunk as Buffer;
          if (read < READ_LIMIT) snippet += buf.subarray(0, READ_LIMIT - read).toString('utf8');
          read += buf.length;
          if (read >= READ_LIMIT) break;
        }
      } catch {
        /* a broken body: the status is what counts, unless the deadline passed (below) */
      } finally {
        aborted.removeEventListener('abort', onAbort);
        res.body.destroy();
      }
      if (stopped.aborted) return retry('Aborted: the server shut down during the attempt');
      if (deadline.signal.aborted) return timedOut();
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
      if (deadline.signal.aborted || e.name === 'TimeoutError' || e.name === 'AbortError' || /TIMEOUT/i.test(e.code ?? '')) return timedOut();
      return retry(`Network error: ${e.code ?? e.cause?.code ?? e.message ?? 'unknown'}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * One transaction: the attempt's outcome in the log, the endpoint's failure count and circuit,
   * the delivery's new state. Log lines after the commit, each said by the one attempt that
   * changed the circuit.
   */
  private async record(s: StartedAttempt, endpoint: WebhookEndpointsTable, r: Outcome): Promise<void> {
    const { db, clock, logger } = this.o;
    const { d, attempt, startedAt, manual } = s;
    const now = clock.now();
    const result = await db.transaction().execute(async (tx) => {
      const change = r.outcome === 'success' ? await this.closeCircuit(tx, endpoint.id, d.id, now) : await this.countFailure(tx, endpoint.id, d.id, r.error, now);
      let status: WebhookDeliveriesTable['status'];
      let next: number | null = null;
      if (r.outcome === 'success') status = 'delivered';
      else if (r.outcome === 'failed' || now >= d.give_up_at) status = 'failed';
      else {
        status = 'pending';
        const wait = Math.max(backoffMs(attempt, this.o.retryBaseMs, this.o.retryMaxMs), Math.min(r.retryAfterMs ?? 0, this.o.retryMaxMs));
        next = Math.max(now + wait, change.openUntil ?? 0);
      }
      const logOutcome: WebhookAttemptOutcome = r.outcome === 'retry' && status === 'failed' ? 'failed' : r.outcome;
      await tx
        .updateTable('webhook_attempts')
        .set({ latency_ms: r.latencyMs, status_code: r.statusCode, outcome: logOutcome, error: r.error, response_snippet: r.snippet })
        .where('delivery_id', '=', d.id)
        .where('attempt', '=', attempt)
        .execute();
      const updated = await tx
        .updateTable('webhook_deliveries')
        .set({
          status,
          next_attempt_at: next,
          lease_until: null,
          last_attempt_at: startedAt,
          last_status_code: r.statusCode,
          last_latency_ms: r.latencyMs,
          last_error: r.error,
          delivered_at: status === 'delivered' ? now : null,
        })
        .where('id', '=', d.id)
        .executeTakeFirst();
      // The webhook may have been deleted during the attempt (its deliveries and log went with it).
      if (Number(updated.numUpdatedRows) === 0) return null;
      return { status, change };
    });
    if (!result) return;
    const { status, change } = result;
    const who = { accountId: d.account_id, webhookId: endpoint.id };
    if (change.opened) {
      logger.warn({ ...who, consecutiveFailures: change.failures, error: r.error, nextProbeAt: new Date(change.openUntil!).toISOString() }, 'webhook endpoint is failing; its deliveries wait for a probe');
    }
    if (change.recovered) logger.info({ ...who }, 'webhook endpoint recovered');
    if (change.gaveUp > 0) logger.warn({ ...who, deliveries: change.gaveUp }, 'webhook deliveries gave up: their retry window ended while the endpoint was failing');
    if (status === 'failed' && !manual) {
      logger.warn({ ...who, deliveryId: d.id, eventId: d.event_id, attempts: attempt, error: r.error }, 'webhook delivery gave up');
    }
  }

  /** A success: the failure count resets; an open circuit closes and the deliveries that waited are due now. */
  private async closeCircuit(tx: Tx, endpointId: string, deliveryId: string, now: number): Promise<CircuitChange> {
    const closed = await tx
      .updateTable('webhook_endpoints')
      .set({ circuit_state: 'closed', circuit_until: null, circuit_trips: 0 })
      .where('id', '=', endpointId)
      .where('circuit_state', '!=', 'closed')
      .executeTakeFirst();
    const recovered = Number(closed.numUpdatedRows) === 1;
    if (recovered) {
      await tx
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: now })
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '>', now)
        .where('id', '!=', deliveryId)
        .execute();
    }
    await tx.updateTable('webhook_endpoints').set({ consecutive_failures: 0, failing_since: null, last_success_at: now }).where('id', '=', endpointId).execute();
    return { opened: false, recovered, failures: 0, openUntil: null, gaveUp: 0 };
  }

  /**
   * A failure: counted; the FAILING_THRESHOLD-th in a row opens the circuit (the warning), a failed
   * probe opens it again for longer. While it opens, the endpoint's waiting deliveries move to the
   * end of the open period, and those whose retry window ended give up.
   */
  private async countFailure(tx: Tx, endpointId: string, deliveryId: string, error: string | null, now: number): Promise<CircuitChange> {
    const e = await tx
      .updateTable('webhook_endpoints')
      .set((eb) => ({
        consecutive_failures: eb('consecutive_failures', '+', 1),
        failing_since: eb.fn.coalesce('failing_since', eb.val(now)),
        last_failure_at: now,
        last_error: error,
      }))
      .where('id', '=', endpointId)
      .returning(['consecutive_failures', 'circuit_state', 'circuit_trips'])
      .executeTakeFirst();
    const none: CircuitChange = { opened: false, recovered: false, failures: e?.consecutive_failures ?? 0, openUntil: null, gaveUp: 0 };
    if (!e) return none;
    const opens = e.circuit_state === 'closed' && e.consecutive_failures >= FAILING_THRESHOLD;
    const reopens = e.circuit_state === 'half_open';
    if (!opens && !reopens) return e.circuit_state === 'open' ? { ...none, openUntil: await this.openUntil(tx, endpointId) } : none;
    const trips = opens ? 1 : e.circuit_trips + 1;
    const until = now + backoffMs(trips, this.o.retryBaseMs, this.o.retryMaxMs);
    const changed = await tx
      .updateTable('webhook_endpoints')
      .set({ circuit_state: 'open', circuit_until: until, circuit_trips: trips })
      .where('id', '=', endpointId)
      .where('circuit_state', '=', e.circuit_state)
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) !== 1) return none;
    const waiting = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]);
    const gaveUp = await tx
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null, lease_until: null, last_error: `Gave up: the retry window ended while the endpoint was failing (${error ?? 'unknown error'})` })
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'pending')
      .where('give_up_at', '<=', now)
      .where('id', '!=', deliveryId)
      .where(waiting)
      .executeTakeFirst();
    await tx
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: until })
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<', until)
      .where('id', '!=', deliveryId)
      .where(waiting)
      .execute();
    return { opened: opens, recovered: false, failures: e.consecutive_failures, openUntil: until, gaveUp: Number(gaveUp.numUpdatedRows) };
  }

  private async openUntil(tx: Tx, endpointId: string): Promise<number | null> {
    const r = await tx.selectFrom('webhook_endpoints').select('circuit_until').where('id', '=', endpointId).executeTakeFirst();
    return r?.circuit_until ?? null;
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
