import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { ALL_PERMISSIONS } from '../../../src/platform/permissions.js';
import { APPROVALS_CSV_COLUMNS } from '../../../src/previews/audit.js';
import { PREVIEW_TTL_MS } from '../../../src/previews/service.js';
import type { TestAccount, TestServer } from '../../helpers/server.js';
import { WebClient } from '../../helpers/web-client.js';
import { createHook, startReceiver, startWebhookServer, verifyWebhook, type Received, type Receiver } from '../webhooks/helpers.js';
import { settled } from '../../helpers/settled.js';

/**
 * Issue #29: the approvals inbox (REST, console), the preview.* webhook events, and the audit trail
 * of approvals and rejections (share page, message log, CSV), per tenant and unchangeable.
 */
const clock = new FakeClock(Date.now());
let t: TestServer;
let rx: Receiver;
let secret: string;
/** An assistant's key: its previews wait for a person. */
let boundKey: string;
let boundKeyId: string;
let web: WebClient;
let other: TestAccount;
let otherKey: string;

let seq = 0;
const phone = () => `+49151124${41000 + ++seq}`;
const preview = async (over: Record<string, unknown> = {}, key = boundKey) => {
  const r = await t.api('POST', '/api/rcs/previews/send', { phoneNumber: phone(), messageType: 'text', content: { text: 'Your table is ready' }, sendernameId: t.account.senders.rcs, ...over }, { key });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { preview_id: string; share_url: string };
};
const previewBatch = async (n: number) => {
  const r = await t.api('POST', '/api/rcs/previews/send-batch', { phoneNumbers: Array.from({ length: n }, phone), messageType: 'text', content: { text: 'Doors open at 9' }, sendernameId: t.account.senders.rcs, campaignName: 'doors' }, { key: boundKey });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { preview_id: string; share_url: string };
};

/** Opens the share page in the logged-in session and posts the decision with the page's own hidden fields. */
async function decide(shareUrl: string, decision: 'approve' | 'reject', override: Record<string, string> = {}) {
  const path = new URL(shareUrl).pathname;
  const page = await web.get(path);
  expect(page.status).toBe(200);
  return web.post(`${path}/${decision}`, { csrf: WebClient.hidden(page.text, 'csrf'), fingerprint: WebClient.hidden(page.text, 'fingerprint'), ...override });
}

const eventsOf = (type: string, previewId: string) => rx.events(type, (r: Received) => r.json.preview?.previewId === previewId);
// Signed with the server's (fake) clock.
const verified = (r: Received) => verifyWebhook(r.raw, r.headers['x-rcs-signature'], secret, 300, Math.floor(clock.now() / 1000));
const UA = 'InboxTest/1.0 (=cmd)';
async function login(): Promise<WebClient> {
  const w = new WebClient(t.url);
  w.headers['User-Agent'] = UA;
  const done = await w.login(t.account.email, t.account.password, t.account.totpSecret, '/console', clock.now());
  expect(done.status).toBe(303);
  return w;
}
const records = async (previewId: string) => t.ctx.db.selectFrom('preview_approvals').selectAll().where('preview_id', '=', previewId).orderBy('decided_at').execute();

beforeAll(async () => {
  t = await startWebhookServer({ clock });
  rx = await startReceiver();
  ({ secret } = await createHook(t, `${rx.url}/previews`, ['preview.created', 'preview.approved', 'preview.rejected', 'preview.expired']));
  const created = await t.ctx.services.apiKeys.create(t.account.accountId, 'Assistant', ALL_PERMISSIONS, { sendsNeedApproval: true });
  boundKey = created.key;
  boundKeyId = created.info.id;
  web = await login();
  other = await t.createAccount({ name: 'Other Co' });
  otherKey = other.apiKey;
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

describe('webhook events', () => {
  it('preview.created, preview.approved and preview.rejected arrive signed, with the credential, counts, cost, share URL and who decided', async () => {
    const p = await previewBatch(3);
    await rx.waitFor(() => eventsOf('preview.created', p.preview_id).length === 1, 10_000, 'preview.created');
    const c = eventsOf('preview.created', p.preview_id)[0]!;
    expect(verified(c)).toBe(true);
    expect(c.headers['x-rcs-event']).toBe('preview.created');
    expect(c.json.preview).toMatchObject({ previewId: p.preview_id, kind: 'rcs_batch', channel: 'RCS', status: 'pending', approvalRequired: true, recipients: 3, shareUrl: p.share_url, campaignName: 'doors', credential: { id: boundKeyId, label: 'key "Assistant"' } });
    expect(c.json.preview.creditsEstimated).toBeGreaterThan(0);
    expect(c.json.decision).toBeUndefined();

    expect((await decide(p.share_url, 'approve')).status).toBe(303);
    await rx.waitFor(() => eventsOf('preview.approved', p.preview_id).length === 1, 10_000, 'preview.approved');
    const a = eventsOf('preview.approved', p.preview_id)[0]!;
    expect(verified(a)).toBe(true);
    expect(a.json.preview.status).toBe('approved');
    expect(a.json.decision).toMatchObject({ decision: 'approved', email: t.account.email });
    expect(a.json.decision.approvalId).toMatch(/^apv_/);

    expect((await decide(p.share_url, 'reject')).status).toBe(303);
    await rx.waitFor(() => eventsOf('preview.rejected', p.preview_id).length === 1, 10_000, 'preview.rejected');
    const r = eventsOf('preview.rejected', p.preview_id)[0]!;
    expect(verified(r)).toBe(true);
    expect(r.json.decision).toMatchObject({ decision: 'rejected', email: t.account.email });
  });

  it('preview.expired is raised once for a waiting preview, however many instances look at the same time, and never for a sent one', async () => {
    const waiting = await preview();
    const sent = await preview();
    expect((await decide(sent.share_url, 'approve')).status).toBe(303);
    expect((await t.api('POST', `/api/rcs/previews/${sent.preview_id}/send`, undefined, { key: boundKey })).status).toBe(200);
    clock.advance(PREVIEW_TTL_MS + 1000);
    // The session ran out with the jump: log in again for the tests that follow.
    web = await login();
    {
      // Two rounds at once (two instances, or the loop and this call): each preview is noticed once.
      await Promise.all([t.ctx.services.previews.noticeExpired(), t.ctx.services.previews.noticeExpired()]);
      await t.ctx.services.previews.noticeExpired();
      await rx.waitFor(() => eventsOf('preview.expired', waiting.preview_id).length >= 1, 10_000, 'preview.expired');
      await settled(t);
      const e = eventsOf('preview.expired', waiting.preview_id);
      expect(e).toHaveLength(1);
      expect(verified(e[0]!)).toBe(true);
      expect(e[0]!.json.preview).toMatchObject({ previewId: waiting.preview_id, status: 'pending', shareUrl: waiting.share_url });
      expect(eventsOf('preview.expired', sent.preview_id)).toHaveLength(0);
      const rows = await t.ctx.db.selectFrom('previews').select(['id', 'expiry_noticed_at']).where('id', 'in', [waiting.preview_id, sent.preview_id]).execute();
      for (const row of rows) expect(row.expiry_noticed_at).not.toBeNull();
    }
  });
});

describe('the audit trail', () => {
  it('records an approval with the person, time, session, address, user agent and the fingerprint the page showed; the log and CSV name the approver', async () => {
    const p = await preview();
    // A user agent a spreadsheet would read as a formula.
    web.headers['User-Agent'] = '=HYPERLINK("http://evil")';
    const page = await web.get(new URL(p.share_url).pathname);
    const shown = WebClient.hidden(page.text, 'fingerprint');
    expect(shown).toMatch(/^[0-9a-f]{64}$/);
    expect(page.text).toContain('key &quot;Assistant&quot;');
    const decided = await web.post(`${new URL(p.share_url).pathname}/approve`, { csrf: WebClient.hidden(page.text, 'csrf'), fingerprint: shown });
    web.headers['User-Agent'] = UA;
    expect(decided.status).toBe(303);
    const [rec] = await records(p.preview_id);
    expect(rec).toMatchObject({ account_id: t.account.accountId, decision: 'approved', user_email: t.account.email, fingerprint: shown, preview_kind: 'rcs', recipients: 1, credential_label: 'key "Assistant"', user_agent: '=HYPERLINK("http://evil")' });
    expect(rec!.user_id).toMatch(/^usr_/);
    expect(Number(rec!.decided_at)).toBe(clock.now());
    expect(rec!.session_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rec!.client_ip).toMatch(/127\.0\.0\.1/);
    // The session's own id hash is not what is kept.
    const sessions = await t.ctx.db.selectFrom('sessions').select('id_hash').execute();
    expect(sessions.map((s) => s.id_hash)).not.toContain(rec!.session_hash);

    // The share page of the decided preview shows the record.
    const after = await web.get(new URL(p.share_url).pathname);
    expect(after.text).toContain('data-testid="decision-record"');
    expect(after.text).toContain(`Approved</strong> by ${t.account.email}`);
    expect(after.text).toContain(shown.slice(0, 16));

    // Sent: the message carries the preview and its approver in the log (REST and MCP share LogService).
    const send = await t.api('POST', `/api/rcs/previews/${p.preview_id}/send`, undefined, { key: boundKey });
    expect(send.status).toBe(200);
    const log = await t.api('GET', `/api/messages/log?messageId=${send.body.messageRecordId}`);
    expect(log.status).toBe(200);
    expect(log.body.messages[0]).toMatchObject({ previewId: p.preview_id, approvedBy: t.account.email, approvedAt: new Date(Number(rec!.decided_at)).toISOString() });
    // A direct send of an automation key names nobody.
    const direct = await t.api('POST', '/api/rcs/send', { phoneNumber: phone(), messageType: 'text', content: { text: 'Direct' }, sendernameId: t.account.senders.rcs });
    const directLog = await t.api('GET', `/api/messages/log?messageId=${direct.body.messageRecordId}`);
    expect(directLog.body.messages[0]).toMatchObject({ previewId: null, approvedBy: null, approvedAt: null });

    // The console's recent messages name the approver too.
    const overview = await web.get('/console');
    expect(overview.text).toContain(`data-testid="approved-by">${t.account.email}, `);

    // CSV, REST and console, injection-safe.
    const csv = await fetch(`${t.url}/api/rcs/approvals/export.csv`, { headers: { 'X-API-Key': t.account.apiKey } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const text = await csv.text();
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(APPROVALS_CSV_COLUMNS.join(','));
    const line = lines.find((l) => l.startsWith(`${rec!.id},`));
    expect(line).toBeDefined();
    expect(line).toContain(`,approved,${p.preview_id},rcs,1,`);
    expect(line).toContain(`"key ""Assistant"""`);
    expect(line).toContain(t.account.email);
    expect(line).toContain(shown);
    expect(line).toContain(`"'=HYPERLINK(""http://evil"")"`);
    const consoleCsv = await web.get('/console/approvals/export.csv');
    expect(consoleCsv.status).toBe(200);
    expect(consoleCsv.text).toBe(text);
  });

  it('records a rejection the same way; a later approval is a second record, the first is kept', async () => {
    const p = await preview();
    expect((await decide(p.share_url, 'reject')).status).toBe(303);
    expect((await decide(p.share_url, 'approve')).status).toBe(303);
    const recs = await records(p.preview_id);
    expect(recs.map((r) => r.decision)).toEqual(['rejected', 'approved']);
    const page = await web.get(new URL(p.share_url).pathname);
    expect(page.text).toContain(`Rejected</strong> by ${t.account.email}`);
    const list = await t.api('GET', '/api/rcs/approvals?limit=2');
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: { approvalId: string }) => r.approvalId)).toEqual([recs[1]!.id, recs[0]!.id]);
    expect(list.body.data[1]).toMatchObject({ previewId: p.preview_id, decision: 'rejected', email: t.account.email, userAgent: UA });
    expect(list.body.pagination.hasNext).toBe(true);
    // The credential being audited does not read the records (people and automation keys do).
    for (const path of ['/api/rcs/approvals', '/api/rcs/approvals/export.csv']) {
      const r = await t.api('GET', path, undefined, { key: boundKey });
      expect(r.status, path).toBe(403);
      expect(r.body.error.code).toBe('FORBIDDEN');
    }
    const next = await t.api('GET', `/api/rcs/approvals?limit=2&cursor=${list.body.pagination.nextCursor}`);
    expect(next.status).toBe(200);
    expect(next.body.data.map((r: { approvalId: string }) => r.approvalId)).not.toContain(recs[1]!.id);
  });

  it('every message of a previewed batch names the preview and its approver', async () => {
    const p = await previewBatch(3);
    expect((await decide(p.share_url, 'approve')).status).toBe(303);
    const sent = await t.api('POST', `/api/rcs/previews/${p.preview_id}/send`, undefined, { key: boundKey });
    expect(sent.status).toBe(202);
    const rows = await t.ctx.db.selectFrom('messages').select(['id', 'preview_id']).where('job_id', '=', sent.body.jobId).execute();
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.preview_id).toBe(p.preview_id);
      const log = await t.api('GET', `/api/messages/log?messageId=${row.id}`);
      expect(log.body.messages[0]).toMatchObject({ previewId: p.preview_id, approvedBy: t.account.email, jobId: sent.body.jobId });
    }
  });

  it('refuses a decision without the fingerprint of the page, or with another one; nothing is recorded', async () => {
    const p = await preview();
    const other = await preview({ content: { text: 'Something else' } });
    const otherPage = await web.get(new URL(other.share_url).pathname);
    for (const fingerprint of ['', 'x'.repeat(64), WebClient.hidden(otherPage.text, 'fingerprint')]) {
      const r = await decide(p.share_url, 'approve', { fingerprint });
      expect(r.status).toBe(409);
      expect(r.text).toContain('nothing was decided');
    }
    expect(await records(p.preview_id)).toHaveLength(0);
    expect((await t.api('GET', `/api/rcs/previews/${p.preview_id}`)).body.data.status).toBe('pending');
  });

  it('the shared CSV cell writer neutralises formulas and quotes separators', async () => {
    const { csvCell: csvField } = await import('../../../src/platform/csv.js');
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('+49')).toBe("'+49");
    expect(csvField('-2')).toBe("'-2");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\tx')).toBe("'\tx");
    expect(csvField('a,"b"\nc')).toBe('"a,""b""\nc"');
    expect(csvField(-2)).toBe('-2');
    expect(csvField(null)).toBe('');
  });

  it('no route edits or deletes a record, and deleting the key keeps it', async () => {
    const p = await preview();
    expect((await decide(p.share_url, 'approve')).status).toBe(303);
    const [rec] = await records(p.preview_id);
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      for (const path of [`/api/rcs/approvals/${rec!.id}`, '/api/rcs/approvals', '/api/rcs/approvals/export.csv']) {
        const r = await t.api(method, path, method === 'DELETE' ? undefined : { decision: 'rejected' });
        expect([404, 405], `${method} ${path}`).toContain(r.status);
      }
    }
    const form = await web.post(`/console/approvals/${rec!.id}/delete`, { csrf: 'x' });
    expect([403, 404]).toContain(form.status);
    await t.ctx.db.deleteFrom('api_keys').where('id', '=', boundKeyId).execute();
    const [still] = await records(p.preview_id);
    expect(still).toEqual(rec);
    const list = await t.api('GET', '/api/rcs/previews?status=approved');
    expect(list.body.data.find((x: { previewId: string }) => x.previewId === p.preview_id).createdBy.label).toBe('key "Assistant"');
    // Later tests need an approval-bound key again.
    const again = await t.ctx.services.apiKeys.create(t.account.accountId, 'Assistant', ALL_PERMISSIONS, { sendsNeedApproval: true });
    boundKey = again.key;
    boundKeyId = again.info.id;
  });
});

describe('the approvals inbox', () => {
  it('lists previews by state, newest first, with cursor paging; bad input is a 400', async () => {
    const made = [await preview(), await preview(), await preview()];
    const waiting = await t.api('GET', '/api/rcs/previews?status=waiting&limit=2');
    expect(waiting.status).toBe(200);
    expect(waiting.body.data.map((x: { previewId: string }) => x.previewId)).toEqual([made[2]!.preview_id, made[1]!.preview_id]);
    expect(waiting.body.data[0]).toMatchObject({ state: 'waiting', status: 'pending', channel: 'RCS', kind: 'rcs', recipients: 1, approvalRequired: true, createdBy: { id: boundKeyId, label: 'key "Assistant"' }, shareUrl: made[2]!.share_url, decidedBy: null });
    expect(waiting.body.pagination).toMatchObject({ hasNext: true, limit: 2, count: 2 });
    const page2 = await t.api('GET', `/api/rcs/previews?status=waiting&limit=2&cursor=${waiting.body.pagination.nextCursor}`);
    expect(page2.body.data[0].previewId).toBe(made[0]!.preview_id);
    expect(page2.body.data.every((x: { state: string }) => x.state === 'waiting')).toBe(true);

    for (const state of ['approved', 'rejected', 'expired', 'sent']) {
      const r = await t.api('GET', `/api/rcs/previews?status=${state}&limit=200`);
      expect(r.status).toBe(200);
      expect(r.body.data.length, state).toBeGreaterThan(0);
      expect(r.body.data.every((x: { state: string }) => x.state === state), state).toBe(true);
      const times = r.body.data.map((x: { createdAt: string }) => x.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
    }
    const rejected = await t.api('GET', '/api/rcs/previews?status=rejected');
    expect(rejected.body.data[0].decidedBy).toBe(t.account.email);

    for (const q of ['status=pending', 'status=', 'limit=0', 'limit=201', 'cursor=%%%', `status=sent&cursor=${waiting.body.pagination.nextCursor}`, 'foo=1']) {
      const r = await t.api('GET', `/api/rcs/previews?${q}`);
      expect(r.status, q).toBe(400);
    }
  });

  it('a second tenant sees none of it: its inbox and history are empty, share pages and records 404', async () => {
    const mine = await preview();
    const inbox = await t.api('GET', '/api/rcs/previews', undefined, { key: otherKey });
    expect(inbox.status).toBe(200);
    expect(inbox.body.data).toEqual([]);
    const hist = await t.api('GET', '/api/rcs/approvals', undefined, { key: otherKey });
    expect(hist.body.data).toEqual([]);
    const csv = await fetch(`${t.url}/api/rcs/approvals/export.csv`, { headers: { 'X-API-Key': otherKey } });
    expect((await csv.text()).trimEnd().split('\r\n')).toHaveLength(1);
    expect((await t.api('GET', `/api/rcs/previews/${mine.preview_id}`, undefined, { key: otherKey })).status).toBe(404);
    // The other account's person cannot open or decide on this account's preview.
    clock.advance(31_000);
    const theirs = new WebClient(t.url);
    expect((await theirs.login(other.email, other.password, other.totpSecret, '/console', clock.now())).status).toBe(303);
    const path = new URL(mine.share_url).pathname;
    expect((await theirs.get(path)).status).toBe(404);
    const console = await theirs.get('/console/approvals?status=all');
    expect(console.status).toBe(200);
    expect(console.text).not.toContain(mine.preview_id);
    expect(console.text).toContain('data-testid="inbox-empty"');
  });

  it('the console page lists them with the waiting count beside its tab, filters and pages; nonsense in the query shows the waiting ones', async () => {
    const n = await t.ctx.services.previews.countWaiting(t.account.accountId);
    expect(n).toBeGreaterThan(0);
    const page = await web.get('/console/approvals');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-testid="approvals-count" aria-label="${n} waiting">${n}<`);
    const rows = page.text.match(/data-preview-id="prv_[0-9A-Z]+"/g) ?? [];
    expect(rows.length).toBe(Math.min(n, 50));
    // Every console page carries the count.
    expect((await web.get('/console/api-keys')).text).toContain('data-testid="approvals-count"');
    const rejected = await web.get('/console/approvals?status=rejected');
    expect(rejected.text).toContain('Rejected');
    expect(rejected.text).not.toContain('>Waiting</span>');
    const junk = await web.get('/console/approvals?status=%3Cscript%3E&cursor=nonsense');
    expect(junk.status).toBe(200);
    expect(junk.text).not.toContain('<script>');
  });
});

describe('append-only in the code', () => {
  it('no code updates or deletes approval records, and only the previews service inserts them', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e.name)) files.push(p);
      }
    };
    for (const root of ['src', 'tools', 'oauth', 'preview-pages']) walk(root);
    const skipped = [path.join('src', 'platform', 'db', 'migrations'), path.join('src', 'platform', 'db', 'tables')];
    const writers: string[] = [];
    for (const f of files) {
      if (skipped.some((s) => f.startsWith(s))) continue;
      const text = fs.readFileSync(f, 'utf8');
      if (/(updateTable|deleteFrom)\(\s*['"]preview_approvals['"]/.test(text) || /\b(update|delete\s+from)\s+"?preview_approvals/i.test(text)) writers.push(`${f}: update/delete`);
      if (/insertInto\(\s*['"]preview_approvals['"]/.test(text) && f !== path.join('src', 'previews', 'service.ts')) writers.push(`${f}: insert`);
    }
    expect(writers).toEqual([]);
  });
});
