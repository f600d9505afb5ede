import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from '../../src/platform/permissions.js';
import { describePostgres, startInstances, type Instances } from '../helpers/instances.js';
import type { TestServer } from '../helpers/server.js';

/*
 * Issue #29: a credential's daily budget holds across instances. Two servers on one PostgreSQL database, one key
 * with 0.33 credits left of its budget, 20 SMS sends (0.085 credits each) fired at once, alternating between the
 * instances: exactly 3 pass (0.255), the other 17 are 403 BUDGET_EXCEEDED, and the day's counter, the ledger's
 * debits and the messages all say the same. With a read-then-write check two transactions could both see the last
 * credits free and pass together.
 */
let inst: Instances;
let a: TestServer;
let b: TestServer;

describePostgres('a credential budget across two instances on one PostgreSQL database', () => {
  beforeAll(async () => {
    inst = await startInstances(2);
    [a, b] = inst.all as [TestServer, TestServer];
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('20 concurrent sends against the last credits of a budget spend at most the budget', async () => {
    const accountId = a.account.accountId;
    const k = await a.ctx.services.apiKeys.create(accountId, 'budgeted', ALL_PERMISSIONS);
    await a.ctx.services.budgets.setLimits(accountId, { id: k.info.id, kind: 'key' }, { dailyCredits: 0.5 });
    // A two-segment SMS (0.17) first: 0.33 of the 0.5 is left, enough for three more (0.255) but not four (0.34).
    const warmUp = await a.api('POST', '/api/rcs/send-sms', { phoneNumber: '+4915150000001', message: 'x'.repeat(200), sendernameId: a.account.senders.sms }, { key: k.key });
    expect(warmUp.status, JSON.stringify(warmUp.body)).toBe(200);
    const used = await a.ctx.services.budgets.status(accountId, k.info.id);
    expect(used.creditsLeftToday).toBe(0.33);

    const n = 20;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        (i % 2 === 0 ? a : b).api('POST', '/api/rcs/send-sms', { phoneNumber: `+49151500${String(100 + i).padStart(5, '0')}`, message: `Last credits ${i}`, sendernameId: a.account.senders.sms }, { key: k.key }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 403);
    expect(ok.length + refused.length, JSON.stringify(results.filter((r) => r.status !== 200 && r.status !== 403).map((r) => r.body))).toBe(n);
    expect(ok).toHaveLength(3);
    expect(refused.every((r) => r.body.error.code === 'BUDGET_EXCEEDED' && r.body.error.limit === 'dailyCredits')).toBe(true);

    const after = await b.ctx.services.budgets.status(accountId, k.info.id);
    expect(after.creditsUsedToday).toBe(0.425);
    expect(after.creditsUsedToday).toBeLessThanOrEqual(0.5);
    expect(after.messagesToday).toBe(4);
    // What the counter says is what the ledger debited and what the messages cost.
    const messageIds = [warmUp.body.messageId as string, ...ok.map((r) => r.body.messageId as string)];
    const debits = await a.ctx.db.selectFrom('credit_ledger').select('amount_milli').where('account_id', '=', accountId).where('kind', '=', 'debit').where('message_id', 'in', messageIds).execute();
    expect(debits.reduce((s, d) => s - Number(d.amount_milli), 0)).toBe(425);
    const rows = await a.ctx.db.selectFrom('messages').select('credits_cost_milli').where('id', 'in', messageIds).execute();
    expect(rows.reduce((s, r) => s + Number(r.credits_cost_milli), 0)).toBe(425);
  });

  it('approvals racing on both instances hold at most the budget: the rest are refused, nothing is approved twice', async () => {
    const accountId = a.account.accountId;
    const k = await a.ctx.services.apiKeys.create(accountId, 'assistant', ALL_PERMISSIONS, { sendsNeedApproval: true });
    await a.ctx.services.budgets.setLimits(accountId, { id: k.info.id, kind: 'key' }, { dailyCredits: 0.3 });
    // Eight previews of one SMS each (0.085): all fit alone, three fit together (0.255), four do not (0.34).
    const previews = [];
    for (let i = 0; i < 8; i++) {
      const r = await a.api('POST', '/api/rcs/previews/send-sms', { phoneNumber: `+49151510${String(i).padStart(5, '0')}`, message: `Hold ${i}`, sendernameId: a.account.senders.sms }, { key: k.key });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      previews.push(r.body.data as { preview_id: string; share_url: string });
    }
    const user = await a.ctx.db.selectFrom('users').select(['id', 'email']).where('account_id', '=', accountId).executeTakeFirstOrThrow();
    const decisions = await Promise.allSettled(
      previews.map(async (p, i) => {
        const server = i % 2 === 0 ? a : b;
        const slug = new URL(p.share_url).pathname.split('/').pop()!;
        const row = await server.ctx.db.selectFrom('previews').selectAll().where('id', '=', p.preview_id).executeTakeFirstOrThrow();
        return server.ctx.services.previews.decide(accountId, slug, 'approved', { userId: user.id, email: user.email, sessionIdHash: 'race', clientIp: null, userAgent: null, shown: server.ctx.services.previews.shownFingerprint(row) });
      }),
    );
    const approved = decisions.filter((d) => d.status === 'fulfilled');
    const refused = decisions.filter((d): d is PromiseRejectedResult => d.status === 'rejected');
    expect(approved).toHaveLength(3);
    expect(refused.map((r) => (r.reason as { code?: string }).code)).toEqual(Array(5).fill('BUDGET_EXCEEDED'));
    const status = await b.ctx.services.budgets.status(accountId, k.info.id);
    expect(status).toMatchObject({ creditsUsedToday: 0, creditsHeld: 0.255, creditsLeftToday: 0.045 });
    const rows = await a.ctx.db.selectFrom('previews').select('status').where('id', 'in', previews.map((p) => p.preview_id)).execute();
    expect(rows.filter((r) => r.status === 'approved')).toHaveLength(3);
  });
});
