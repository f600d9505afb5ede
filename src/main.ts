import { loadConfig, ConfigError } from './config.js';
import { createContext } from './context.js';
import { deliverFirstStart, firstStartBanner, urlsBanner } from './bootstrap/banner.js';
import { SealingKeyError } from './platform/sealing.js';
import { seedDemoIfEmpty } from './bootstrap/demo.js';
import { bindPort, serve } from './server.js';
import { shutdown } from './shutdown.js';
import { startWorkers } from './workers.js';

/** Entry: config → port (completes the config) → database → services → HTTP → workers; graceful stop on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  // The port first: the public URL follows the bound port, and the context is built from the complete config.
  const bound = await bindPort(config);
  let ctx;
  try {
    ctx = await createContext(bound.config);
  } catch (err) {
    // A missing or wrong sealing key must stop the start with what to do, not a stack trace.
    if (err instanceof SealingKeyError) {
      process.stderr.write(`Cannot start: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  const demo = config.seedDemo ? await seedDemoIfEmpty({ db: ctx.db, ...ctx.services }) : null;
  const server = serve(bound, ctx);
  await startWorkers(ctx);
  process.stdout.write(
    demo
      ? deliverFirstStart(await firstStartBanner(ctx.config.publicUrl, demo, { terminal: process.stdout.isTTY === true }), { publicUrl: ctx.config.publicUrl, dataDir: ctx.config.dataDir, isTTY: process.stdout.isTTY === true })
      : urlsBanner(ctx.config.publicUrl),
  );
  ctx.logger.info({ url: server.url }, 'listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      ctx.logger.info({ signal }, 'shutdown: already in progress');
      return;
    }
    stopping = true;
    // A last resort only: the orderly path below is bounded well inside this.
    const force = setTimeout(() => {
      ctx.logger.error('shutdown: not done after 10 s; exiting anyway');
      process.exit(1);
    }, 10_000);
    force.unref();
    try {
      await shutdown(ctx, server, signal);
    } catch (err) {
      ctx.logger.error({ err }, 'shutdown: failed');
      process.exit(1);
    }
    ctx.logger.info('shutdown: done');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
