import type { AppContext } from './context.js';

/** Background work: carrier receipts and the dispatcher. Started after the HTTP server listens. */
export async function startWorkers(ctx: AppContext): Promise<void> {
  await ctx.carriers.start((event) => ctx.services.status.handle(event));
  ctx.dispatcher.start();
}

/** Stops taking new work and waits for the round in progress. */
export async function stopWorkers(ctx: AppContext): Promise<void> {
  await ctx.dispatcher.stop();
  await ctx.carriers.stop();
}
