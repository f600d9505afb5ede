import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemoIfEmpty } from '../../src/bootstrap/demo.js';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { createLogger } from '../../src/platform/logger.js';
import { describePostgres, startInstances, type Instances } from '../helpers/instances.js';
import { createTestSchema } from '../helpers/postgres.js';
import type { TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';

/*
 * What one instance changes, the others see at their very next request (issue #19): API key
 * principals and sender lists are cached per process on SQLite only (change-stamp.ts); on
 * PostgreSQL every instance reads them. Each test warms instance B first, so a cache there would
 * answer with the old state.
 */

let inst: Instances;
let a: TestServer;
let b: TestServer;

describePostgres('changes through one instance are seen by the other at once', () => {
  beforeAll(async () => {
    inst = await startInstances(2);
    [a, b] = inst.all as [TestServer, TestServer];
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('a key revoked in the console of instance A is refused by instance B on the very next request', async () => {
    const key = await a.createKey(a.account.accountId, ['messages:read']);
    const keyId = (await a.ctx.services.apiKeys.list(a.account.accountId)).find((k) => key.startsWith(k.prefix))!.id;
    for (let i = 0; i < 3; i++) expect((await b.api('GET', '/api/rcs/senders', undefined, { key })).status).toBe(200);

    const web = new WebClient(a.url);
    expect((await web.login(a.account.email, a.account.password, a.account.totpSecret)).status).toBe(303);
    const page = await web.get('/console/api-keys');
    const revoked = await web.post(`/console/api-keys/${keyId}/revoke`, { csrf: WebClient.hidden(page.text, 'csrf') });
    expect(revoked.status).toBe(303);

    const after = await b.api('GET', '/api/rcs/senders', undefined, { key });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('UNAUTHORIZED');
    expect((await a.api('GET', '/api/rcs/senders', undefined, { key })).status).toBe(401);
  });

  it('a sender rejected through instance A is listed as rejected by B and refused for sending by B', async () => {
    const created = await a.ctx.services.senders.create(a.account.accountId, { name: 'Shared Agent', type: 'RCS', status: 'APPROVED', isDefault: false });
    const listed = async () => ((await b.api('GET', '/api/rcs/senders', undefined, { key: a.account.apiKey })).body.sendernames as { id: string; status: string }[]).find((s) => s.id === created.id);
    expect(await listed()).toMatchObject({ status: 'APPROVED' });
    expect(await listed()).toMatchObject({ status: 'APPROVED' });

    await a.ctx.services.senders.setStatus(a.account.accountId, created.id, 'REJECTED', 'Brand not verified');
    expect(await listed()).toMatchObject({ status: 'REJECTED', rejectionReason: 'Brand not verified' });
    const send = await b.api('POST', '/api/rcs/send', { phoneNumber: '+4915131400001', messageType: 'text', content: { text: 'hi' }, sendernameId: created.id }, { key: a.account.apiKey });
    expect(send.status).toBeGreaterThanOrEqual(400);
    expect(send.status).toBeLessThan(500);
  });

  it('a sender created through A appears in B’s list at once', async () => {
    const before = (await b.api('GET', '/api/rcs/senders?type=SMS', undefined, { key: a.account.apiKey })).body.sendernames as unknown[];
    const created = await a.ctx.services.senders.create(a.account.accountId, { name: 'NEWCO', type: 'SMS', status: 'APPROVED', isDefault: false });
    const after = (await b.api('GET', '/api/rcs/senders?type=SMS', undefined, { key: a.account.apiKey })).body.sendernames as { id: string }[];
    expect(after).toHaveLength(before.length + 1);
    expect(after.map((s) => s.id)).toContain(created.id);
  });
});

describePostgres('first start of several instances on one empty database', () => {
  it('seeds exactly one demo account', async () => {
    const schema = await createTestSchema('seed');
    const env = { DATABASE_URL: schema.url, DATABASE_POOL_MAX: '3', SEALING_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent' };
    const dirs = [0, 1, 2].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-seed-')));
    const contexts = await Promise.all(dirs.map((dir) => createContext(loadConfig({ ...env, DATA_DIR: dir }), { logger: createLogger('silent') })));
    try {
      const seeded = await Promise.all(contexts.map((ctx) => seedDemoIfEmpty({ db: ctx.db, ...ctx.services })));
      expect(seeded.filter((s) => s !== null)).toHaveLength(1);
      const accounts = await contexts[0]!.db.selectFrom('accounts').select('id').execute();
      expect(accounts).toHaveLength(1);
    } finally {
      await Promise.all(contexts.map((ctx) => ctx.database.close()));
      await schema.drop();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
