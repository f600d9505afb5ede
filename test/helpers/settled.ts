import { sql } from 'kysely';
import type { TestServer } from './server.js';

/**
 * Waits until the server has nothing left to do now, instead of sleeping a fixed time before
 * asserting that "nothing more happened": no message due and unsent, no simulated receipt due, no
 * webhook delivery due or leased, no post in flight — the same on two looks in a row, so work that
 * one step hands to the next (a send → its receipts → their webhook events) is seen through. Work
 * due later (a retry's backoff, a scheduled send) is not waited for: that is what the caller's
 * assertion is about. A fixed sleep passes vacuously on a machine slower than the sleep; this
 * waits as long as the work takes, up to `timeoutMs`, and then fails.
 */
export async function settled(t: Pick<TestServer, 'ctx'>, opts: { timeoutMs?: number; webhooks?: boolean } = {}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  // webhooks: false — the caller's assertion is about messages only, and the worker may rightly hold a due delivery
  // back (an endpoint whose circuit is open, under a fake clock that never reaches its end).
  const webhooks = opts.webhooks ?? true;
  const { db } = t.ctx;
  const end = Date.now() + timeoutMs;
  let quietLooks = 0;
  for (;;) {
    const now = t.ctx.clock.now();
    const [work] = (
      await sql<{ messages: number | string; receipts: number | string; deliveries: number | string }>`
        select
          (select count(*) from messages where pending = 1 and due_at <= ${now}) as messages,
          (select count(*) from sim_messages where deliver_due <= ${now} or (read_due <= ${now} and deliver_due is null)) as receipts,
          (select count(*) from webhook_deliveries where status = 'pending' and (lease_until is not null or next_attempt_at <= ${now})) as deliveries`.execute(db)
    ).rows;
    const busy = Number(work!.messages) + Number(work!.receipts) + (webhooks ? Number(work!.deliveries) + t.ctx.services.webhooks.worker.postsInFlight : 0);
    quietLooks = busy === 0 ? quietLooks + 1 : 0;
    if (quietLooks >= 2) return;
    if (Date.now() > end) throw new Error(`the server did not settle within ${timeoutMs} ms: ${JSON.stringify(work)}, ${t.ctx.services.webhooks.worker.postsInFlight} posts in flight`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
