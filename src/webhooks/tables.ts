/*
 * The tables the webhooks area owns and is the one writer of (issue #32; docs/storage.md describes each). They join
 * the database's type by augmenting platform/db/schema.ts's Database below, so the platform never imports an area.
 */

/**
 * Webhook endpoints, the outbox (events and their deliveries) and the delivery log (migration 008; the opt-in forms
 * of the same migration belong to forms/). Times are epoch milliseconds, booleans 0/1, lists JSON text. Every row
 * carries account_id. See docs/storage.md "Webhooks and forms" and docs/webhooks.md.
 */

/** Where an endpoint came from: configured by a person (REST or console), or named by a button's or a form's webhookUrl. */
export type WebhookEndpointSource = 'user' | 'button' | 'form';

export interface WebhookEndpointsTable {
  /** whk_… */
  id: string;
  account_id: string;
  /** Unique per account. */
  url: string;
  description: string | null;
  /** JSON list of the event kinds it receives (docs/webhooks.md). */
  events: string;
  enabled: number;
  source: WebhookEndpointSource;
  /** The signing secret, AES-256-GCM sealed under settings.webhooks.secret_key (see src/webhooks/secret-box.ts). */
  secret_sealed: string;
  /** Last four characters of the secret, to tell secrets apart in lists. */
  secret_hint: string;
  /** The secret before the last rotation; it still signs until previous_secret_expires_at. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | null;
  secret_rotated_at: number | null;
  /** Failed attempts in a row since the last success (0 = healthy). */
  consecutive_failures: number;
  /** First failure of the current run of failures. */
  failing_since: number | null;
  last_success_at: number | null;
  last_failure_at: number | null;
  last_error: string | null;
  /** Circuit breaker (migration 016): open after FAILING_THRESHOLD failures in a row; events wait without attempts. */
  circuit_state: WebhookCircuitState;
  /** open: when the next probe may go out; half_open: until when the probe in flight holds it. */
  circuit_until: number | null;
  /** Openings in the current failure streak (backoff exponent); 0 when closed. */
  circuit_trips: number;
  created_at: number;
  updated_at: number;
}

export type WebhookCircuitState = 'closed' | 'open' | 'half_open';

/** One event, stored once with the exact bytes every delivery posts. */
export interface WebhookEventsTable {
  /** evt_… */
  id: string;
  account_id: string;
  type: string;
  /** The JSON body exactly as sent (and signed). */
  payload: string;
  created_at: number;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event for one endpoint: the outbox row the delivery worker works through. */
export interface WebhookDeliveriesTable {
  /** dlv_… */
  id: string;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  /** Copied from the event for the log's filters. */
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When the next attempt is due (pending only). */
  next_attempt_at: number | null;
  /** A worker owns the delivery until then; after a crash the lease runs out and it is claimed again. */
  lease_until: number | null;
  /** The instance holding the lease (migration 033); its rows are given back when its heartbeat stops. */
  claimed_by: string | null;
  /** After a failure at or past this time the delivery gives up (status failed). */
  give_up_at: number;
  last_attempt_at: number | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  delivered_at: number | null;
  created_at: number;
}

/** unknown: the attempt was recorded before its post and no outcome followed (in flight, or the process stopped mid-post). */
export type WebhookAttemptOutcome = 'success' | 'retry' | 'failed' | 'unknown';

/** The delivery log: one row per HTTP attempt. */
export interface WebhookAttemptsTable {
  delivery_id: string;
  /** 1, 2, 3, … per delivery (the X-RCS-Delivery-Attempt header). */
  attempt: number;
  account_id: string;
  endpoint_id: string;
  started_at: number;
  /** 0 while the outcome is unknown. */
  latency_ms: number;
  status_code: number | null;
  outcome: WebhookAttemptOutcome;
  error: string | null;
  /** The first bytes of the response body (at most 500 characters), for debugging. */
  response_snippet: string | null;
  /** 1 when a person asked for it (test event, redelivery). */
  manual: number;
}

export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged: the webhooks area's tables join the database's type
  interface Database extends WebhooksTables {}
}
