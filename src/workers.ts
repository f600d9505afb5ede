import type { AppContext } from './context.js';
import { startCheckpointer, type Checkpointer } from './platform/db/checkpointer.js';
import { startSandboxSweeper } from './sandbox/service.js';
import { startIdempotencySweeper } from './platform/idempotency/store.js';
import { startRateLimitSweeper } from './platform/http/rate-limit-store.js';
import { startPreviewExpiry } from './previews/expiry.js';

const stops = new WeakMap<AppContext, () => Promise<void>>();
const checkpointers = new WeakMap<AppContext, Checkpointer>();

/** Background work: carrier receipts, the dispatcher, webhook deliveries, WAL checkpoints, sweepers. Started after the HTTP server listens. */
export async function startWorkers(ctx: AppContext): Promise<void> {
  // SQLite's WAL only; PostgreSQL checkpoints on its own server.
  const database = ctx.database;
  const checkpointer =
    database.dialect === 'sqlite'
      ? startCheckpointer(ctx.config.databaseFile, {
          writer: database.raw,
          onCheckpoint: (r) => ctx.logger.debug({ walFrames: r.log, checkpointed: r.checkpointed, busy: r.busy }, 'WAL checkpoint'),
          onError: (err) => ctx.logger.warn({ err }, 'WAL checkpoint thread'),
        })
      : null;
  if (checkpointer) checkpointers.set(ctx, checkpointer);
  await ctx.carriers.start((events) => ctx.services.status.handleMany(events));
  // Joins the instances before claiming anything: what a dead instance (this one's previous life among them) had
  // claimed is given back first, and from now on a dead one's claims are given back within seconds.
  await ctx.instances.start();
  ctx.dispatcher.start();
  // Webhook deliveries: the outbox is in the database, so whatever was pending before a restart is posted now.
  ctx.services.webhooks.worker.start();
  const stopSandboxSweeper = startSandboxSweeper(ctx.services.sandbox, (err) => ctx.logger.warn({ err }, 'sandbox sweep failed'));
  // Idempotency keys older than 24 h: at start, then every 10 minutes.
  const idempotencySweeper = startIdempotencySweeper(ctx.services.idempotency, (err) => ctx.logger.warn({ err }, 'idempotency sweep failed'));
  // Rate limiters' ended windows: at start, then every 10 minutes.
  const rateLimitSweeper = startRateLimitSweeper(ctx.services.rateLimits, (err) => ctx.logger.warn({ err }, 'rate limit sweep failed'));
  // Previews that expired while waiting: preview.expired, once across instances.
  const previewExpiry = startPreviewExpiry(ctx.services.previews, (err) => ctx.logger.warn({ err }, 'preview expiry round failed'));
  stops.set(ctx, async () => {
    stopSandboxSweeper();
    await previewExpiry.stop();
    await idempotencySweeper.stop();
    await rateLimitSweeper.stop();
  });
}

/**
 * Stops taking new work and waits for the round in progress, one line per phase. The dispatcher
 * gives back the leases of messages it adopted but did not send, and the webhook worker aborts
 * posts in flight and releases their deliveries, so a restart takes both up at once.
 */
export async function stopWorkers(ctx: AppContext): Promise<void> {
  const log = ctx.logger;
  await stops.get(ctx)?.();
  stops.delete(ctx);
  await ctx.dispatcher.stop();
  log.info('shutdown: dispatcher stopped (unsent messages released)');
  await ctx.services.webhooks.worker.stop();
  log.info('shutdown: webhook worker stopped (posts in flight aborted, deliveries released)');
  // Last: while the dispatcher and the webhook worker still held work, this instance had to look alive.
  await ctx.instances.stop();
  await ctx.carriers.stop();
  await checkpointers.get(ctx)?.stop();
  checkpointers.delete(ctx);
  log.info('shutdown: carriers, sandbox sweeper and WAL checkpointer stopped');
}
