import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import { ALL_PERMISSIONS, DEFAULT_PERMISSIONS } from '../../src/platform/permissions.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { decideOnSharePage, oauthToken } from './approval/helpers.js';
import { body as toolBody, mcpClient } from '../mcp/helpers.js';

/**
 * Budgets per credential (issue #29, #42) on REST and MCP, on the database TEST_DATABASE names: credits per day of
 * the account's time zone (the test account's is Europe/Berlin, UTC+1 in November) and recipients per send, refused
 * with 403 BUDGET_EXCEEDED naming the limit, what is left and when it resets — at preview (nothing is stored), at
 * approval (an approved preview holds its credits until it is sent, rejected or expires) and again at send (nothing
 * is sent or charged) — and reset at the account's midnight by the test clock. A German SMS costs 0.085 credits, a
 * German RCS message 0.035.
 */
const DAY = 86_400_000;
const clock = new FakeClock(Date.UTC(2026, 10, 22, 21, 0, 0));
/** 00:00 on 23 November in Berlin. */
const midnight = Date.UTC(2026, 10, 22, 23);
/** The next midnight in Berlin after `ms`. */
const berlinMidnight = (ms: number) => DateTime.fromMillis(ms, { zone: 'Europe/Berlin' }).startOf('day').plus({ days: 1 }).toMillis();
let t: TestServer;
let phone = 0;
const nextPhone = () => `+4915140${String(++phone).padStart(6, '0')}`;
const sms = (extra: Record<string, unknown> = {}) => ({ phoneNumber: nextPhone(), message: 'Your table is ready', sendernameId: t.account.senders.sms, ...extra });
const rcsBatch = (n: number) => ({ phoneNumbers: Array.from({ length: n }, () => nextPhone()), messageType: 'text', content: { text: 'Doors open at 8' }, sendernameId: t.account.senders.rcs });
const messageCount = async () => Number((await t.ctx.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', t.account.accountId).executeTakeFirstOrThrow()).n);
const balance = async () => (await t.ctx.db.selectFrom('accounts').select('credits_milli').where('id', '=', t.account.accountId).executeTakeFirstOrThrow()).credits_milli;
const limitKey = async (name: string, limits: { dailyCredits?: number | null; maxRecipients?: number | null }, sendsNeedApproval = false) => {
  const k = await t.ctx.services.apiKeys.create(t.account.accountId, name, ALL_PERMISSIONS, { sendsNeedApproval });
  await t.ctx.services.budgets.setLimits(t.account.accountId, { id: k.info.id, kind: 'key' }, limits);
  return k;
};

/** A person logs in and approves on the share page; returns the answer (303, or the page saying why not). */
async function tryApprove(shareUrl: string) {
  const web = new WebClient(t.url);
  const path = new URL(shareUrl).pathname;
  await web.login(t.account.email, t.account.password, t.account.totpSecret, path, clock.now());
  clock.advance(31_000);
  const page = await web.get(path);
  return web.post(`${path}/approve`, { csrf: WebClient.hidden(page.text, 'csrf'), fingerprint: WebClient.hidden(page.text, 'fingerprint') });
}

beforeAll(async () => {
  t = await startTestServer({ clock });
  // Keys without the approval mark send directly on REST; budgets hold for them too.
  await t.ctx.services.accounts.updateSettings(t.account.accountId, { approvalRequired: false });
});
afterAll(async () => {
  await t?.close();
});

describe('budgets on REST', () => {
  it("credits per day of the account's zone: the send that would pass the budget is refused with what is left and when it resets; the account's midnight resets it", async () => {
    clock.set(midnight - 2 * 3_600_000);
    const k = await limitKey('daily 0.2', { dailyCredits: 0.2 });
    for (let i = 0; i < 2; i++) expect((await t.api('POST', '/api/rcs/send-sms', sms(), { key: k.key })).status).toBe(200);
    const [messages, credits] = [await messageCount(), await balance()];
    const r = await t.api('POST', '/api/rcs/send-sms', sms(), { key: k.key });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      limit: 'dailyCredits',
      dailyCredits: 0.2,
      creditsUsedToday: 0.17,
      creditsLeftToday: 0.03,
      creditsRequired: 0.085,
      resetsAt: '2026-11-22T23:00:00.000Z',
      credential: 'key "daily 0.2"',
    });
    expect(r.body.error.message).toContain('0.03 of its 0.2 credits per day left');
    expect(r.body.error.nextStep).toMatch(/wait for the reset|raise the limit/);
    expect([await messageCount(), await balance()]).toEqual([messages, credits]);

    // The last millisecond of the account's day is still the same day; its midnight (23:00 UTC) is a new budget.
    clock.set(midnight - 1);
    expect((await t.api('POST', '/api/rcs/send-sms', sms(), { key: k.key })).status).toBe(403);
    clock.set(midnight);
    expect((await t.api('POST', '/api/rcs/send-sms', sms(), { key: k.key })).status).toBe(200);
    const status = await t.ctx.services.budgets.status(t.account.accountId, k.info.id);
    expect(status).toMatchObject({ dailyCredits: 0.2, creditsUsedToday: 0.085, messagesToday: 1, creditsLeftToday: 0.115, resetsAt: '2026-11-23T23:00:00.000Z' });
    const days = await t.ctx.services.budgets.daily(t.account.accountId, k.info.id, 30);
    expect(days).toHaveLength(30);
    expect(days.slice(-2)).toEqual([
      { day: '2026-11-22', spent: 0.17, messages: { ACCEPTED: 2 } },
      { day: '2026-11-23', spent: 0.085, messages: { ACCEPTED: 1 } },
    ]);
  });

  it("another zone's day: Los Angeles resets at its own midnight, across the end of summer time", async () => {
    const la = await t.createAccount();
    await t.ctx.services.accounts.updateSettings(la.accountId, { timezone: 'America/Los_Angeles', approvalRequired: false });
    const k = await t.ctx.services.apiKeys.create(la.accountId, 'la key', ALL_PERMISSIONS);
    await t.ctx.services.budgets.setLimits(la.accountId, { id: k.info.id, kind: 'key' }, { dailyCredits: 0.1 });
    const saved = clock.now();
    try {
      // 31 October 2026, 20:00 in Los Angeles (PDT, UTC−7); summer time ends the next night.
      clock.set(Date.UTC(2026, 10, 1, 3));
      const send = () => t.api('POST', '/api/rcs/send-sms', { phoneNumber: nextPhone(), message: 'Hi', sendernameId: la.senders.sms }, { key: k.key });
      expect((await send()).status).toBe(200);
      const refused = await send();
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', resetsAt: '2026-11-01T07:00:00.000Z' });
      // 00:00 UTC (17:00 there) is the same day in Los Angeles.
      clock.set(Date.UTC(2026, 10, 1, 6, 59, 59, 999));
      expect((await send()).status).toBe(403);
      clock.set(Date.UTC(2026, 10, 1, 7));
      expect((await send()).status).toBe(200);
      // The day after the change has 25 hours: the next reset is 08:00 UTC (PST, UTC−8).
      expect((await t.ctx.services.budgets.status(la.accountId, k.info.id)).resetsAt).toBe('2026-11-02T08:00:00.000Z');
    } finally {
      clock.set(saved);
    }
  });

  it('a send costing more than the whole budget is refused even on a fresh day, and another key is not held back', async () => {
    clock.advance(DAY);
    const k = await limitKey('tiny', { dailyCredits: 0.05 });
    const r = await t.api('POST', '/api/rcs/send-sms', sms(), { key: k.key });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', creditsUsedToday: 0, creditsLeftToday: 0.05, creditsRequired: 0.085 });
    // RCS costs 0.035: it fits.
    expect((await t.api('POST', '/api/rcs/send', { phoneNumber: nextPhone(), messageType: 'text', content: { text: 'Hi' }, sendernameId: t.account.senders.rcs }, { key: k.key })).status).toBe(200);
    expect((await t.api('POST', '/api/rcs/send-sms', sms())).status).toBe(200);
  });

  it('a limit of 0 credits still lets free test traffic through', async () => {
    const k = await limitKey('zero', { dailyCredits: 0 });
    const test = await t.api('POST', '/api/rcs/send', { phoneNumber: '+4915550000001', messageType: 'text', content: { text: 'test' }, sendernameId: t.account.senders.rcsTest }, { key: k.key });
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    expect((await t.api('POST', '/api/rcs/send-sms', sms(), { key: k.key })).body.error.code).toBe('BUDGET_EXCEEDED');
  });

  it('recipients per send: a batch over the limit is refused before anything is written; at the limit it goes', async () => {
    const k = await limitKey('max 2', { maxRecipients: 2 });
    const before = await messageCount();
    const r = await t.api('POST', '/api/rcs/send-batch', rcsBatch(3), { key: k.key });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', limit: 'maxRecipients', maxRecipients: 2, recipients: 3 });
    expect(r.body.error.nextStep).toContain('at most 2');
    expect(await messageCount()).toBe(before);
    const ok = await t.api('POST', '/api/rcs/send-batch', rcsBatch(2), { key: k.key });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
    expect(await messageCount()).toBe(before + 2);
  });

  it('the REST preview flow: a preview over the budget is refused and not stored; an approved preview is checked again at send and sent after the reset', async () => {
    // An hour before the reset, so that the approved preview has not expired when the budget resets.
    clock.set(berlinMidnight(berlinMidnight(clock.now())) - 3_600_000);
    const k = await limitKey('assistant key', { dailyCredits: 0.1, maxRecipients: 1 }, true);
    const previews = async () => (await t.ctx.db.selectFrom('previews').select('id').where('account_id', '=', t.account.accountId).execute()).length;
    const stored = await previews();
    const batch = await t.api('POST', '/api/rcs/previews/send-batch', rcsBatch(2), { key: k.key });
    expect(batch.status).toBe(403);
    expect(batch.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', limit: 'maxRecipients' });
    const twoSegments = await t.api('POST', '/api/rcs/previews/send-sms', sms({ message: 'x'.repeat(200) }), { key: k.key });
    expect(twoSegments.status).toBe(403);
    expect(twoSegments.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', limit: 'dailyCredits', creditsRequired: 0.17 });
    expect(await previews()).toBe(stored);

    // Two previews that each fit; the first approval holds its credits, so the second cannot be approved: the
    // share page says why and leaves it waiting.
    const p1 = (await t.api('POST', '/api/rcs/previews/send-sms', sms(), { key: k.key })).body.data;
    const p2 = (await t.api('POST', '/api/rcs/previews/send-sms', sms(), { key: k.key })).body.data;
    expect([p1.status, p2.status]).toEqual(['pending', 'pending']);
    await decideOnSharePage(t, t.account, p1.share_url, clock.now());
    clock.advance(31_000);
    expect(await t.ctx.services.budgets.status(t.account.accountId, k.info.id)).toMatchObject({ creditsUsedToday: 0, creditsHeld: 0.085, creditsLeftToday: 0.015 });
    const refusedApproval = await tryApprove(p2.share_url);
    expect(refusedApproval.status).toBe(403);
    expect(refusedApproval.text).toContain('0.085 of them held by approved previews not sent yet');
    expect(refusedApproval.text).toContain('nothing was approved');
    expect((await t.api('GET', `/api/rcs/previews/${p2.preview_id}`, undefined, { key: k.key })).body.data.status).toBe('pending');
    // A new preview counts the hold too.
    const third = await t.api('POST', '/api/rcs/previews/send-sms', sms(), { key: k.key });
    expect(third.status).toBe(403);
    expect(third.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', creditsUsedToday: 0, creditsHeld: 0.085, creditsLeftToday: 0.015 });

    // The send turns the hold into the charge, once.
    expect((await t.api('POST', `/api/rcs/previews/${p1.preview_id}/send`, undefined, { key: k.key })).status).toBe(200);
    expect(await t.ctx.services.budgets.status(t.account.accountId, k.info.id)).toMatchObject({ creditsUsedToday: 0.085, creditsHeld: 0, creditsLeftToday: 0.015 });
    expect((await tryApprove(p2.share_url)).status).toBe(403);

    // After the reset the second can be approved; a rejection gives its hold back; approved again, it is sent.
    clock.set(berlinMidnight(clock.now()) + 60_000);
    await decideOnSharePage(t, t.account, p2.share_url, clock.now());
    clock.advance(31_000);
    expect((await t.ctx.services.budgets.status(t.account.accountId, k.info.id)).creditsHeld).toBe(0.085);
    await decideOnSharePage(t, t.account, p2.share_url, clock.now(), 'reject');
    clock.advance(31_000);
    expect((await t.ctx.services.budgets.status(t.account.accountId, k.info.id)).creditsHeld).toBe(0);
    await decideOnSharePage(t, t.account, p2.share_url, clock.now());
    clock.advance(31_000);
    const before = await messageCount();
    const sent = await t.api('POST', `/api/rcs/previews/${p2.preview_id}/send`, undefined, { key: k.key });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(await messageCount()).toBe(before + 1);
    expect(await t.ctx.services.budgets.status(t.account.accountId, k.info.id)).toMatchObject({ creditsUsedToday: 0.085, creditsHeld: 0 });

    // An approved preview that expires unsent holds nothing any more (the next day: this one's budget is used).
    clock.set(berlinMidnight(clock.now()) + 60_000);
    const p4 = (await t.api('POST', '/api/rcs/previews/send-sms', sms(), { key: k.key })).body.data;
    await decideOnSharePage(t, t.account, p4.share_url, clock.now());
    clock.advance(31_000);
    expect((await t.ctx.services.budgets.status(t.account.accountId, k.info.id)).creditsHeld).toBe(0.085);
    clock.set(Date.parse(p4.expires_at));
    expect((await t.ctx.services.budgets.status(t.account.accountId, k.info.id)).creditsHeld).toBe(0);
    await t.ctx.services.previews.noticeExpired();
    expect(await t.ctx.db.selectFrom('budget_holds').select('preview_id').where('preview_id', '=', p4.preview_id).execute()).toEqual([]);
  });

  it('limits are set only on the account\'s own credentials; bad values are refused', async () => {
    const other = await t.createAccount();
    const foreign = await t.ctx.services.apiKeys.create(other.accountId, 'theirs', DEFAULT_PERMISSIONS);
    await expect(t.ctx.services.budgets.setLimits(t.account.accountId, { id: foreign.info.id, kind: 'key' }, { dailyCredits: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(t.ctx.services.budgets.setLimits(t.account.accountId, { id: 'cli_nobody', kind: 'app' }, { dailyCredits: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const mine = await t.ctx.services.apiKeys.create(t.account.accountId, 'mine', DEFAULT_PERMISSIONS);
    for (const bad of [{ dailyCredits: -1 }, { dailyCredits: Number.NaN }, { dailyCredits: 0.0001 }, { maxRecipients: 0 }, { maxRecipients: 1.5 }, { maxRecipients: 10_001 }]) {
      await expect(t.ctx.services.budgets.setLimits(t.account.accountId, { id: mine.info.id, kind: 'key' }, bad)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    // Clearing both removes the row; the other tenant's sends are untouched by this account's limits.
    await t.ctx.services.budgets.setLimits(t.account.accountId, { id: mine.info.id, kind: 'key' }, { dailyCredits: 1 });
    await t.ctx.services.budgets.setLimits(t.account.accountId, { id: mine.info.id, kind: 'key' }, { dailyCredits: null });
    expect((await t.ctx.services.budgets.limits(t.account.accountId)).has(mine.info.id)).toBe(false);
  });
});

describe('budgets on MCP', () => {
  let app: Client;
  let keyClient: Client;
  let clientId: string;
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args });
    return { isError: Boolean(r.isError), body: toolBody(r) };
  };

  beforeAll(async () => {
    const token = await oauthToken(t, t.account, clock, 'messages:read messages:write');
    clock.advance(31_000);
    app = await mcpClient(t.url, token, '', 'bearer');
    clientId = (await t.ctx.db.selectFrom('oauth_tokens').select('client_id').where('account_id', '=', t.account.accountId).executeTakeFirstOrThrow()).client_id;
    const k = await limitKey('mcp key', { maxRecipients: 1 }, true);
    keyClient = await mcpClient(t.url, k.key);
  });
  afterAll(async () => {
    await app?.close();
    await keyClient?.close();
  });

  it('rcs_preview of a batch over the recipient limit is a tool error with a next step (API key)', async () => {
    const r = await call(keyClient, 'rcs_preview', rcsBatch(2));
    expect(r.isError).toBe(true);
    expect(r.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', limit: 'maxRecipients', maxRecipients: 1, recipients: 2 });
    expect(r.body.error.nextStep).toContain('at most 1');
  });

  it("a connected app's daily credits: sms_preview and the send are refused once the budget is used; the share page shows the use", async () => {
    clock.set(berlinMidnight(clock.now()) + 3_600_000);
    await t.ctx.services.budgets.setLimits(t.account.accountId, { id: clientId, kind: 'app' }, { dailyCredits: 0.1 });
    const p1 = await call(app, 'sms_preview', sms());
    const p2 = await call(app, 'sms_preview', sms());
    expect([p1.isError, p2.isError]).toEqual([false, false]);
    await decideOnSharePage(t, t.account, p1.body.share_url, clock.now());
    clock.advance(31_000);
    // The first approval holds 0.085 of the 0.1: the second preview cannot be approved.
    expect((await tryApprove(p2.body.share_url)).status).toBe(403);
    expect((await call(app, 'sms_send', { preview_id: p1.body.preview_id })).isError).toBe(false);

    // The share page of the second preview says how much of the budget is used and that this send would pass it.
    const web = new WebClient(t.url);
    const path = new URL(p2.body.share_url).pathname;
    await web.login(t.account.email, t.account.password, t.account.totpSecret, path, clock.now());
    clock.advance(31_000);
    const page = await web.get(path);
    expect(page.text).toMatch(/data-testid="budget"[^>]*>This assistant \(app &quot;[^<]*&quot;\) has used 0.085 of 0.1 credits today; this send would pass the limit/);

    // Not approved, so not sent.
    expect((await call(app, 'sms_send', { preview_id: p2.body.preview_id })).isError).toBe(true);
    const preview = await call(app, 'sms_preview', sms());
    expect(preview.isError).toBe(true);
    expect(preview.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', limit: 'dailyCredits', creditsLeftToday: 0.015, resetsAt: expect.stringMatching(/T23:00:00\.000Z$/) });
    expect(preview.body.error.nextStep).toBeTruthy();

    // An API key of the same account is another credential with its own (unlimited) budget.
    expect((await t.api('POST', '/api/rcs/send-sms', sms())).status).toBe(200);
  });
});
