import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/platform/clock.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { creditsOf, de, messageRow, simRows } from './util.js';

/**
 * Scheduling with a fake clock and the dispatcher driven by hand (workers off): DST gaps and
 * overlaps (Europe/Berlin 2026: clocks jump 02:00 → 03:00 on 29 March and fall back 03:00 → 02:00
 * on 25 October), firing exactly when due, cancelling one message, a whole job, and by contact.
 */
const clock = new FakeClock(Date.UTC(2026, 2, 28, 12, 0, 0)); // Saturday before the spring change
let t: TestServer;
let acc: TestAccount;
let seq = 0;
const fresh = () => de(7000 + ++seq);
const tick = () => t.ctx.dispatcher.tick();

const schedule = (body: Record<string, unknown>) =>
  t.api('POST', '/api/rcs/send', { phoneNumber: fresh(), messageType: 'text', content: { text: 'Scheduled hello' }, sendernameId: acc.senders.rcs, ...body }, { key: acc.apiKey });

beforeAll(async () => {
  t = await startTestServer({ clock, workers: false });
  acc = await t.createAccount(); // Europe/Berlin
});
afterAll(async () => {
  await t.close();
});

describe('time zones and daylight saving time', () => {
  it('refuses a wall time inside the spring-forward gap with 400 dst_gap and the nearest valid times', async () => {
    for (const tz of [{ timeZone: 'Europe/Berlin' }, {}]) {
      const r = await schedule({ scheduleAt: '2026-03-29T02:30:00', ...tz });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('INVALID_SCHEDULE_TIME');
      expect(r.body.error.details[0]).toMatchObject({ path: 'scheduleAt', code: 'dst_gap' });
      expect(r.body.error.gap).toEqual({
        before: { utc: '2026-03-29T00:59:00.000Z', localTime: '2026-03-29T01:59:00.000+01:00' },
        after: { utc: '2026-03-29T01:00:00.000Z', localTime: '2026-03-29T03:00:00.000+02:00' },
      });
    }
  });

  it('takes the earlier instant of a wall time that occurs twice (fall back)', async () => {
    const r = await schedule({ scheduleAt: '2026-10-25T02:30:00', timeZone: 'Europe/Berlin' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scheduled: true, scheduleTime: '2026-10-25T00:30:00.000Z', localScheduleTime: '2026-10-25T02:30:00.000+02:00', effectiveTimezone: 'Europe/Berlin', timezoneSource: 'request' });
    expect((await messageRow(t, r.body.messageId))!.due_at).toBe(Date.UTC(2026, 9, 25, 0, 30));
  });

  it('uses the offset in force on either side of the change', async () => {
    const before = await schedule({ scheduleAt: '2026-03-29T01:30:00' });
    expect(before.body).toMatchObject({ scheduleTime: '2026-03-29T00:30:00.000Z', localScheduleTime: '2026-03-29T01:30:00.000+01:00', timezoneSource: 'account' });
    const after = await schedule({ scheduleAt: '2026-03-29T03:30:00' });
    expect(after.body).toMatchObject({ scheduleTime: '2026-03-29T01:30:00.000Z', localScheduleTime: '2026-03-29T03:30:00.000+02:00' });
  });
});

describe('firing', () => {
  it('a scheduled message across the DST change is sent when the clock reaches it, not before', async () => {
    const r = await schedule({ scheduleAt: '2026-03-29T04:00:00', timeZone: 'Europe/Berlin' }); // 02:00Z
    expect(r.status).toBe(200);
    expect(r.body).not.toHaveProperty('messageRecordId');
    const due = Date.UTC(2026, 2, 29, 2, 0, 0);
    // Run everything due before it (the earlier schedules of this file) out of the way.
    clock.set(due - 1000);
    await tick();
    expect((await messageRow(t, r.body.messageId))!.status).toBe('SCHEDULED');
    expect(await tick()).toBe(0);
    clock.set(due);
    expect(await tick()).toBe(1);
    const row = (await messageRow(t, r.body.messageId))!;
    expect(row).toMatchObject({ status: 'SENT', pending: 0, sent_at: due, method: 'RCS', scheduled_at: due });
    expect(await simRows(t, r.body.messageId)).toHaveLength(1);
    // Sent messages can no longer be cancelled.
    expect((await t.api('DELETE', `/api/messages/${r.body.messageId}`, undefined, { key: acc.apiKey })).status).toBe(404);
    const job = (await t.api('GET', `/api/rcs/batch/${r.body.jobId}/status`, undefined, { key: acc.apiKey })).body.job;
    expect(job).toMatchObject({ type: 'scheduled', status: 'completed', progress: { total: 1, sent: 1, pending: 0 } });
  });

  it('a scheduled batch goes scheduled → processing → completed slice by slice', async () => {
    const start = clock.now() + 3_600_000;
    const r = await t.api(
      'POST',
      '/api/rcs/send-batch',
      { phoneNumbers: [fresh(), fresh(), fresh()], messageType: 'text', content: { text: 'Batch' }, sendernameId: acc.senders.rcs, scheduleAt: new Date(start).toISOString(), batchSize: 2, delayMs: 5000 },
      { key: acc.apiKey },
    );
    expect(r.status).toBe(200);
    const status = async () => (await t.api('GET', `/api/rcs/batch/${r.body.jobId}/status`, undefined, { key: acc.apiKey })).body.job;
    expect((await status()).status).toBe('scheduled');
    clock.set(start);
    expect(await tick()).toBe(2);
    expect(await status()).toMatchObject({ status: 'processing', progress: { sent: 2, pending: 1 } });
    clock.set(start + 4999);
    expect(await tick()).toBe(0);
    clock.set(start + 5000);
    expect(await tick()).toBe(1);
    expect(await status()).toMatchObject({ status: 'completed', progress: { sent: 3, pending: 0, percent: 100 } });
  });
});

describe('cancelling', () => {
  it('DELETE /api/messages/{id} on one recipient of a scheduled batch drops only that message', async () => {
    const at = clock.now() + 600_000;
    const r = await t.api(
      'POST',
      '/api/rcs/send-batch',
      { phoneNumbers: [fresh(), fresh(), fresh()], messageType: 'text', content: { text: 'Batch' }, sendernameId: acc.senders.rcs, scheduleAt: new Date(at).toISOString() },
      { key: acc.apiKey },
    );
    expect(r.status).toBe(200);
    const rows = await t.ctx.db.selectFrom('messages').select(['id']).where('job_id', '=', r.body.jobId).orderBy('id').execute();
    const before = await creditsOf(t, acc.accountId);
    const del = await t.api('DELETE', `/api/messages/${rows[1]!.id}`, undefined, { key: acc.apiKey });
    expect(del.status).toBe(200);
    expect(del.body.creditsRefunded).toBe(0.035);
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before + 0.035, 6);
    const job = (await t.api('GET', `/api/rcs/batch/${r.body.jobId}/status`, undefined, { key: acc.apiKey })).body.job;
    expect(job).toMatchObject({ status: 'scheduled', cancelledAt: null, progress: { total: 3, pending: 2, cancelled: 1 } });
    clock.set(at);
    expect(await tick()).toBe(2);
    const after = await t.ctx.db.selectFrom('messages').select(['id', 'status']).where('job_id', '=', r.body.jobId).orderBy('id').execute();
    expect(after.map((m) => m.id)).toEqual([rows[0]!.id, rows[2]!.id]);
    expect(after.every((m) => m.status === 'SENT')).toBe(true);
    expect(await simRows(t, rows[1]!.id)).toEqual([]);
    expect((await t.api('GET', `/api/rcs/batch/${r.body.jobId}/status`, undefined, { key: acc.apiKey })).body.job.status).toBe('completed');
  });

  it('DELETE /batch/{jobId} of a scheduled batch removes every message and refunds all', async () => {
    const before = await creditsOf(t, acc.accountId);
    const r = await t.api(
      'POST',
      '/api/rcs/send-batch',
      { phoneNumbers: [fresh(), fresh()], messageType: 'text', content: { text: 'Batch' }, sendernameId: acc.senders.rcs, scheduleAt: new Date(clock.now() + 60_000).toISOString() },
      { key: acc.apiKey },
    );
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before - 0.07, 6);
    const del = await t.api('DELETE', `/api/rcs/batch/${r.body.jobId}`, undefined, { key: acc.apiKey });
    expect(del.body).toMatchObject({ cancelledMessages: 2, creditsRefunded: 0.07, job: { status: 'cancelled', progress: { total: 2, pending: 0, cancelled: 2 } } });
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before, 6);
    clock.advance(120_000);
    expect(await tick()).toBe(0);
  });

  it('deleting a contact (REST) cancels its scheduled messages in the same step and refunds them', async () => {
    const phone = fresh();
    const c = await t.api('POST', '/api/v1/contacts', { phone }, { key: acc.apiKey });
    const s = await schedule({ phoneNumber: phone, scheduleAt: new Date(clock.now() + 3_600_000).toISOString() });
    expect(s.status).toBe(200);
    const before = await creditsOf(t, acc.accountId);
    const del = await t.api('DELETE', `/api/v1/contacts/${c.body.data.id}`, undefined, { key: acc.apiKey });
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ deleted: true, cancelledMessages: 1 });
    expect(await messageRow(t, s.body.messageId)).toBeUndefined();
    expect(await creditsOf(t, acc.accountId)).toBeCloseTo(before + 0.035, 6);
  });

  it('bulk-disabling contacts cancels their scheduled and queued (unsent batch slice) messages', async () => {
    const phones = [fresh(), fresh(), fresh()];
    const created = await t.api('POST', '/api/v1/contacts/bulk', { contacts: phones.map((phone) => ({ phone })) }, { key: acc.apiKey });
    expect(created.body.created).toBe(3);
    const contactIds = await Promise.all(phones.map(async (p) => (await t.api('GET', `/api/v1/contacts/${encodeURIComponent(p)}`, undefined, { key: acc.apiKey })).body.data.id as string));
    const scheduled = await schedule({ phoneNumber: phones[0], scheduleAt: new Date(clock.now() + 3_600_000).toISOString() });
    // A batch whose second slice waits 10 s: the first goes now, the second is queued.
    const batch = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: [phones[1], phones[2]], messageType: 'text', content: { text: 'B' }, sendernameId: acc.senders.rcs, batchSize: 1, delayMs: 10_000 }, { key: acc.apiKey });
    expect(batch.status).toBe(202);
    expect(await tick()).toBe(1);
    const other = await t.createAccount();
    const foreign = await t.api('POST', '/api/v1/contacts', { phone: fresh() }, { key: other.apiKey });
    const r = await t.api('PATCH', '/api/v1/contacts/bulk/disable', { contactIds: [...contactIds, foreign.body.data.id], reason: 'asked to stop' }, { key: acc.apiKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ disabledCount: 3, requestedCount: 4, cancelledMessages: 2 });
    expect(await messageRow(t, scheduled.body.messageId)).toBeUndefined();
    clock.advance(10_000);
    expect(await tick()).toBe(0);
    const job = (await t.api('GET', `/api/rcs/batch/${batch.body.jobId}/status`, undefined, { key: acc.apiKey })).body.job;
    expect(job.progress).toMatchObject({ total: 2, sent: 1, pending: 0, cancelled: 1 });
  });
});
