import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import type { AppContext } from './context.js';

export interface RunningServer {
  url: string;
  port: number;
  server: http.Server;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
