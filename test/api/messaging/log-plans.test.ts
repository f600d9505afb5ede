import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteHandle } from '../../../src/platform/db/database.js';
import { onPostgres } from '../../helpers/database.js';
import { phoneLookupsWithoutPhoneIndex, recordStatements } from '../../helpers/query-plans.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { de } from './util.js';

/**
 * The message log filtered by a number reads that number's messages through (account_id, phone,
 * created_at). Ordered by (created_at, id), SQLite without statistics walked (account_id,
 * created_at, id) instead — every message of the account in the range, 750 ms for one number among
 * 300,000 — because that index gives the order without a sort. The pages on both databases; the
 * plans on SQLite (PostgreSQL plans by statistics).
 */
describe('message log by number: paged newest first, read through the index on the number (plans: SQLite)', () => {
  let t: TestServer;
  let acc: TestAccount;
  beforeAll(async () => {
    t = await startTestServer();
    acc = await t.createAccount();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('first page and the next, newest first, through (account_id, phone, created_at)', async () => {
    const phone = de(7100);
    const sent: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      const r = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: phone, message: text, sendernameId: acc.senders.sms }, { key: acc.apiKey });
      expect(r.status).toBe(200);
      sent.push(r.body.messageId);
    }
    expect((await t.api('POST', '/api/rcs/send-sms', { phoneNumber: de(7101), message: 'other', sendernameId: acc.senders.sms }, { key: acc.apiKey })).status).toBe(200);

    const raw = onPostgres ? undefined : sqliteHandle(t.ctx.database);
    const recorder = raw ? recordStatements(raw) : undefined;
    const seen: string[] = [];
    let cursor = '';
    try {
      const first = await t.api('GET', `/api/messages/log?phoneNumber=${encodeURIComponent(phone)}&limit=2`, undefined, { key: acc.apiKey });
      expect(first.status).toBe(200);
      expect(first.body.pagination.hasNext).toBe(true);
      seen.push(...first.body.messages.map((m: { id: string }) => m.id));
      cursor = first.body.pagination.nextCursor;
      const next = await t.api('GET', `/api/messages/log?phoneNumber=${encodeURIComponent(phone)}&limit=2&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, undefined, { key: acc.apiKey });
      expect(next.status).toBe(200);
      expect(next.body.pagination.hasNext).toBe(false);
      seen.push(...next.body.messages.map((m: { id: string }) => m.id));
    } finally {
      recorder?.stop();
    }
    // Same order as without the number: newest first, each message once.
    expect(seen).toEqual([...sent].reverse());
    // Another tenant asking for the same number, even with this tenant's cursor, sees none of it.
    const other = await t.createAccount();
    const theirs = await t.api('GET', `/api/messages/log?phoneNumber=${encodeURIComponent(phone)}&limit=2`, undefined, { key: other.apiKey });
    expect(theirs.status).toBe(200);
    expect(theirs.body.messages).toEqual([]);
    const borrowed = await t.api('GET', `/api/messages/log?phoneNumber=${encodeURIComponent(phone)}&limit=2&cursor=${encodeURIComponent(cursor)}`, undefined, { key: other.apiKey });
    expect(borrowed.status).toBe(200);
    expect(borrowed.body.messages).toEqual([]);
    if (!raw || !recorder) return;
    const byPhone = recorder.statements().filter((s) => s.includes('from "messages"') && s.includes('"phone" = ?'));
    expect(byPhone.length).toBeGreaterThanOrEqual(2);
    expect(phoneLookupsWithoutPhoneIndex(raw, recorder.statements())).toEqual([]);
  });
});
