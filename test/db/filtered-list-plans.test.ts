import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteHandle } from '../../src/platform/db/database.js';
import { onPostgres } from '../helpers/database.js';
import { lookupsWithoutIndexOn, recordStatements } from '../helpers/query-plans.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';

/**
 * Lists filtered by a column with its own index, and ordered by another column for their order or
 * cursor, read through the filter's index (SQLite plans; PostgreSQL plans by statistics). Without
 * `sortKey(…, { afterFilter: true })`, SQLite walked an index that gives the order over every row of the account or
 * form: the interactions of one number or campaign, the conversation windows of one number, and
 * the newest pending submission of a number when its confirmation link is used
 * (docs/decisions.md, "Session 9"). The message log has its own test (test/api/messaging/log-plans).
 */
describe.skipIf(onPostgres)('lists filtered by an indexed column search that index (SQLite plans)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  const recording = async (work: () => Promise<unknown>) => {
    const raw = sqliteHandle(t.ctx.database);
    const recorder = recordStatements(raw);
    try {
      await work();
    } finally {
      recorder.stop();
    }
    return { raw, statements: recorder.statements() };
  };

  it('interactions by number and by campaign', async () => {
    const { raw, statements } = await recording(async () => {
      await t.ctx.services.interactions.list(t.account.accountId, { phone: '+4915123456789' });
      await t.ctx.services.interactions.list(t.account.accountId, { campaign: 'spring' });
    });
    expect(statements.filter((s) => s.includes('from "interactions"')).length).toBeGreaterThanOrEqual(2);
    expect(lookupsWithoutIndexOn(raw, statements, 'interactions', 'phone')).toEqual([]);
    expect(lookupsWithoutIndexOn(raw, statements, 'interactions', 'campaign_name')).toEqual([]);
  });

  it('conversation windows of one number', async () => {
    const { raw, statements } = await recording(() => t.ctx.services.conversations.list(t.account.accountId, { phoneNumber: '+4915123456789' }));
    expect(statements.filter((s) => s.includes('from "conversations"') && s.includes('order by')).length).toBe(1);
    expect(lookupsWithoutIndexOn(raw, statements, 'conversations', 'phone')).toEqual([]);
  });

  it('a confirmation link: the number\'s newest pending submission through (form_id, phone, submitted_at)', async () => {
    const form = await t.api('POST', '/api/v1/forms', { name: 'Plans', fields: { firstName: 'optional' }, confirmation: { sendernameId: t.account.senders.sms } });
    expect(form.status).toBe(201);
    const me = '+4915130099990';
    const client = new WebClient(t.url);
    const page = await client.get(`/f/${form.body.data.slug}`);
    expect((await client.post(`/f/${form.body.data.slug}`, { csrf: WebClient.hidden(page.text, 'csrf'), phone: me, firstName: 'Ada' })).status).toBe(303);
    const view = await t.ctx.services.virtualPhone!.view(t.account.accountId, me);
    const text = view.threads.flatMap((th) => th.items).flatMap((i) => (i.kind === 'out' && i.text !== null ? [i.text] : []))[0] ?? '';
    const link = /https?:\/\/\S+\/f\/confirm\/[A-Za-z0-9_-]+/.exec(text)?.[0];
    expect(link).toBeDefined();
    const confirmPath = new URL(link!).pathname;
    const confirmPage = await client.get(confirmPath);
    const { raw, statements } = await recording(async () => {
      const done = await client.post(confirmPath, { csrf: WebClient.hidden(confirmPage.text, 'csrf') });
      expect(done.text).toContain('Subscription confirmed');
    });
    expect(statements.filter((s) => s.includes('from "form_submissions"') && s.includes('"phone" = ?')).length).toBeGreaterThanOrEqual(1);
    expect(lookupsWithoutIndexOn(raw, statements, 'form_submissions', 'phone')).toEqual([]);
  });
});
