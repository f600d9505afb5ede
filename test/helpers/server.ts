import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { startHttp, type RunningServer } from '../../src/server.js';
import { startWorkers, stopWorkers } from '../../src/workers.js';
import type { Clock } from '../../src/platform/clock.js';
import { ALL_PERMISSIONS, type Permission } from '../../src/platform/permissions.js';
import { createLogger, type Logger } from '../../src/platform/logger.js';
import type { ResolveAll } from '../../src/platform/net/network-guard.js';
import { expectLedgerBalanced } from '../billing/invariant.js';
import { testDatabaseEnv } from './database.js';

export interface TestAccount {
  accountId: string;
  apiKey: string;
  email: string;
  password: string;
  totpSecret: string;
  /** Approved senders created for the account. */
  senders: { rcs: string; sms: string; rcsTest: string };
}

export interface TestServer {
  url: string;
  ctx: AppContext;
  server: RunningServer;
  dataDir: string;
  /** DATABASE_URL and friends of this server's own PostgreSQL schema ({} on SQLite): for child processes (the CLI) on its database. */
  dbEnv: Record<string, string>;
  /** The first account (all permissions). */
  account: TestAccount;
  /** Another tenant; its ids must be invisible to `account`. */
  createAccount(opts?: { permissions?: readonly Permission[]; name?: string }): Promise<TestAccount>;
  /** A key on an existing account with chosen permissions. */
  createKey(accountId: string, permissions: readonly Permission[]): Promise<string>;
  /** fetch relative to the server with the account's key and JSON handling. */
  api(method: string, pathname: string, body?: unknown, opts?: { key?: string | null; headers?: Record<string, string>; rawBody?: string }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * DNS of the share page's media fetches in tests: `localhost` is loopback, every other name is
 * unknown, so a preview naming media.example.com never makes the test machine ask a resolver.
 */
export const offlineResolve: ResolveAll = (hostname, _options, callback) => {
  if (hostname.toLowerCase() === 'localhost') return callback(null, [{ address: '127.0.0.1', family: 4 }]);
  callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (no DNS in tests)`), { code: 'ENOTFOUND' }), []);
};

/**
 * A real server on an ephemeral loopback port with a temporary SQLite file, or with TEST_DATABASE=postgres a
 * PostgreSQL schema of its own (dropped by close()), unless the test's env names a database itself.
 */
export async function startTestServer(opts: { clock?: Clock; env?: Record<string, string>; workers?: boolean; logger?: Logger } = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-test-'));
  const ownsDatabase = opts.env?.DATABASE_URL === undefined && opts.env?.DATABASE_FILE === undefined;
  const { env: dbEnv, schema } = ownsDatabase ? await testDatabaseEnv('srv') : { env: {}, schema: null };
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', SIM_DELIVERY_DELAY_MS: '0', SIM_READ_DELAY_MS: '0', ...dbEnv, ...opts.env });
  // TEST_SERVER_LOG=warn (or debug) shows the server's log while a test is being debugged.
  const started = await startHttp(config, (c) => createContext(c, { ...(opts.clock ? { clock: opts.clock } : {}), logger: opts.logger ?? createLogger(process.env.TEST_SERVER_LOG ?? 'silent'), previewMediaResolve: offlineResolve }), 0, '127.0.0.1').catch(async (err: unknown) => {
    await schema?.drop();
    throw err;
  });
  const { ctx, server } = started;
  if (opts.workers !== false) await startWorkers(ctx);

  const createKey = async (accountId: string, permissions: readonly Permission[]) =>
    (await ctx.services.apiKeys.create(accountId, `test key ${++counter}`, permissions)).key;

  const createAccount = async (o: { permissions?: readonly Permission[]; name?: string } = {}): Promise<TestAccount> => {
    const n = ++counter;
    const account = await ctx.services.accounts.create({ name: o.name ?? `Test Co ${n}`, timezone: 'Europe/Berlin', credits: 1000, companyProfile: { company_name: `Test Co ${n}` } });
    const password = `correct horse battery ${n}`;
    const email = `user${n}-${Date.now()}@example.com`;
    const user = await ctx.services.users.create(account.id, email, password);
    const rcs = await ctx.services.senders.create(account.id, { name: `RCS Agent ${n}`, type: 'RCS', status: 'APPROVED', isDefault: true });
    const sms = await ctx.services.senders.create(account.id, { name: `SMSCO${n}`, type: 'SMS', status: 'APPROVED', isDefault: true });
    const rcsTest = await ctx.services.senders.create(account.id, { name: `Test Agent ${n}`, type: 'RCS', status: 'APPROVED', isTest: true, testPhones: ['+4915550000001'] });
    const apiKey = await createKey(account.id, o.permissions ?? ALL_PERMISSIONS);
    return { accountId: account.id, apiKey, email, password, totpSecret: user.totpSecret, senders: { rcs: rcs.id, sms: sms.id, rcsTest: rcsTest.id } };
  };

  const account = await createAccount();

  const api: TestServer['api'] = async (method, pathname, body, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const key = o.key === undefined ? account.apiKey : o.key;
    if (key) headers['X-API-Key'] = key;
    let payload: string | undefined = o.rawBody;
    if (body !== undefined && payload === undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${server.url}${pathname}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };

  return {
    url: server.url,
    ctx,
    server,
    dataDir,
    dbEnv,
    account,
    createAccount,
    createKey,
    api,
    async close() {
      await server.close();
      await stopWorkers(ctx);
      // Every test that ran against this server left balances equal to their credit ledgers.
      await expectLedgerBalanced(ctx.db, dataDir);
      await ctx.database.close();
      await schema?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
