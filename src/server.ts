import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { AppError, errorBody } from './platform/errors.js';

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

/** A port bound before anything is built, and the configuration completed from it. */
export interface BoundPort {
  server: http.Server;
  port: number;
  url: string;
  /** `config` with the bound port, and publicUrl following it unless PUBLIC_URL was set (port 0 in tests). */
  config: Config;
}

/**
 * Binds the port first, so the configuration is complete (the bound port, and the public URL links are built from)
 * before the context and the app are built from it: nothing changes the configuration afterwards. Until `serve`
 * attaches the app, requests get 503.
 */
export async function bindPort(config: Config, port = config.port, host = config.host): Promise<BoundPort> {
  const server = http.createServer(starting);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const url = `http://${hostPart}:${addr.port}`;
  return { server, port: addr.port, url, config: { ...config, host, port: addr.port, publicUrl: config.publicUrlExplicit ? config.publicUrl : url } };
}

function starting(_req: http.IncomingMessage, res: http.ServerResponse): void {
  const body = errorBody(new AppError('SERVICE_UNAVAILABLE', 'The server is starting; try again in a second'));
  res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' }).end(JSON.stringify(body));
}

/** Builds the app from a context made of `bound.config` and lets it answer on the bound port. */
export function serve(bound: BoundPort, ctx: AppContext): RunningServer {
  const app = createApp(ctx);
  bound.server.removeListener('request', starting);
  bound.server.on('request', app);
  return {
    url: bound.url,
    port: bound.port,
    server: bound.server,
    close: (graceMs = SHUTDOWN_GRACE_MS) => drain(bound.server, graceMs),
  };
}

/** bindPort, then the context from the completed configuration (`build`), then serve; the port is freed when build fails. */
export async function startHttp(config: Config, build: (config: Config) => Promise<AppContext>, port?: number, host?: string): Promise<{ ctx: AppContext; server: RunningServer }> {
  const bound = await bindPort(config, port, host);
  let ctx: AppContext;
  try {
    ctx = await build(bound.config);
  } catch (err) {
    await new Promise<void>((resolve) => bound.server.close(() => resolve()));
    throw err;
  }
  return { ctx, server: serve(bound, ctx) };
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
