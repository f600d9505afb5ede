import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, mcpClient } from '../mcp/helpers.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { creditsOf, de, rcsText, waitForStatus } from '../api/messaging/util.js';
import { expectLedgerBalanced } from './invariant.js';

/**
 * The credit ledger through its doors (issue #18): what sends, the dispatcher, cancels and
 * operators write, and GET /credits, GET /credits/ledger and rcs_limits reading it back.
 */
let t: TestServer;
let acc: TestAccount;
let other: TestAccount;
let n = 0;
const fresh = (last4 = '0001') => de(7000 + ++n, last4);
const ledger = (query = '', key?: string) => t.api('GET', `/api/rcs/credits/ledger${query}`, undefined, key ? { key } : { key: acc.apiKey });

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount();
  other = await t.createAccount();
});
afterAll(async () => t?.close());

describe('what each change of a balance writes', () => {
  it('a new account starts with a top-up entry of its credits', async () => {
    const r = await ledger();
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(1);
    expect(r.body.data[0]).toMatchObject({ kind: 'topup', amount: 1000, messageId: null, jobId: null });
    expect((await t.api('GET', '/api/rcs/credits', undefined, { key: acc.apiKey })).body).toMatchObject({ success: true, accountId: acc.accountId, credits: 1000 });
  });

  it('a single send: one debit naming the message', async () => {
    const r = await t.api('POST', '/api/rcs/send', rcsText(acc, fresh(), 'Hello'), { key: acc.apiKey });
    expect(r.status).toBe(200);
    const id = r.body.messageRecordId as string;
    const entries = (await ledger(`?messageId=${id}`)).body.data;
    // DE: 0.035 per RCS message, 0.085 per SMS segment (src/accounts/default-prices.ts).
    expect(entries).toEqual([expect.objectContaining({ kind: 'debit', amount: -0.035, messageId: id, jobId: null })]);
    expect(await creditsOf(t, acc.accountId)).toBe(999.965);
  });

  it('a failed message: its debit and a refund of the same amount', async () => {
    const r = await t.api('POST', '/api/rcs/send', { ...rcsText(acc, fresh('9992'), 'Nobody home'), smsFallback: { message: 'Nobody', sendernameId: acc.senders.sms } }, { key: acc.apiKey });
    const id = r.body.messageRecordId as string;
    await waitForStatus(t, id, ['FAILED'], acc.apiKey);
    const entries = (await ledger(`?messageId=${id}`)).body.data;
    expect(entries.map((e: any) => [e.kind, e.amount])).toEqual([
      ['refund', 0.035],
      ['debit', -0.035],
    ]);
    expect(entries[0].reason).toMatch(/failed/i);
  });

  it('an SMS fallback: re-priced from the RCS price to the SMS segments', async () => {
    const r = await t.api('POST', '/api/rcs/send', { ...rcsText(acc, fresh('9990'), 'Rich'), smsFallback: { message: 'Plain', sendernameId: acc.senders.sms } }, { key: acc.apiKey });
    const id = r.body.messageRecordId as string;
    await waitForStatus(t, id, ['SENT', 'DELIVERED', 'READ'], acc.apiKey);
    const entries = (await ledger(`?messageId=${id}&kind=reprice`)).body.data;
    expect(entries).toEqual([expect.objectContaining({ kind: 'reprice', amount: -0.05, messageId: id })]);
  });

  it('a test sender to its test phone: free, so no entry at all', async () => {
    const r = await t.api('POST', '/api/rcs/send', { phoneNumber: '+4915550000001', messageType: 'text', content: { text: 'Test' }, sendernameId: acc.senders.rcsTest }, { key: acc.apiKey });
    expect(r.status).toBe(200);
    expect((await ledger(`?messageId=${r.body.messageRecordId}`)).body.data).toEqual([]);
  });

  it('a batch: one debit for the job; filter by job', async () => {
    const phones = [fresh(), fresh(), fresh()];
    const r = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Hi' }, sendernameId: acc.senders.rcs }, { key: acc.apiKey });
    expect(r.status).toBe(202);
    const jobId = r.body.jobId as string;
    const entries = (await ledger(`?jobId=${jobId}`)).body.data;
    expect(entries).toEqual([expect.objectContaining({ kind: 'debit', amount: -0.105, jobId, messageId: null })]);
    expect(entries[0].reason).toContain('3 recipients');
  });

  it('cancelling a scheduled message: a refund entry that stays findable after the record is removed', async () => {
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const r = await t.api('POST', '/api/rcs/send', rcsText(acc, fresh(), 'Later', { scheduleAt: at }), { key: acc.apiKey });
    expect(r.status).toBe(200);
    const id = r.body.messageId as string;
    expect((await t.api('DELETE', `/api/messages/${id}`, undefined, { key: acc.apiKey })).status).toBe(200);
    const entries = (await ledger(`?messageId=${id}`)).body.data;
    expect(entries.map((e: any) => [e.kind, e.amount])).toEqual([
      ['refund', 0.035],
      ['debit', -0.035],
    ]);
  });

  it('an operator sets the balance: an adjustment of the difference with the reason', async () => {
    const before = await creditsOf(t, acc.accountId);
    await t.ctx.services.billing.setCredits(acc.accountId, 500, 'Invoice 42 refunded');
    const [entry] = (await ledger('?kind=adjustment')).body.data;
    expect(entry).toMatchObject({ kind: 'adjustment', reason: 'Invoice 42 refunded' });
    expect(entry.amount).toBeCloseTo(500 - before, 3);
    expect(await creditsOf(t, acc.accountId)).toBe(500);
    await expect(t.ctx.services.billing.setCredits(acc.accountId, 10, '  ')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(t.ctx.services.billing.setCredits(acc.accountId, -1, 'x')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('a send the balance cannot pay writes nothing', async () => {
    await t.ctx.services.billing.setCredits(other.accountId, 0.01, 'Nearly empty');
    const count = (await ledger('', other.apiKey)).body.data.length;
    const r = await t.api('POST', '/api/rcs/send', rcsText(other, fresh(), 'Too dear'), { key: other.apiKey });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INSUFFICIENT_CREDITS');
    expect((await ledger('', other.apiKey)).body.data.length).toBe(count);
    await t.ctx.services.billing.setCredits(other.accountId, 1000, 'Back to normal');
  });

  it('after all of it, every balance is the sum of its ledger', async () => {
    await expectLedgerBalanced(t.ctx.db);
    const b = (await t.api('GET', '/api/rcs/credits', undefined, { key: acc.apiKey })).body;
    expect(b.credits).toBe(await creditsOf(t, acc.accountId));
    // The Credits page's chart: what was spent today is the debits net of refunds and re-pricing.
    const spending = (await ledger('?kind=debit,refund,reprice&limit=200')).body.data.reduce((s: number, e: any) => s - Math.round(e.amount * 1000), 0);
    const days = await t.ctx.services.billing.daily(acc.accountId, 30);
    expect(days).toHaveLength(30);
    expect(Math.round(days.reduce((s, d) => s + d.spent, 0) * 1000)).toBe(spending);
    expect(days.at(-1)!.spent * 1000).toBeCloseTo(spending, 6);
    expect(Object.values(days.at(-1)!.messages).reduce((a, c) => a + c, 0)).toBeGreaterThanOrEqual(6);
  });
});

describe('GET /credits/ledger: paging and filters', () => {
  it('walks newest first with a cursor, each entry once', async () => {
    const all = (await ledger('?limit=200')).body.data;
    expect(all.length).toBeGreaterThan(6);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await ledger(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.pagination.count).toBe(r.body.data.length);
      seen.push(...r.body.data.map((e: any) => e.id));
      cursor = r.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((e: any) => e.id));
    expect([...seen].sort().reverse()).toEqual(seen);
  });

  it('filters by kinds and dates', async () => {
    const kinds = (await ledger('?kind=debit,refund')).body.data.map((e: any) => e.kind);
    expect(new Set(kinds)).toEqual(new Set(['debit', 'refund']));
    expect((await ledger(`?startDate=${new Date(Date.now() + 3_600_000).toISOString()}`)).body.data).toEqual([]);
    expect((await ledger(`?endDate=2000-01-01T00:00:00Z`)).body.data).toEqual([]);
    expect((await ledger(`?startDate=2000-01-01&endDate=${new Date(Date.now() + 60_000).toISOString()}`)).body.data.length).toBeGreaterThan(0);
  });

  it('refuses bad input with a clear 400 and foreign ids with a 404', async () => {
    const cases: Array<[string, number, string]> = [
      ['?cursor=not-a-cursor!', 400, 'INVALID_CURSOR'],
      ['?cursor=eyJrIjoibWVzc2FnZXMifQ', 400, 'INVALID_CURSOR'],
      ['?startDate=yesterday', 400, 'VALIDATION_ERROR'],
      ['?startDate=2026-02-01&endDate=2026-01-01', 400, 'VALIDATION_ERROR'],
      ['?kind=debit,gift', 400, 'VALIDATION_ERROR'],
      ['?limit=0', 400, 'VALIDATION_ERROR'],
      ['?limit=201', 400, 'VALIDATION_ERROR'],
      ['?limit=x', 400, 'VALIDATION_ERROR'],
      ['?colour=blue', 400, 'VALIDATION_ERROR'],
      ['?jobId=nope', 400, 'INVALID_ID'],
      ['?messageId=job_01JABCDEFGHJKMNPQRSTVWXYZ0', 400, 'INVALID_ID'],
      ['?jobId=job_01JABCDEFGHJKMNPQRSTVWXYZ0', 404, 'NOT_FOUND'],
      ['?messageId=msg_01JABCDEFGHJKMNPQRSTVWXYZ0', 404, 'NOT_FOUND'],
    ];
    for (const [q, status, code] of cases) {
      const r = await ledger(q);
      expect([q, r.status, r.body?.error?.code]).toEqual([q, status, code]);
    }
    const bad = await ledger('?kind=gift');
    expect(bad.body.error.details[0]).toMatchObject({ path: 'kind', code: 'invalid_enum' });
  });

  it("another account's job or message is a 404, and its entries never show", async () => {
    const r = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: [fresh(), fresh()], messageType: 'text', content: { text: 'Theirs' }, sendernameId: other.senders.rcs }, { key: other.apiKey });
    const jobId = r.body.jobId as string;
    const m = await t.api('POST', '/api/rcs/send', rcsText(other, fresh(), 'Theirs too'), { key: other.apiKey });
    expect((await ledger(`?jobId=${jobId}`)).status).toBe(404);
    expect((await ledger(`?messageId=${m.body.messageRecordId}`)).status).toBe(404);
    expect((await ledger(`?jobId=${jobId}`, other.apiKey)).body.data).toHaveLength(1);
    const mine = (await ledger('?limit=200')).body.data;
    expect(mine.some((e: any) => e.jobId === jobId || e.messageId === m.body.messageRecordId)).toBe(false);
  });

  it('needs messages:read', async () => {
    const key = await t.createKey(acc.accountId, ['contacts:read']);
    expect((await t.api('GET', '/api/rcs/credits', undefined, { key })).status).toBe(403);
    expect((await ledger('', key)).status).toBe(403);
    expect((await t.api('GET', '/api/rcs/credits', undefined, { key: null })).status).toBe(401);
  });

  it('is in OpenAPI with explicit operationIds', async () => {
    const doc = (await t.api('GET', '/openapi.json', undefined, { key: null })).body;
    expect(doc.paths['/api/rcs/credits'].get.operationId).toBe('getCreditBalance');
    expect(doc.paths['/api/rcs/credits/ledger'].get.operationId).toBe('listCreditLedger');
  });
});

describe('rcs_limits: the balance and the ledger for assistants', () => {
  it('returns the balance and the newest entries, and pages and filters with `ledger`', async () => {
    const client = await mcpClient(t.url, acc.apiKey);
    try {
      const plain = body(await client.callTool({ name: 'rcs_limits', arguments: {} }));
      expect(plain.credits.balance).toBe(await creditsOf(t, acc.accountId));
      const rest = (await ledger('?limit=10')).body;
      expect(plain.credits.ledger.data.map((e: any) => e.id)).toEqual(rest.data.map((e: any) => e.id));
      expect(plain.credits.ledger.data).toHaveLength(10);
      expect(plain.sms.maxLength).toBeGreaterThan(0);
      const debits = body(await client.callTool({ name: 'rcs_limits', arguments: { ledger: { kind: 'debit', limit: 2 } } }));
      expect(debits.credits.ledger.data.map((e: any) => e.kind)).toEqual(['debit', 'debit']);
      const next = body(await client.callTool({ name: 'rcs_limits', arguments: { ledger: { kind: 'debit', limit: 2, cursor: debits.credits.ledger.pagination.nextCursor } } }));
      expect(next.credits.ledger.data[0].id < debits.credits.ledger.data[1].id).toBe(true);
      const wrong = await client.callTool({ name: 'rcs_limits', arguments: { ledger: { kind: 'gift' } } });
      expect(wrong.isError).toBe(true);
      expect(body(wrong).code ?? body(wrong).error?.code).toBe('VALIDATION_ERROR');
    } finally {
      await client.close();
    }
  });

  it('without messages:read: the limits without credits, and the ledger refused', async () => {
    const key = await t.createKey(acc.accountId, ['contacts:read']);
    const client = await mcpClient(t.url, key);
    try {
      const plain = body(await client.callTool({ name: 'rcs_limits', arguments: {} }));
      expect(plain.credits).toBeUndefined();
      expect(plain.sms.maxLength).toBeGreaterThan(0);
      const refused = await client.callTool({ name: 'rcs_limits', arguments: { ledger: {} } });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
