import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import type { AppContext } from './context.js';

/** How long requests in flight may take to finish once the server stops accepting (SIGTERM). */
export const SHUTDOWN_GRACE_MS = 5_000;

export interface DrainResult {
  /** Every connection ended by itself within the grace period. */
  drained: boolean;
  /** Connections still open (busy or stalled) when the grace ran out, then destroyed. */
  destroyed: number;
  ms: number;
}

export interface RunningServer {
  url: string;
  port: number;
  server: http.Server;
  /**
   * Stops accepting, closes idle keep-alive connections (and each one that becomes idle), lets
   * in-flight requests finish for up to `graceMs`, then destroys what is left: a client that
   * dribbles its body one byte a second must not hold the shutdown hostage.
   */
  close(graceMs?: number): Promise<DrainResult>;
}

export async function listen(ctx: AppContext, port = ctx.config.port, host = ctx.config.host): Promise<RunningServer> {
  const app = createApp(ctx);
  const server = http.createServer(app);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const url = `http://${hostPart}:${addr.port}`;
  // Without an explicit PUBLIC_URL, links we print and send follow the port actually bound (port 0 in tests).
  if (!ctx.config.publicUrlExplicit) ctx.config.publicUrl = url;
  return {
    url,
    port: addr.port,
    server,
    close: (graceMs = SHUTDOWN_GRACE_MS) => drain(server, graceMs),
  };
}

async function drain(server: http.Server, graceMs: number): Promise<DrainResult> {
  const started = performance.now();
  // Resolves once every connection has ended (also when the server was closed already).
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // A keep-alive connection turns idle when its response ends; close it then, not after keepAliveTimeout.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
  const drained = await Promise.race([closed.then(() => true as const), graceOver]);
  clearTimeout(timer);
  clearInterval(sweep);
  let destroyed = 0;
  if (!drained) {
    destroyed = await new Promise<number>((resolve) => server.getConnections((err, n) => resolve(err ? 0 : n)));
    server.closeAllConnections();
    await closed;
  }
  return { drained, destroyed, ms: Math.round(performance.now() - started) };
}
