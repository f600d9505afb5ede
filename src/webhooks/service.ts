import { sql } from 'kysely';
import type { Config } from '../config.js';
import { toIso, type Clock } from '../platform/clock.js';
import { inTransaction, type Db, type DbOrTx, type Tx } from '../platform/db/database.js';
import { parseJson } from '../platform/db/sql.js';
import type { WebhookDeliveriesTable, WebhookEndpointSource, WebhookEndpointsTable } from './tables.js';
import { AppError, notFound } from '../platform/errors.js';
import { assertId, newId } from '../platform/ids.js';
import type { Logger } from '../platform/logger.js';
import { assertPublicHost, BlockedAddressError, outboundUrlProblem } from '../platform/net/outbound.js';
import { keysetPage, singlePage, type CursorPage } from '../platform/pagination.js';
import { parseOrThrow } from '../platform/validation.js';
import { TEST_EVENT, WEBHOOK_EVENTS, type EventBody, type WebhookEventType } from './events.js';
import {
  CreateWebhookSchema,
  DeliveriesQuerySchema,
  MAX_ENDPOINTS_TOTAL,
  MAX_USER_ENDPOINTS,
  RotateSecretSchema,
  UpdateWebhookSchema,
  type AttemptReport,
  type CreateWebhookInput,
  type DeliveriesQuery,
  type Delivery,
  type UpdateWebhookInput,
  type Webhook,
  type WebhookSecret,
  type WebhookWithSecret,
} from './schemas.js';
import type { Sealer } from '../platform/sealing.js';
import { loadOrCreateSecretBox, newSigningSecret, type SecretBox } from './secret-box.js';
import { DeliveryWorker, FAILING_THRESHOLD } from './worker.js';

export interface WebhooksDeps {
  db: Db;
  /** Seals the key of the webhook secrets (src/platform/sealing.ts). */
  sealer: Sealer;
  clock: Clock;
  config: Config;
  logger: Logger;
  /** The instance claims are made under (src/platform/instances/); absent: claims end with their lease. */
  claimer?: { readonly id: string };
}

/** Where an event goes: the account's endpoints subscribed to its kind, one endpoint, or the endpoint of a URL (a button's or form's own webhookUrl). */
export type EmitTarget =
  | { kind: 'subscribed' }
  | { kind: 'endpoint'; endpointId: string }
  | { kind: 'url'; url: string; source: Exclude<WebhookEndpointSource, 'user'> };

interface Counts {
  pending: number;
  failed: number;
  failedSinceSuccess: number;
}

const CHUNK = 500;

/**
 * Webhook endpoints (REST /api/rcs/webhooks, the console) and the outbox. `emit` is called by the
 * areas' event hubs inside the transaction that made the change, so an event row and its
 * deliveries commit with the fact they report or not at all; the DeliveryWorker (worker.ts) posts
 * them, signed, with retries, and records every attempt. See docs/webhooks.md.
 */
export class WebhooksService {
  private box: SecretBox | null = null;
  readonly worker: DeliveryWorker;
  /** Subscribed endpoints per account, memoised per transaction: a 10,000-receipt round asks once. */
  private readonly subscribedMemo = new WeakMap<object, Map<string, WebhookEndpointsTable[]>>();

  constructor(private readonly d: WebhooksDeps) {
    this.worker = new DeliveryWorker(
      { db: d.db, clock: d.clock, logger: d.logger, allowPrivateNetwork: d.config.dangerouslyAllowPrivateNetworkTargets, ...d.config.webhooks, ...(d.claimer ? { claimer: d.claimer } : {}) },
      (row, now) => this.signingSecrets(row, now),
    );
  }

  /** Loads (first start: creates) the key that seals signing secrets. */
  async init(): Promise<void> {
    this.box = await loadOrCreateSecretBox(this.d.db, this.d.sealer);
  }

  private get secrets(): SecretBox {
    if (!this.box) throw new Error('WebhooksService.init() was not called');
    return this.box;
  }

  /** The secrets that sign a request now: the current one, and the previous one during a rotation's overlap. */
  signingSecrets(row: WebhookEndpointsTable, now: number): string[] {
    const out = [this.secrets.open(row.secret_sealed, row.id)];
    if (row.previous_secret_sealed && (row.previous_secret_expires_at ?? 0) > now) out.push(this.secrets.open(row.previous_secret_sealed, `${row.id}#previous`));
    return out;
  }

  // ---- URLs ------------------------------------------------------------------------------------

  /** 400 unless the URL may be a target: https (http only with the switch), and not a private address. */
  private async checkUrl(url: string, path = 'url'): Promise<void> {
    const allow = this.d.config.dangerouslyAllowPrivateNetworkTargets;
    const problem = outboundUrlProblem(url, allow);
    const fail = (message: string, code: string) => new AppError('VALIDATION_ERROR', `${path}: ${message}`, { details: [{ path, code, message }] });
    if (problem) throw fail(problem, 'invalid_url');
    try {
      await assertPublicHost(new URL(url).hostname, allow);
    } catch (err) {
      if (err instanceof BlockedAddressError) throw fail(`${err.message}; webhooks go to public addresses only`, 'private_address');
      // A name that does not resolve yet is accepted; every attempt checks again after resolution.
    }
  }

  // ---- endpoints -------------------------------------------------------------------------------

  private async row(q: DbOrTx, accountId: string, id: string): Promise<WebhookEndpointsTable> {
    assertId('whk', id, 'id');
    const row = await q.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw notFound('Webhook');
    return row;
  }

  private async counts(accountId: string, rows: readonly WebhookEndpointsTable[]): Promise<Map<string, Counts>> {
    const out = new Map<string, Counts>(rows.map((r) => [r.id, { pending: 0, failed: 0, failedSinceSuccess: 0 }]));
    if (rows.length === 0) return out;
    const grouped = await this.d.db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
      .select((eb) => [
        'webhook_deliveries.endpoint_id as endpoint_id',
        'webhook_deliveries.status as status',
        eb.fn.countAll<number>().as('n'),
        sql<number>`sum(case when webhook_deliveries.last_attempt_at > coalesce(webhook_endpoints.last_success_at, 0) then 1 else 0 end)`.as('recent'),
      ])
      .where('webhook_deliveries.account_id', '=', accountId)
      .where('webhook_deliveries.endpoint_id', 'in', rows.map((r) => r.id))
      .where('webhook_deliveries.status', 'in', ['pending', 'failed'])
      .groupBy(['webhook_deliveries.endpoint_id', 'webhook_deliveries.status'])
      .execute();
    for (const g of grouped) {
      const c = out.get(g.endpoint_id)!;
      if (g.status === 'pending') c.pending = Number(g.n);
      else {
        c.failed = Number(g.n);
        c.failedSinceSuccess = Number(g.recent ?? 0);
      }
    }
    return out;
  }

  toWebhook(r: WebhookEndpointsTable, c: Counts, now = this.d.clock.now()): Webhook {
    const failing = r.circuit_state !== 'closed' || r.consecutive_failures >= FAILING_THRESHOLD || c.failedSinceSuccess > 0;
    return {
      id: r.id,
      url: r.url,
      description: r.description,
      events: parseJson<string[]>(r.events, []),
      enabled: r.enabled === 1,
      source: r.source,
      secretHint: `…${r.secret_hint}`,
      previousSecretExpiresAt: r.previous_secret_sealed && (r.previous_secret_expires_at ?? 0) > now ? toIso(r.previous_secret_expires_at) : null,
      health: {
        status: failing ? 'failing' : 'healthy',
        consecutiveFailures: r.consecutive_failures,
        failingSince: toIso(r.failing_since),
        lastSuccessAt: toIso(r.last_success_at),
        lastFailureAt: toIso(r.last_failure_at),
        lastError: r.last_error,
        pendingDeliveries: c.pending,
        failedDeliveries: c.failed,
        circuit: r.circuit_state,
        nextProbeAt: r.circuit_state === 'open' ? toIso(r.circuit_until) : null,
      },
      createdAt: toIso(r.created_at)!,
      updatedAt: toIso(r.updated_at)!,
    };
  }

  private async present(accountId: string, r: WebhookEndpointsTable): Promise<Webhook> {
    return this.toWebhook(r, (await this.counts(accountId, [r])).get(r.id)!);
  }

  /** Inserts an endpoint with a fresh secret; returns the row and the secret in the clear (shown once here). */
  private async insertEndpoint(q: DbOrTx, accountId: string, v: { url: string; events: readonly string[]; description: string | null; enabled: boolean; source: WebhookEndpointSource }): Promise<{ row: WebhookEndpointsTable; secret: string }> {
    const now = this.d.clock.now();
    const total = await q.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
    if (Number(total.n) >= MAX_ENDPOINTS_TOTAL) throw new AppError('VALIDATION_ERROR', `An account has at most ${MAX_ENDPOINTS_TOTAL} webhook endpoints`);
    const id = newId('whk', now);
    const secret = newSigningSecret();
    const row: WebhookEndpointsTable = {
      id,
      account_id: accountId,
      url: v.url,
      description: v.description,
      events: JSON.stringify(v.events),
      enabled: v.enabled ? 1 : 0,
      source: v.source,
      secret_sealed: this.secrets.seal(secret, id),
      secret_hint: secret.slice(-4),
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
      secret_rotated_at: null,
      consecutive_failures: 0,
      failing_since: null,
      last_success_at: null,
      last_failure_at: null,
      last_error: null,
      circuit_state: 'closed',
      circuit_until: null,
      circuit_trips: 0,
      created_at: now,
      updated_at: now,
    };
    await q.insertInto('webhook_endpoints').values(row).execute();
    return { row, secret };
  }

  private async assertUrlFree(q: DbOrTx, accountId: string, url: string, exceptId?: string): Promise<void> {
    let qb = q.selectFrom('webhook_endpoints').select('id').where('account_id', '=', accountId).where('url', '=', url);
    if (exceptId) qb = qb.where('id', '!=', exceptId);
    const clash = await qb.executeTakeFirst();
    if (clash) {
      throw new AppError('CONFLICT', `A webhook with this URL exists already (${clash.id}); change its events instead`, {
        details: [{ path: 'url', code: 'duplicate', message: 'URL already used by another webhook of this account' }],
        extra: { existingWebhookId: clash.id },
      });
    }
  }

  /** POST /webhooks: the endpoint with its secret (the only answer that carries it unasked). */
  async create(accountId: string, input: CreateWebhookInput): Promise<WebhookWithSecret> {
    const data = parseOrThrow(CreateWebhookSchema, input);
    await this.checkUrl(data.url);
    return inTransaction(this.d.db, async (tx) => {
      const users = await tx
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('source', '=', 'user')
        .executeTakeFirstOrThrow();
      if (Number(users.n) >= MAX_USER_ENDPOINTS) throw new AppError('VALIDATION_ERROR', `An account can configure at most ${MAX_USER_ENDPOINTS} webhooks; delete one first`);
      await this.assertUrlFree(tx, accountId, data.url);
      const { row, secret } = await this.insertEndpoint(tx, accountId, { url: data.url, events: data.events, description: blank(data.description), enabled: data.enabled, source: 'user' });
      return { ...this.toWebhook(row, { pending: 0, failed: 0, failedSinceSuccess: 0 }), secret };
    });
  }

  async list(accountId: string): Promise<CursorPage<Webhook>> {
    const rows = await this.d.db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    const counts = await this.counts(accountId, rows);
    return singlePage(rows.map((r) => this.toWebhook(r, counts.get(r.id)!)), MAX_ENDPOINTS_TOTAL);
  }

  async get(accountId: string, id: string): Promise<Webhook> {
    return this.present(accountId, await this.row(this.d.db, accountId, id));
  }

  /** PUT /webhooks/{id}: partial; the secret stays. A URL or events change applies to events raised from now on. */
  async update(accountId: string, id: string, input: UpdateWebhookInput): Promise<Webhook> {
    const data = parseOrThrow(UpdateWebhookSchema, input);
    if (data.url !== undefined) await this.checkUrl(data.url);
    const row = await inTransaction(this.d.db, async (tx) => {
      const current = await this.row(tx, accountId, id);
      const patch: Partial<WebhookEndpointsTable> = { updated_at: this.d.clock.now() };
      if (data.url !== undefined && data.url !== current.url) {
        await this.assertUrlFree(tx, accountId, data.url, id);
        patch.url = data.url;
      }
      if (data.events !== undefined) {
        if (data.events.length === 0 && current.source === 'user') {
          throw new AppError('VALIDATION_ERROR', 'events: choose at least one event kind', { details: [{ path: 'events', code: 'too_short', message: 'at least one event kind' }] });
        }
        patch.events = JSON.stringify(data.events);
      }
      if (data.description !== undefined) patch.description = blank(data.description);
      if (data.enabled !== undefined) patch.enabled = data.enabled ? 1 : 0;
      await tx.updateTable('webhook_endpoints').set(patch).where('id', '=', id).where('account_id', '=', accountId).execute();
      return { ...current, ...patch };
    });
    if (row.enabled === 1) this.worker.wake();
    return this.present(accountId, row);
  }

  /** DELETE: the endpoint, its queued deliveries and its log. Forms that named it fall back to the account's endpoints. */
  async delete(accountId: string, id: string): Promise<{ id: string; deleted: true; droppedPendingDeliveries: number }> {
    return inTransaction(this.d.db, async (tx) => {
      await this.row(tx, accountId, id);
      const pending = await tx.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('endpoint_id', '=', id).where('status', '=', 'pending').executeTakeFirstOrThrow();
      await tx.deleteFrom('webhook_endpoints').where('id', '=', id).where('account_id', '=', accountId).execute();
      return { id, deleted: true as const, droppedPendingDeliveries: Number(pending.n) };
    });
  }

  /** GET /webhooks/{id}/secret (messages:write): the secret in the clear. */
  async revealSecret(accountId: string, id: string): Promise<WebhookSecret> {
    const row = await this.row(this.d.db, accountId, id);
    const now = this.d.clock.now();
    const during = row.previous_secret_sealed !== null && (row.previous_secret_expires_at ?? 0) > now;
    return {
      id: row.id,
      secret: this.secrets.open(row.secret_sealed, row.id),
      previousSecret: during ? this.secrets.open(row.previous_secret_sealed!, `${row.id}#previous`) : null,
      previousSecretExpiresAt: during ? toIso(row.previous_secret_expires_at) : null,
    };
  }

  /**
   * POST /webhooks/{id}/rotate-secret: a new secret signs from now on; the current one keeps
   * signing beside it (a second v1) for `overlapHours`, so receivers can switch without losing events.
   */
  async rotateSecret(accountId: string, id: string, input: unknown): Promise<WebhookSecret> {
    const { overlapHours } = parseOrThrow(RotateSecretSchema, input ?? {});
    const now = this.d.clock.now();
    await inTransaction(this.d.db, async (tx) => {
      const row = await this.row(tx, accountId, id);
      const current = this.secrets.open(row.secret_sealed, row.id);
      const next = newSigningSecret();
      const overlapMs = Math.round(overlapHours * 3_600_000);
      await tx
        .updateTable('webhook_endpoints')
        .set({
          secret_sealed: this.secrets.seal(next, row.id),
          secret_hint: next.slice(-4),
          previous_secret_sealed: overlapMs > 0 ? this.secrets.seal(current, `${row.id}#previous`) : null,
          previous_secret_expires_at: overlapMs > 0 ? now + overlapMs : null,
          secret_rotated_at: now,
          updated_at: now,
        })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .execute();
    });
    return this.revealSecret(accountId, id);
  }

  // ---- outbox ----------------------------------------------------------------------------------

  /**
   * The endpoint of a URL a button or form names, created on first use with its own secret (shown
   * in the webhooks list, revealable like any other), so every target has a secret, a log and
   * retries. It subscribes to nothing (events []): it gets only the events of the buttons and forms
   * that name it, unless someone adds event kinds to it later. An endpoint configured with the same
   * URL is used as it is. The URL's safety is checked at every attempt, not here: an unsafe URL
   * shows up as refused attempts in that endpoint's log instead of an event vanishing.
   */
  async endpointForUrl(q: DbOrTx, accountId: string, url: string, source: Exclude<WebhookEndpointSource, 'user'>): Promise<WebhookEndpointsTable> {
    const found = await q.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).where('url', '=', url).executeTakeFirst();
    if (found) return found;
    const description = source === 'button' ? "Created for a button's webhookUrl" : "Created for a form's webhookUrl";
    return (await this.insertEndpoint(q, accountId, { url, events: [], description, enabled: true, source })).row;
  }

  /** The URLs of these endpoints of the account, by id (a form shows where its events go). */
  async urlsOf(accountId: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.d.db.selectFrom('webhook_endpoints').select(['id', 'url']).where('account_id', '=', accountId).where('id', 'in', [...new Set(ids)]).execute();
    return new Map(rows.map((r) => [r.id, r.url]));
  }

  /** Checks a URL a form names (400 when unusable) and returns its endpoint id. */
  async formEndpoint(q: DbOrTx, accountId: string, url: string): Promise<string> {
    await this.checkUrl(url, 'webhookUrl');
    return (await this.endpointForUrl(q, accountId, url, 'form')).id;
  }

  private async subscribed(tx: Tx, accountId: string): Promise<WebhookEndpointsTable[]> {
    let perTx = this.subscribedMemo.get(tx);
    if (!perTx) this.subscribedMemo.set(tx, (perTx = new Map<string, WebhookEndpointsTable[]>()));
    let list = perTx.get(accountId);
    if (!list) {
      list = await tx.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).where('enabled', '=', 1).execute();
      perTx.set(accountId, list);
    }
    return list;
  }

  /** Whether an event of this kind would go anywhere (lets callers skip building payloads). */
  async hasTargets(tx: Tx, accountId: string, type: WebhookEventType, target: EmitTarget = { kind: 'subscribed' }): Promise<boolean> {
    if (target.kind !== 'subscribed') return true;
    return (await this.subscribed(tx, accountId)).some((e) => parseJson<string[]>(e.events, []).includes(type));
  }

  private async targets(tx: Tx, accountId: string, type: WebhookEventType, target: EmitTarget): Promise<WebhookEndpointsTable[]> {
    if (target.kind === 'subscribed') return (await this.subscribed(tx, accountId)).filter((e) => parseJson<string[]>(e.events, []).includes(type));
    if (target.kind === 'endpoint') {
      const e = await tx.selectFrom('webhook_endpoints').selectAll().where('id', '=', target.endpointId).where('account_id', '=', accountId).executeTakeFirst();
      return e && e.enabled === 1 ? [e] : [];
    }
    let e: WebhookEndpointsTable;
    try {
      e = await this.endpointForUrl(tx, accountId, target.url, target.source);
    } catch (err) {
      // The fact being recorded must not fail because of its webhook (e.g. the endpoint limit is
      // reached): the event goes to the account's subscribed endpoints instead.
      this.d.logger.warn({ err, accountId, type }, 'no endpoint for a webhookUrl; using the account endpoints');
      return this.targets(tx, accountId, type, { kind: 'subscribed' });
    }
    return e.enabled === 1 ? [e] : [];
  }

  /**
   * Writes an event and one delivery per target endpoint with `tx` — the caller's transaction,
   * which also holds the change the event reports. Returns the event id, or null when no endpoint
   * wants it (nothing is written then).
   */
  async emit(tx: Tx, accountId: string, type: WebhookEventType, body: EventBody, target: EmitTarget = { kind: 'subscribed' }): Promise<string | null> {
    const endpoints = await this.targets(tx, accountId, type, target);
    if (endpoints.length === 0) return null;
    const now = this.d.clock.now();
    const eventId = await this.insertEvent(tx, accountId, type, body, now);
    const rows: WebhookDeliveriesTable[] = endpoints.map((e) => {
      const row = this.deliveryRow(accountId, e.id, eventId, type, now, now + this.d.config.webhooks.retryWindowMs, null);
      // An endpoint whose circuit is open: the event waits for the probe with the others.
      if (e.circuit_state === 'open' && (e.circuit_until ?? 0) > now) row.next_attempt_at = e.circuit_until;
      return row;
    });
    for (let i = 0; i < rows.length; i += CHUNK) await tx.insertInto('webhook_deliveries').values(rows.slice(i, i + CHUNK)).execute();
    this.worker.wake();
    return eventId;
  }

  private async insertEvent(q: DbOrTx, accountId: string, type: string, body: EventBody, now: number): Promise<string> {
    const id = newId('evt', now);
    // The envelope first, then the kind's objects: these exact bytes are what every attempt sends and signs.
    const payload = JSON.stringify({ id, event: type, createdAt: toIso(now), ...body });
    await q.insertInto('webhook_events').values({ id, account_id: accountId, type, payload, created_at: now }).execute();
    return id;
  }

  private deliveryRow(accountId: string, endpointId: string, eventId: string, type: string, now: number, giveUpAt: number, leaseUntil: number | null): WebhookDeliveriesTable {
    return {
      id: newId('dlv', now),
      account_id: accountId,
      endpoint_id: endpointId,
      event_id: eventId,
      event_type: type,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      lease_until: leaseUntil,
      claimed_by: leaseUntil === null ? null : this.worker.claimedBy,
      give_up_at: giveUpAt,
      last_attempt_at: null,
      last_status_code: null,
      last_latency_ms: null,
      last_error: null,
      delivered_at: null,
      created_at: now,
    };
  }

  // ---- test event, log, redelivery ------------------------------------------------------------

  /**
   * POST /webhooks/{id}/test: a signed `webhook_test` event, posted now (also to a disabled
   * endpoint); one attempt, no retries; logged like every delivery.
   */
  async test(accountId: string, id: string): Promise<AttemptReport> {
    const now = this.d.clock.now();
    const delivery = await inTransaction(this.d.db, async (tx) => {
      const row = await this.row(tx, accountId, id);
      const eventId = await this.insertEvent(tx, accountId, TEST_EVENT, {
        webhook: { id: row.id, url: row.url },
        message: 'This is a test event. Verify its X-RCS-Signature with your signing secret and answer 2xx.',
      }, now);
      // Leased by this request from the start, so the worker does not post it a second time.
      const d = this.deliveryRow(accountId, row.id, eventId, TEST_EVENT, now, now, now + this.worker.leaseMs);
      await tx.insertInto('webhook_deliveries').values(d).execute();
      return d;
    });
    return this.worker.attemptClaimed(delivery, true);
  }

  private async deliveryRowOf(accountId: string, endpointId: string, deliveryId: string): Promise<WebhookDeliveriesTable> {
    assertId('dlv', deliveryId, 'deliveryId');
    const d = await this.d.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).where('endpoint_id', '=', endpointId).where('account_id', '=', accountId).executeTakeFirst();
    if (!d) throw notFound('Delivery');
    return d;
  }

  /**
   * POST /webhooks/{id}/deliveries/{deliveryId}/redeliver: posts the same event (same id, same
   * body, new signature) now. A pending delivery keeps its retry schedule when this attempt fails;
   * a delivered or failed one is attempted once.
   */
  async redeliver(accountId: string, id: string, deliveryId: string): Promise<AttemptReport> {
    await this.row(this.d.db, accountId, id);
    const current = await this.deliveryRowOf(accountId, id, deliveryId);
    const now = this.d.clock.now();
    const claimed = await this.d.db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: now, lease_until: now + this.worker.leaseMs, claimed_by: this.worker.claimedBy, give_up_at: current.status === 'pending' ? current.give_up_at : now })
      .where('id', '=', deliveryId)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .returningAll()
      .executeTakeFirst();
    if (!claimed) throw new AppError('CONFLICT', 'An attempt of this delivery is in progress; try again in a moment');
    return this.worker.attemptClaimed(claimed, true);
  }

  /** GET /webhooks/{id}/deliveries: newest first, each with its attempts (the delivery log). */
  async deliveries(accountId: string, id: string, rawQuery: DeliveriesQuery): Promise<CursorPage<Delivery>> {
    await this.row(this.d.db, accountId, id);
    const q = parseOrThrow(DeliveriesQuerySchema, rawQuery ?? {}, 'Query');
    let qb = this.d.db.selectFrom('webhook_deliveries').selectAll().where('account_id', '=', accountId).where('endpoint_id', '=', id);
    if (q.status) qb = qb.where('status', '=', q.status);
    if (q.event) qb = qb.where('event_type', '=', q.event);
    const page = await keysetPage(qb, {
      scope: { kind: 'webhook_deliveries', sort: 'createdAt', order: 'desc' },
      sortExpr: sql.ref('created_at'),
      idExpr: sql.ref('id'),
      limit: q.limit,
      cursor: q.cursor,
    });
    const rows = page.rows as WebhookDeliveriesTable[];
    const attempts = rows.length
      ? await this.d.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', rows.map((r) => r.id)).orderBy('attempt').execute()
      : [];
    const byDelivery = new Map<string, typeof attempts>();
    for (const a of attempts) {
      const list = byDelivery.get(a.delivery_id) ?? [];
      list.push(a);
      byDelivery.set(a.delivery_id, list);
    }
    return {
      data: rows.map((r) => ({
        id: r.id,
        webhookId: r.endpoint_id,
        eventId: r.event_id,
        event: r.event_type,
        status: r.status,
        attempts: r.attempts,
        nextAttemptAt: r.status === 'pending' ? toIso(r.next_attempt_at) : null,
        giveUpAt: toIso(r.give_up_at)!,
        lastAttemptAt: toIso(r.last_attempt_at),
        lastStatusCode: r.last_status_code,
        lastLatencyMs: r.last_latency_ms,
        lastError: r.last_error,
        deliveredAt: toIso(r.delivered_at),
        createdAt: toIso(r.created_at)!,
        log: (byDelivery.get(r.id) ?? []).map((a) => ({
          attempt: a.attempt,
          at: toIso(a.started_at)!,
          outcome: a.outcome,
          statusCode: a.status_code,
          latencyMs: a.outcome === 'unknown' ? null : a.latency_ms,
          error: a.error,
          responseSnippet: a.response_snippet,
          manual: a.manual === 1,
        })),
      })),
      pagination: page.pagination,
    };
  }

  /** The latest attempt of a delivery, as the console shows it after a test or redelivery. */
  async lastAttempt(accountId: string, id: string, deliveryId: string): Promise<AttemptReport | null> {
    const d = await this.d.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id', 'status', 'last_status_code', 'last_latency_ms', 'last_error', 'attempts'])
      .where('id', '=', deliveryId)
      .where('endpoint_id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!d || d.attempts === 0) return null;
    return { eventId: d.event_id, deliveryId: d.id, delivered: d.status === 'delivered', statusCode: d.last_status_code, latencyMs: d.last_latency_ms, error: d.last_error };
  }

  /** The payload of an event of the account (console: show what was sent). */
  async eventPayload(accountId: string, eventId: string): Promise<string | null> {
    const r = await this.d.db.selectFrom('webhook_events').select('payload').where('id', '=', eventId).where('account_id', '=', accountId).executeTakeFirst();
    return r?.payload ?? null;
  }
}

const blank = (v: string | null | undefined): string | null => (v === undefined || v === null || v.trim() === '' ? null : v.trim());

export { WEBHOOK_EVENTS };
