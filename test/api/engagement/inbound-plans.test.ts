import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SenderDirectory } from '../../../src/carriers/sender-config.js';
import { sqliteHandle } from '../../../src/platform/db/database.js';
import { onPostgres } from '../../helpers/database.js';
import { phoneLookupsWithoutPhoneIndex, recordStatements } from '../../helpers/query-plans.js';
import { num, startEngagementServer, type EngagementServer } from './helpers.js';

/**
 * Incoming messages look up our earlier messages to the same number (which one a reply answers,
 * which sender a person is talking to). Those look-ups must go through the number: a bench of
 * incoming SMS slowed from 1,533 to 208 messages/s as 14,000 rows accumulated, because SQLite
 * walked every message the account sent in the reply window. SQLite's plans (PostgreSQL plans by
 * statistics; the same statements give it the same index to use).
 */
describe.skipIf(onPostgres)('incoming messages: look-ups by number use an index on the number (SQLite plans)', () => {
  let t: EngagementServer;
  beforeAll(async () => {
    t = await startEngagementServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a reply, and the sender a person talks to, are found through (account_id, phone, created_at)', async () => {
    const to = num(900);
    expect((await t.send(to)).status).toBe(200);
    const raw = sqliteHandle(t.ctx.database);
    const recorder = recordStatements(raw);
    try {
      await t.reply(to, t.convSender, 'Which sizes do you have?');
      await t.reply(to, t.account.senders.sms, 'And the price?', 'SMS');
      const directory = new SenderDirectory(t.ctx.db);
      const mine = (await directory.all()).filter((s) => s.accountId === t.account.accountId);
      expect(mine.length).toBeGreaterThan(1);
      expect((await directory.attribute(mine, to.slice(1)))?.id).toBe(t.convSender);
    } finally {
      recorder.stop();
    }
    const byPhone = recorder.statements().filter((s) => s.includes('from "messages"') && s.includes('"phone" = ?'));
    expect(byPhone.length).toBeGreaterThanOrEqual(2);
    expect(phoneLookupsWithoutPhoneIndex(raw, recorder.statements())).toEqual([]);
  });
});
