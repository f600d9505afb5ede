import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config.js';
import { createContext, type AppContext } from '../../../src/context.js';
import type { Clock } from '../../../src/platform/clock.js';
import { createLogger } from '../../../src/platform/logger.js';
import { startHttp, type RunningServer } from '../../../src/server.js';
import { startWorkers, stopWorkers } from '../../../src/workers.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** Short backoff so retry tests run in milliseconds; the local receiver needs the private-network switch. */
export const FAST_RETRY_ENV = {
  DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
  WEBHOOK_RETRY_BASE_MS: '40',
  WEBHOOK_RETRY_MAX_MS: '160',
  WEBHOOK_TIMEOUT_MS: '2000',
};

export interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  /** The exact bytes received. */
  raw: Buffer;
  json: any;
  at: number;
}

export type Answer = { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };

export interface Receiver {
  url: string;
  /** Every request, in arrival order. */
  requests: Received[];
  /** How to answer the next request (default 200). */
  respond(fn: (r: Received, n: number) => Answer): void;
  /** Requests whose JSON `event` is `type` (and that pass `filter`). */
  events(type?: string, filter?: (r: Received) => boolean): Received[];
  waitFor(pred: (all: Received[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

/** A local HTTP receiver that records the raw body of every request. */
export async function startReceiver(): Promise<Receiver> {
  const requests: Received[] = [];
  let answer: (r: Received, n: number) => Answer = () => ({ status: 200, body: 'ok' });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: unknown = null;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        /* not JSON */
      }
      const r: Received = { path: req.url ?? '/', method: req.method ?? '', headers: req.headers, raw, json, at: Date.now() };
      requests.push(r);
      const a = answer(r, requests.length);
      const send = () => {
        res.writeHead(a.status, { 'Content-Type': 'text/plain', ...(a.headers ?? {}) });
        res.end(a.body ?? '');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    respond(fn) {
      answer = fn;
    },
    events(type, filter) {
      return requests.filter((r) => (type === undefined || r.json?.event === type) && (!filter || filter(r)));
    },
    async waitFor(pred, timeoutMs = 10_000, what = 'webhook requests') {
      const until = Date.now() + timeoutMs;
      while (!pred(requests)) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; got ${requests.length}: ${requests.map((r) => r.json?.event ?? r.path).join(', ')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The verification of docs/webhooks.md, written independently of the server's code: parse
 * `t=…,v1=…[,v1=…]`, HMAC-SHA256 with the secret over `${t}.` + raw body bytes, hex, constant-time
 * compare with each v1.
 */
export function verifyWebhook(raw: Buffer, header: string | string[] | undefined, secret: string, toleranceSeconds?: number, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  if (typeof header !== 'string') return false;
  const parts = header.split(',').map((p) => p.split('=') as [string, string]);
  const t = parts.find(([k]) => k === 't')?.[1];
  const v1s = parts.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (!t || v1s.length === 0) return false;
  if (toleranceSeconds !== undefined && Math.abs(nowSeconds - Number(t)) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${t}.`, 'utf8'), raw])).digest();
  return v1s.some((v) => {
    const got = Buffer.from(v, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

/** The v1 values of a signature header. */
export const v1Values = (header: string | string[] | undefined): string[] =>
  typeof header === 'string' ? header.split(',').filter((p) => p.startsWith('v1=')).map((p) => p.slice(3)) : [];

export async function startWebhookServer(opts: { clock?: Clock; env?: Record<string, string> } = {}): Promise<TestServer> {
  return startTestServer({ ...opts, env: { ...FAST_RETRY_ENV, ...(opts.env ?? {}) } });
}

/** Creates a webhook through the API and answers {id, secret}. */
export async function createHook(t: TestServer, url: string, events: string[], key?: string): Promise<{ id: string; secret: string; body: any }> {
  const r = await t.api('POST', '/api/rcs/webhooks', { url, events, description: 'test receiver' }, key ? { key } : {});
  if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: r.body.data.id, secret: r.body.data.secret, body: r.body };
}

/** A server on a data directory that outlives it (restart tests): close() keeps the files. */
export interface PlainServer {
  url: string;
  ctx: AppContext;
  server: RunningServer;
  close(): Promise<void>;
}

export async function startOn(dataDir: string, env: Record<string, string>): Promise<PlainServer> {
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', SIM_DELIVERY_DELAY_MS: '0', SIM_READ_DELAY_MS: '0', SEED_DEMO: 'false', ...env });
  const { ctx, server } = await startHttp(config, (c) => createContext(c, { logger: createLogger('silent') }), 0, '127.0.0.1');
  await startWorkers(ctx);
  return {
    url: server.url,
    ctx,
    server,
    async close() {
      await server.close();
      await stopWorkers(ctx);
      await ctx.database.close();
    },
  };
}

export const tempDataDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-webhooks-'));
