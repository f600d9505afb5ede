import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { PROJECT_ROOT } from '../../../src/platform/paths.js';
import { cliEntry } from '../../helpers/cli.js';
import { withOtherConnection } from '../../helpers/database.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * Revocation is immediate (issue #15): a key revoked by another connection — the admin CLI,
 * another process on the same database file — is refused on its very next request, although the
 * server keeps key principals in memory. The clock does not move: nothing here may rely on a
 * cache entry timing out.
 */
const clock = new FakeClock(Date.UTC(2026, 10, 22, 9, 0, 0));
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ clock, workers: false });
});
afterAll(async () => {
  await t?.close();
});

const status = async (key: string) => (await t.api('GET', '/api/rcs/status', undefined, { key })).status;

describe('API key revocation from elsewhere', () => {
  it('a revocation written by another connection is refused at once', async () => {
    const key = await t.createKey(t.account.accountId, ['messages:read']);
    for (let i = 0; i < 3; i++) expect(await status(key)).toBe(200);
    const info = (await t.ctx.services.apiKeys.list(t.account.accountId)).find((k) => k.permissions.length === 1 && k.revokedAt === null)!;
    await withOtherConnection(t.ctx.config, (other) => other.updateTable('api_keys').set({ revoked_at: clock.now() }).where('id', '=', info.id).execute());
    expect(await status(key)).toBe(401);
  });

  it('keys:revoke of the admin CLI (another process) is refused on the next request', async () => {
    const key = await t.createKey(t.account.accountId, ['contacts:read']);
    expect(await status(key)).toBe(200);
    const info = (await t.ctx.services.apiKeys.list(t.account.accountId)).find((k) => k.permissions.join() === 'contacts:read' && k.revokedAt === null)!;
    // Asynchronously: the server in this process keeps answering while the CLI runs.
    const r = await promisify(execFile)(process.execPath, [cliEntry(), 'keys:revoke', '--account', t.account.accountId, '--key', info.id], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATA_DIR: t.dataDir, ...t.dbEnv },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stdout).toMatch(/"revokedAt": "20/);
    expect(await status(key)).toBe(401);
  }, 90_000);

  it('a mark changed elsewhere takes effect at once too', async () => {
    const key = await t.createKey(t.account.accountId, ['messages:write', 'messages:read']);
    const body = { phoneNumber: '+4915112349993', message: 'hello', sendernameId: t.account.senders.sms };
    expect((await t.api('POST', '/api/rcs/send-sms', body, { key })).status).toBe(200);
    await withOtherConnection(t.ctx.config, (other) => other.updateTable('api_keys').set({ sends_need_approval: 1 }).where('permissions', '=', '["messages:write","messages:read"]').execute());
    const r = await t.api('POST', '/api/rcs/send-sms', body, { key });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('APPROVAL_REQUIRED');
  });
});
