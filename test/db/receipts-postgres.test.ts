import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CarrierEvent } from '../../src/carriers/carrier.js';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher } from '../../src/messaging/dispatcher.js';
import { SendBatchRequestSchema } from '../../src/messaging/schemas.js';
import { FakeClock } from '../../src/platform/clock.js';
import { createLogger } from '../../src/platform/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';
import { postgresUnreachable } from '../helpers/postgres.js';

/**
 * Carrier receipts of the same messages reaching two instances at once (RBM posts DELIVERED and
 * READ within milliseconds, to whichever instance the load balancer picks): two contexts, each
 * with its own pool, on one PostgreSQL database. Every status change is reported once and the
 * status only moves forward (READ is never overwritten by DELIVERED). Without the status
 * service's row lock, all four concurrent transactions read SENT and all of them apply and report.
 */
const unreachable = await postgresUnreachable();
const clock = new FakeClock(Date.UTC(2026, 4, 4, 9, 0, 0));

describe.skipIf(unreachable !== null)('receipts of the same messages at two instances at once', () => {
  let database: TestDatabase;
  const dirs: string[] = [];
  const ctxs: AppContext[] = [];
  const changes: { id: string; from: string; to: string }[] = [];
  const sealingKey = randomBytes(32).toString('hex');

  const instance = async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-receipts-'));
    dirs.push(dir);
    const config = loadConfig({ DATA_DIR: dir, DATABASE_URL: database.url, DATABASE_POOL_MAX: '4', SEALING_KEY: sealingKey, SEED_DEMO: 'false', PORT: '0' });
    const ctx = await createContext(config, { clock, logger: createLogger('silent') });
    ctx.messageEvents.add({ statusChanged: async (_tx, m, from) => void changes.push({ id: m.id, from, to: m.status }) });
    ctxs.push(ctx);
    return ctx;
  };

  beforeAll(async () => {
    database = await createTestDatabase('h6_receipts');
    await instance();
    await instance();
  }, 60_000);

  afterAll(async () => {
    for (const c of ctxs) await c.database.close();
    await database?.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }, 60_000);

  it('report each change once and never move a message backwards', async () => {
    const [a, b] = ctxs as [AppContext, AppContext];
    const account = await a.services.accounts.create({ name: 'Receipts Co', timezone: 'Europe/Berlin', credits: 1_000 });
    const sender = await a.services.senders.create(account.id, { name: 'Receipts Agent', type: 'RCS', status: 'APPROVED', isDefault: true });
    const phones = Array.from({ length: 200 }, (_, i) => `+49151${String(30_000_005 + i * 10).padStart(8, '0')}`);
    const r = await a.services.send.sendBatch(account.id, SendBatchRequestSchema.parse({ phoneNumbers: phones, messageType: 'text', content: { text: 'Hi' }, sendernameId: sender.id, batchSize: 1000, delayMs: 0 }));
    const ids = (await a.db.selectFrom('messages').select('id').where('job_id', '=', r.jobId).execute()).map((m) => m.id);
    const d = new Dispatcher({ db: a.db, clock, carriers: a.carriers, accounts: a.services.accounts, events: a.messageEvents, logger: createLogger('silent'), options: DEFAULT_DISPATCHER_OPTIONS });
    expect(await d.tick()).toBe(200);
    changes.length = 0;

    const at = clock.now() + 1_000;
    const receipts = (status: 'DELIVERED' | 'READ', order: string[]): CarrierEvent[] => order.map((messageId) => ({ kind: 'status', messageId, status, at: status === 'READ' ? at + 500 : at }));
    // Different id orders per call: the locks must still be taken in one order (no deadlock).
    const reversed = [...ids].reverse();
    const results = await Promise.all([
      a.services.status.handleMany(receipts('DELIVERED', ids)),
      b.services.status.handleMany(receipts('READ', reversed)),
      a.services.status.handleMany(receipts('READ', ids)),
      b.services.status.handleMany(receipts('DELIVERED', reversed)),
    ]);
    expect(results.flat().every(Boolean)).toBe(true);

    const rows = await b.db.selectFrom('messages').select(['id', 'status', 'delivered_at', 'read_at']).where('id', 'in', ids).execute();
    expect(rows.filter((m) => m.status !== 'READ')).toEqual([]);
    expect(rows.every((m) => m.read_at === at + 500 && m.delivered_at !== null)).toBe(true);
    for (const id of ids) {
      const mine = changes.filter((c) => c.id === id).map((c) => `${c.from}→${c.to}`);
      // SENT→READ alone (READ first; a later DELIVERED only fills in the time), or the two steps.
      expect([['SENT→READ'], ['SENT→DELIVERED', 'DELIVERED→READ']]).toContainEqual(mine);
    }
  }, 60_000);
});
