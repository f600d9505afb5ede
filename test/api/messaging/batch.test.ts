import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchResponseSchema, JobSchema } from '../../../src/messaging/schemas.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { creditsOf, de, simRows, waitFor } from './util.js';

/** POST /send-batch, jobs, queue status and stats (spec §4.1, §3.4) on the simulated network. */
let t: TestServer;
let acc: TestAccount;
let seq = 0;
const fresh = (last4 = '0001') => de(5000 + ++seq, last4);
const post = (body: Record<string, unknown>, key = acc.apiKey) =>
  t.api('POST', '/api/rcs/send-batch', { messageType: 'text', content: { text: 'Hi {{contact_first_name}}' }, sendernameId: acc.senders.rcs, ...body }, { key });
const jobStatus = async (jobId: string, key = acc.apiKey) => t.api('GET', `/api/rcs/batch/${jobId}/status`, undefined, { key });
const waitForJob = (jobId: string, status: string) =>
  waitFor(async () => (await jobStatus(jobId)).body.job, { until: (j) => j?.status === status, what: `job ${jobId} ${status}` });

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('POST /send-batch', () => {
  let jobId = '';
  let numbers: string[] = [];

  it('queues (202), normalises and de-duplicates, reports invalid and disabled numbers, and debits the accepted ones', async () => {
    numbers = [fresh(), fresh(), fresh(), fresh('9990')];
    const named = await t.api('POST', '/api/v1/contacts', { phone: numbers[0], firstName: 'Nora' }, { key: acc.apiKey });
    expect(named.status).toBe(201);
    const disabledPhone = fresh();
    const disabled = await t.api('POST', '/api/v1/contacts', { phone: disabledPhone }, { key: acc.apiKey });
    await t.api('PATCH', '/api/v1/contacts/bulk/disable', { contactIds: [disabled.body.data.id] }, { key: acc.apiKey });
    const before = await creditsOf(t, acc.accountId);
    const r = await post({
      phoneNumbers: [...numbers, `00${numbers[1]!.slice(1)}`, numbers[2]!.slice(1).replace(/^(\d{2})(\d{3})/, '$1 $2 '), 'not a number', disabledPhone],
      campaignName: 'spring',
      smsFallback: { message: 'Hi {{contact_first_name}} by SMS', sendernameId: acc.senders.sms },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(BatchResponseSchema.parse(r.body)).toBeTruthy();
    expect(r.body).toMatchObject({
      success: true,
      status: 'processing',
      scheduled: false,
      queued: true,
      totalRequested: 8,
      accepted: 4,
      duplicates: 2,
      rejectedCount: 2,
      batchSize: 100,
      delayMs: 50,
      creditsEstimated: 0.14,
    });
    expect(r.body.rejected).toEqual([
      { phoneNumber: 'not a number', code: 'INVALID_PHONE', reason: expect.any(String) },
      { phoneNumber: disabledPhone, code: 'CONTACT_DISABLED', reason: expect.any(String) },
    ]);
    expect(r.body).not.toHaveProperty('scheduleTime');
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before - 0.14, 6);
    jobId = r.body.jobId;
    expect(jobId).toMatch(/^job_/);
  });

  it('sends every accepted recipient once, merged per recipient, and the job completes', async () => {
    const job = await waitForJob(jobId, 'completed');
    expect(JobSchema.parse(job)).toBeTruthy();
    expect(job).toMatchObject({ type: 'batch', channel: 'RCS', campaignName: 'spring', sendernameId: acc.senders.rcs, messageType: 'text', cancelledAt: null, scheduledAt: null });
    expect(job.progress).toMatchObject({ total: 4, pending: 0, sent: 4, failed: 0, cancelled: 0, percent: 100 });
    expect(job.rejected).toHaveLength(2);
    // The …9990 number went by SMS: its RCS price was replaced by the SMS price.
    expect(job.creditsCharged).toBeCloseTo(0.035 * 3 + 0.085, 6);

    const log = await t.api('GET', `/api/messages/log?campaignName=spring`, undefined, { key: acc.apiKey });
    expect(log.body.messages).toHaveLength(4);
    const byPhone = new Map(log.body.messages.map((m: any) => [m.phoneNumber, m]));
    expect([...byPhone.keys()].sort()).toEqual([...numbers].sort());
    expect((byPhone.get(numbers[0]!) as any).content).toBe('Hi Nora');
    expect((byPhone.get(numbers[1]!) as any).content).toBe('Hi'); // the flat summary is trimmed
    expect(byPhone.get(numbers[3]!)).toMatchObject({ method: 'SMS', fallbackUsed: true, fallbackReason: 'RCS_NOT_SUPPORTED' });
    for (const m of log.body.messages) {
      expect(m.jobId).toBe(jobId);
      expect(await simRows(t, m.id)).toHaveLength(1);
    }
  });

  it('slices by batchSize with delayMs between slices; DELETE /batch cancels only the unsent messages and refunds them', async () => {
    const before = await creditsOf(t, acc.accountId);
    const r = await post({ phoneNumbers: [fresh(), fresh(), fresh(), fresh(), fresh()], batchSize: 2, delayMs: 10_000 });
    expect(r.status).toBe(202);
    const created = await t.ctx.db.selectFrom('messages').select(['id', 'due_at', 'created_at']).where('job_id', '=', r.body.jobId).orderBy('due_at').orderBy('id').execute();
    expect(created.map((m) => m.due_at - m.created_at)).toEqual([0, 0, 10_000, 10_000, 20_000]);
    expect(Date.parse(r.body.estimatedCompletionTime)).toBe(created[0]!.created_at + 20_000);
    // The first slice goes out now; the others wait.
    const processing = await waitFor(async () => (await jobStatus(r.body.jobId)).body.job, { until: (j) => j.progress.sent === 2, what: 'first slice' });
    expect(processing).toMatchObject({ status: 'processing', progress: { total: 5, pending: 3, sent: 2 } });

    const cancel = await t.api('DELETE', `/api/rcs/batch/${r.body.jobId}`, undefined, { key: acc.apiKey });
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ success: true, jobId: r.body.jobId, cancelledMessages: 3, creditsRefunded: 0.105 });
    expect(cancel.body.job).toMatchObject({ status: 'cancelled', progress: { total: 5, pending: 0, sent: 2, cancelled: 3, percent: 100 } });
    expect(cancel.body.job.cancelledAt).not.toBeNull();
    expect(cancel.body.job.creditsCharged).toBeCloseTo(0.07, 6);
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before - 0.07, 6);
    const left = await t.ctx.db.selectFrom('messages').select(['status']).where('job_id', '=', r.body.jobId).execute();
    expect(left).toHaveLength(2);
    expect(left.every((m) => ['SENT', 'DELIVERED', 'READ'].includes(m.status))).toBe(true);
    // Cancelling again changes nothing and still answers 200 (idempotent).
    const again = await t.api('DELETE', `/api/rcs/batch/${r.body.jobId}`, undefined, { key: acc.apiKey });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ cancelledMessages: 0, creditsRefunded: 0 });
  });

  it('cancelling a finished job leaves it completed', async () => {
    const r = await t.api('DELETE', `/api/rcs/batch/${jobId}`, undefined, { key: acc.apiKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ cancelledMessages: 0, job: { status: 'completed' } });
  });

  it('with scheduleAt answers 200 with the scheduling fields; the job is scheduled', async () => {
    const r = await post({ phoneNumbers: [fresh(), fresh()], scheduleAt: '2031-03-01T10:00:00', timeZone: 'Europe/London', batchSize: 1, delayMs: 10_000 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      status: 'scheduled',
      scheduled: true,
      queued: false,
      scheduleTime: '2031-03-01T10:00:00.000Z',
      localScheduleTime: '2031-03-01T10:00:00.000+00:00',
      effectiveTimezone: 'Europe/London',
      timezoneSource: 'request',
      estimatedCompletionTime: '2031-03-01T10:00:10.000Z',
    });
    const job = (await jobStatus(r.body.jobId)).body.job;
    expect(job).toMatchObject({ status: 'scheduled', scheduledAt: '2031-03-01T10:00:00.000Z', progress: { total: 2, pending: 2, sent: 0 } });
    const log = await t.api('GET', `/api/messages/log?status=SCHEDULED`, undefined, { key: acc.apiKey });
    expect(log.body.messages.filter((m: any) => m.jobId === r.body.jobId)).toHaveLength(2);
  });

  it('a batch whose every message fails is a failed job, refunded', async () => {
    const before = await creditsOf(t, acc.accountId);
    const r = await post({ phoneNumbers: [fresh('9992'), fresh('9990')] });
    expect(r.status).toBe(202);
    const job = await waitForJob(r.body.jobId, 'failed');
    expect(job.progress).toMatchObject({ total: 2, failed: 2, sent: 0, percent: 100 });
    expect(job.creditsCharged).toBe(0);
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before, 6);
  });
});

describe('jobs: status, list, queue (spec §4.1, §3.4)', () => {
  it('GET /jobs lists newest first with filters and page paging', async () => {
    const all = await t.api('GET', '/api/rcs/jobs', undefined, { key: acc.apiKey });
    expect(all.status).toBe(200);
    const total = all.body.pagination.total;
    expect(total).toBeGreaterThanOrEqual(4);
    expect(all.body.data.map((j: any) => j.createdAt)).toEqual([...all.body.data.map((j: any) => j.createdAt)].sort().reverse());

    const page1 = await t.api('GET', '/api/rcs/jobs?limit=2&page=1', undefined, { key: acc.apiKey });
    const page2 = await t.api('GET', '/api/rcs/jobs?limit=2&page=2', undefined, { key: acc.apiKey });
    expect(page1.body.pagination).toEqual({ page: 1, limit: 2, total, totalPages: Math.ceil(total / 2) });
    expect(page1.body.data).toHaveLength(2);
    expect(page2.body.data[0].jobId).not.toBe(page1.body.data[1].jobId);
    expect(new Set([...page1.body.data, ...page2.body.data].map((j: any) => j.jobId)).size).toBe(page1.body.data.length + page2.body.data.length);

    const scheduled = await t.api('GET', '/api/rcs/jobs?status=scheduled', undefined, { key: acc.apiKey });
    expect(scheduled.body.data.length).toBeGreaterThanOrEqual(1);
    expect(scheduled.body.data.every((j: any) => j.status === 'scheduled')).toBe(true);
    const cancelled = await t.api('GET', '/api/rcs/jobs?status=cancelled&type=batch', undefined, { key: acc.apiKey });
    expect(cancelled.body.data).toHaveLength(1);

    // A single scheduled send is a job of type "scheduled".
    const single = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: 'Later', sendernameId: acc.senders.sms, scheduleAt: '2031-01-01T09:00:00' }, { key: acc.apiKey });
    expect(single.status).toBe(200);
    const byType = await t.api('GET', '/api/rcs/jobs?type=scheduled', undefined, { key: acc.apiKey });
    expect(byType.body.data.map((j: any) => j.jobId)).toEqual([single.body.jobId]);
    expect(byType.body.data[0]).toMatchObject({ type: 'scheduled', channel: 'SMS', status: 'scheduled', messageType: null });

    const future = await t.api('GET', `/api/rcs/jobs?startDate=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, undefined, { key: acc.apiKey });
    expect(future.body.data).toEqual([]);
    const past = await t.api('GET', `/api/rcs/jobs?endDate=2020-01-01T00:00:00Z`, undefined, { key: acc.apiKey });
    expect(past.body.data).toEqual([]);

    for (const bad of ['status=done', 'type=sms', 'limit=0', 'limit=101', 'page=0', 'startDate=yesterday', 'color=red']) {
      const r = await t.api('GET', `/api/rcs/jobs?${bad}`, undefined, { key: acc.apiKey });
      expect(r.status, bad).toBe(400);
    }
  });

  it('GET /queue/status shows what is still due or scheduled, with the pending jobs', async () => {
    const r = await t.api('GET', '/api/rcs/queue/status', undefined, { key: acc.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.queue).toMatchObject({ dueNow: 0, inFlight: 0 });
    expect(r.body.queue.scheduledLater).toBe(3);
    expect(r.body.queue.nextDueAt).toBe('2031-01-01T08:00:00.000Z');
    expect(r.body.pendingJobs).toHaveLength(2);
    expect(r.body.pendingJobs.every((j: any) => j.status === 'scheduled')).toBe(true);
    expect(typeof r.body.timestamp).toBe('string');
  });

  it('job ids: malformed 400, unknown 404, another account\'s 404 — for status and cancel', async () => {
    const other = await t.createAccount();
    const own = (await t.api('GET', '/api/rcs/jobs?limit=1', undefined, { key: acc.apiKey })).body.data[0].jobId;
    expect((await jobStatus('job_bad')).status).toBe(400);
    expect((await jobStatus('job_01J0000000000000000000000Z')).status).toBe(404);
    expect((await jobStatus(own, other.apiKey)).status).toBe(404);
    expect((await t.api('DELETE', `/api/rcs/batch/${own}`, undefined, { key: other.apiKey })).status).toBe(404);
    expect((await t.api('GET', '/api/rcs/jobs', undefined, { key: other.apiKey })).body.data).toEqual([]);
    const q = await t.api('GET', '/api/rcs/queue/status', undefined, { key: other.apiKey });
    expect(q.body.queue.scheduledLater).toBe(0);
    expect(q.body.pendingJobs).toEqual([]);
    // The foreign cancel attempt changed nothing.
    expect((await jobStatus(own)).body.job.status).not.toBe('cancelled');
  });

  it('needs messages:read to read and messages:write to cancel', async () => {
    const own = (await t.api('GET', '/api/rcs/jobs?limit=1', undefined, { key: acc.apiKey })).body.data[0].jobId;
    const writeOnly = await t.createKey(acc.accountId, ['messages:write']);
    const readOnly = await t.createKey(acc.accountId, ['messages:read']);
    expect((await t.api('GET', '/api/rcs/jobs', undefined, { key: writeOnly })).status).toBe(403);
    expect((await jobStatus(own, writeOnly)).status).toBe(403);
    expect((await t.api('GET', '/api/rcs/queue/status', undefined, { key: writeOnly })).status).toBe(403);
    expect((await t.api('GET', '/api/rcs/stats', undefined, { key: writeOnly })).status).toBe(403);
    expect((await jobStatus(own, readOnly)).status).toBe(200);
    const denied = await t.api('DELETE', `/api/rcs/batch/${own}`, undefined, { key: readOnly });
    expect(denied.status).toBe(403);
    expect(denied.body.error.requiredPermission).toBe('messages:write');
  });
});

describe('GET /stats', () => {
  it('counts by status and channel and sums the credits of a period or custom range', async () => {
    const r = await t.api('GET', '/api/rcs/stats', undefined, { key: acc.apiKey });
    expect(r.status).toBe(200);
    const rows = await t.ctx.db.selectFrom('messages').select(['status', 'type', 'credits_cost_milli', 'method']).where('account_id', '=', acc.accountId).execute();
    expect(r.body.range.period).toBe('7d');
    expect(r.body.totals.messages).toBe(rows.length);
    expect(r.body.totals.outbound).toBe(rows.length);
    for (const s of ['SCHEDULED', 'FAILED']) expect(r.body.totals.byStatus[s]).toBe(rows.filter((m) => m.status === s).length);
    expect(r.body.totals.byType).toEqual({ RCS: rows.filter((m) => m.type === 'RCS').length, SMS: rows.filter((m) => m.type === 'SMS').length });
    expect(r.body.totals.sentByMethod.SMS).toBe(rows.filter((m) => m.method === 'SMS').length);
    expect(r.body.creditsSpent).toBeCloseTo(rows.reduce((s, m) => s + (m.credits_cost_milli ?? 0), 0) / 1000, 6);

    const custom = await t.api('GET', `/api/rcs/stats?startDate=2020-01-01T00:00:00Z&endDate=2020-02-01T00:00:00Z`, undefined, { key: acc.apiKey });
    expect(custom.body).toMatchObject({ range: { period: 'custom', startDate: '2020-01-01T00:00:00.000Z' }, totals: { messages: 0 }, creditsSpent: 0 });
    const today = await t.api('GET', '/api/rcs/stats?period=today', undefined, { key: acc.apiKey });
    expect(today.body.range.period).toBe('today');
    for (const bad of ['period=year', 'startDate=2020-02-01T00:00:00Z&endDate=2020-01-01T00:00:00Z', 'endDate=soon']) {
      expect((await t.api('GET', `/api/rcs/stats?${bad}`, undefined, { key: acc.apiKey })).status, bad).toBe(400);
    }
    // Another account sees only its own numbers.
    const other = await t.createAccount();
    expect((await t.api('GET', '/api/rcs/stats', undefined, { key: other.apiKey })).body.totals.messages).toBe(0);
  });
});
