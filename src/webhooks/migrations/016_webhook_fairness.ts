import { sql, type Kysely } from 'kysely';
import { intType } from '../../platform/db/dialect.js';

/**
 * Fair webhook delivery (issue #17): a circuit breaker per endpoint, and the indexes of the fair
 * claim. See docs/storage.md "Webhook circuit breaker" and docs/webhooks.md "Delivery".
 *
 * - circuit_state closed | open | half_open; circuit_until: while open, when the next probe may
 *   go out; while half_open, the probe's lease (a crashed probe is replaced after it); circuit_trips:
 *   how often the circuit opened in the current failure streak (the exponent of its backoff).
 * - (status, endpoint_id, next_attempt_at): the claim numbers each endpoint's due deliveries in
 *   order without a sort.
 * - lease_until where not null: the deliveries in flight, counted per endpoint against its cap.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const INT = intType(db);
  await db.schema.alterTable('webhook_endpoints').addColumn('circuit_state', 'text', (c) => c.notNull().defaultTo('closed')).execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('circuit_until', INT).execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('circuit_trips', INT, (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint_due').on('webhook_deliveries').columns(['status', 'endpoint_id', 'next_attempt_at']).execute();
  await sql`create index webhook_deliveries_leased on webhook_deliveries (lease_until) where lease_until is not null`.execute(db);
}
