import type { AppContext } from './context.js';
import { SHUTDOWN_GRACE_MS, type RunningServer } from './server.js';
import { stopWorkers } from './workers.js';

/**
 * The orderly stop on SIGTERM/SIGINT, one log line per phase: stop accepting; give requests in
 * flight SHUTDOWN_GRACE_MS, then destroy the connections left (slow or stalled clients); stop the
 * dispatcher, webhook worker and the other loops (leases released, posts in flight aborted); close
 * the database. Bounded: grace + the dispatcher's round in progress + a checkpoint, well inside
 * the 10 s most process managers give before SIGKILL. Work cut short is not lost: every message
 * and delivery is a database row that the next start takes up.
 */
export async function shutdown(ctx: AppContext, server: RunningServer, signal: string, graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
  const log = ctx.logger;
  log.info({ signal, graceMs }, 'shutdown: stopped accepting connections; waiting for requests in flight');
  const http = await server.close(graceMs);
  if (http.drained) log.info({ ms: http.ms }, 'shutdown: requests in flight finished');
  else log.warn({ ms: http.ms, destroyed: http.destroyed }, 'shutdown: grace period over; closed the connections still open');
  await stopWorkers(ctx);
  await ctx.database.close();
  log.info('shutdown: database closed');
}
