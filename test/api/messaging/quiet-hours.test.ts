import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher } from '../../../src/messaging/dispatcher.js';
import { FakeClock } from '../../../src/platform/clock.js';
import { createLogger } from '../../../src/platform/logger.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';
import { WebClient } from '../../helpers/web-client.js';
import { de, logRecord, messageRow, simRows } from './util.js';

/**
 * Quiet hours (issue #28) with a fake clock and the dispatcher driven by hand (workers off). The clock stands at
 * 23:00 in Berlin (21:00Z on Wednesday 10 June 2026): 17:00 in New York, 11:00 in Honolulu.
 */
const NIGHT_IN_BERLIN = Date.UTC(2026, 5, 10, 21, 0, 0);
const BERLIN_0800 = Date.UTC(2026, 5, 11, 6, 0, 0);
const clock = new FakeClock(NIGHT_IN_BERLIN);
let t: TestServer;
let acc: TestAccount;
let seq = 0;
const fresh = () => de(8100 + ++seq);
const tick = () => t.ctx.dispatcher.tick();
/** Ticks until nothing more is due (the simulated network's receipts aside). */
async function drain(): Promise<void> {
  while ((await tick()) > 0);
}

const text = (phoneNumber: string, extra: Record<string, unknown> = {}) => ({ phoneNumber, messageType: 'text', content: { text: 'Autumn sale: 20% off' }, sendernameId: acc.senders.rcs, ...extra });
const batch = (phoneNumbers: string[], extra: Record<string, unknown> = {}) => ({ phoneNumbers, messageType: 'text', content: { text: 'Autumn sale: 20% off' }, sendernameId: acc.senders.rcs, ...extra });
const setQuiet = (settings: { quietHours?: boolean; quietHoursWindows?: Record<string, { start: string; end: string; days?: number[] }> | null; approvalRequired?: boolean }) =>
  t.ctx.services.accounts.updateSettings(acc.accountId, settings);

async function messagesOfJob(jobId: string) {
  return t.ctx.db.selectFrom('messages').selectAll().where('job_id', '=', jobId).orderBy('phone').execute();
}

beforeAll(async () => {
  t = await startTestServer({ clock, workers: false });
  acc = await t.createAccount(); // Europe/Berlin
});
afterAll(async () => {
  await t.close();
});

describe('quiet hours off (the default): spec behaviour', () => {
  it('a batch at 23:00 recipient time goes out at once and says nothing about quiet hours', async () => {
    expect((await t.ctx.services.accounts.get(acc.accountId)).quietHours).toBe(false);
    const numbers = [fresh(), fresh()];
    const r = await t.api('POST', '/api/rcs/send-batch', batch(numbers), { key: acc.apiKey });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).not.toHaveProperty('quietHours');
    await drain();
    for (const m of await messagesOfJob(r.body.jobId)) expect(m).toMatchObject({ status: expect.stringMatching(/SENT|DELIVERED|READ/), scheduled_at: null, due_at: NIGHT_IN_BERLIN });
  });
});

describe('quiet hours on', () => {
  let deferredIds: string[] = [];
  const berlinNumbers = [fresh(), fresh()];
  const newYorkContact = fresh(); // a German number whose contact lives in New York
  const us = '+12127365001'; // New York area code: Eastern time, 17:00: open
  const florida = '+13057365001'; // Miami: 17:00 EDT, inside Florida's 08:00–20:00

  beforeAll(async () => {
    await setQuiet({ quietHours: true });
    const field = await t.api('POST', '/api/v1/contacts/fields', { name: 'Time zone', tag: 'timezone' }, { key: acc.apiKey });
    expect(field.status, JSON.stringify(field.body)).toBe(201);
    const c = await t.api('POST', '/api/v1/contacts', { phone: newYorkContact, firstName: 'Ada', customFields: [{ tag: 'timezone', value: 'America/New_York' }] }, { key: acc.apiKey });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
  });

  it('a mixed batch at 23:00 Berlin: Berlin recipients wait for 08:00 Berlin, the others are sent now', async () => {
    const r = await t.api('POST', '/api/rcs/send-batch', batch([...berlinNumbers, newYorkContact, us, florida]), { key: acc.apiKey });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({
      accepted: 5,
      status: 'processing',
      // Three go now: the batch is not held back as a whole.
      scheduled: false,
      quietHours: { enabled: true, transactional: false, deferred: 2, earliestOpening: '2026-06-11T06:00:00.000Z', latestOpening: '2026-06-11T06:00:00.000Z' },
      estimatedCompletionTime: '2026-06-11T06:00:00.000Z',
    });
    await drain();
    const rows = await messagesOfJob(r.body.jobId);
    const byPhone = new Map(rows.map((m) => [`+${m.phone}`, m]));
    for (const n of berlinNumbers) {
      expect(byPhone.get(n)).toMatchObject({ status: 'SCHEDULED', pending: 1, due_at: BERLIN_0800, scheduled_at: BERLIN_0800, time_zone: 'Europe/Berlin', sent_at: null });
      expect(await simRows(t, byPhone.get(n)!.id)).toHaveLength(0);
    }
    for (const n of [newYorkContact, us, florida]) expect(byPhone.get(n)!.status, n).toMatch(/SENT|DELIVERED|READ/);
    deferredIds = berlinNumbers.map((n) => byPhone.get(n)!.id);
    // The log shows a deferred message as scheduled, with when it goes out.
    const log = await logRecord(t, deferredIds[0]!, acc.apiKey);
    expect(log).toMatchObject({ status: 'SCHEDULED', scheduledAt: '2026-06-11T06:00:00.000Z' });
    const job = (await t.api('GET', `/api/rcs/batch/${r.body.jobId}/status`, undefined, { key: acc.apiKey })).body.job;
    expect(job.progress).toMatchObject({ total: 5, pending: 2 });
    expect(r.body).not.toHaveProperty('scheduleTime');
  });

  it('a batch whose every recipient is held back answers scheduled: true from its first opening (issue #42)', async () => {
    const r = await t.api('POST', '/api/rcs/send-batch', batch([fresh(), fresh()]), { key: acc.apiKey });
    // 200 as for a scheduled batch (spec §4.1: 200 when scheduled, 202 when queued to go now).
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      scheduled: true,
      queued: true,
      scheduleTime: '2026-06-11T06:00:00.000Z',
      localScheduleTime: '2026-06-11T08:00:00.000+02:00',
      effectiveTimezone: 'Europe/Berlin',
      timezoneSource: 'recipient',
      quietHours: { deferred: 2 },
    });
    for (const m of await messagesOfJob(r.body.jobId)) expect(m).toMatchObject({ status: 'SCHEDULED', due_at: BERLIN_0800 });
  });

  it('a deferred message is delivered once, when the clock passes its opening', async () => {
    expect(deferredIds).toHaveLength(2);
    clock.set(BERLIN_0800 - 1000);
    await drain();
    for (const id of deferredIds) expect((await messageRow(t, id))!.status).toBe('SCHEDULED');
    clock.set(BERLIN_0800 + 1000);
    await drain();
    for (const id of deferredIds) {
      const row = (await messageRow(t, id))!;
      expect(row.status).toMatch(/SENT|DELIVERED|READ/);
      expect(row.sent_at).toBe(BERLIN_0800 + 1000);
      expect(await simRows(t, id)).toHaveLength(1);
    }
    await drain();
    for (const id of deferredIds) expect(await simRows(t, id)).toHaveLength(1);
    clock.set(NIGHT_IN_BERLIN);
  });

  it('several dispatchers (instances) claim each deferred message once', async () => {
    const numbers = Array.from({ length: 30 }, () => fresh());
    const r = await t.api('POST', '/api/rcs/send-batch', batch(numbers, { batchSize: 10, delayMs: 1000 }), { key: acc.apiKey });
    expect(r.body.quietHours).toMatchObject({ deferred: 30, earliestOpening: '2026-06-11T06:00:00.000Z', latestOpening: '2026-06-11T06:00:00.000Z' });
    const instances = [t.ctx.dispatcher, ...[1, 2].map(() => new Dispatcher({ db: t.ctx.db, clock, carriers: t.ctx.carriers, accounts: t.ctx.services.accounts, events: t.ctx.messageEvents, logger: createLogger('silent'), options: { ...DEFAULT_DISPATCHER_OPTIONS, claimLimit: 7 } }))];
    clock.set(BERLIN_0800);
    for (let round = 0; round < 10; round++) await Promise.all(instances.map((d) => d.tick()));
    const rows = await messagesOfJob(r.body.jobId);
    expect(rows).toHaveLength(30);
    for (const m of rows) {
      expect(m.status).toMatch(/SENT|DELIVERED|READ/);
      expect(await simRows(t, m.id)).toHaveLength(1);
    }
    clock.set(NIGHT_IN_BERLIN);
  });

  it('a message accepted inside the window but handed over after it closed (a backlog, an outage) waits for the next opening', async () => {
    clock.set(Date.UTC(2026, 5, 11, 18, 59)); // 20:59 in Berlin: inside
    const r = await t.api('POST', '/api/rcs/send-batch', batch([fresh(), fresh()]), { key: acc.apiKey });
    expect(r.body.quietHours).toEqual({ enabled: true, transactional: false, deferred: 0 });
    const accepted = await messagesOfJob(r.body.jobId);
    for (const m of accepted) expect(m).toMatchObject({ status: 'SENDING', quiet_place: 'DE|||480-1260|1234567' });
    clock.set(Date.UTC(2026, 5, 11, 19, 30)); // 21:30: nothing was handed over in time
    await drain();
    const next = Date.UTC(2026, 5, 12, 6, 0);
    for (const m of await messagesOfJob(r.body.jobId)) {
      expect(m).toMatchObject({ status: 'SCHEDULED', pending: 1, due_at: next, scheduled_at: next, attempts: 0 });
      expect(await simRows(t, m.id)).toHaveLength(0);
    }
    clock.set(next);
    await drain();
    for (const m of await messagesOfJob(r.body.jobId)) {
      expect(m.status).toMatch(/SENT|DELIVERED|READ/);
      expect(await simRows(t, m.id)).toHaveLength(1);
    }
    // A transactional message carries no place: never held back.
    const tx = await t.api('POST', '/api/rcs/send-batch', batch([fresh()], { transactional: true }), { key: acc.apiKey });
    expect((await messagesOfJob(tx.body.jobId))[0]!.quiet_place).toBeNull();
    clock.set(NIGHT_IN_BERLIN);
  });

  it('a single send at night is queued until 08:00 local (RCS and SMS); cancelling it works like a scheduled one', async () => {
    const r = await t.api('POST', '/api/rcs/send', text(fresh()), { key: acc.apiKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // Held back: the answer says scheduled, and when it goes (issue #42).
    const held = { scheduled: true, scheduleTime: '2026-06-11T06:00:00.000Z', localScheduleTime: '2026-06-11T08:00:00.000+02:00', effectiveTimezone: 'Europe/Berlin', timezoneSource: 'recipient', deferredUntil: '2026-06-11T06:00:00.000Z' };
    expect(r.body).toMatchObject({ success: true, ...held, status: 'SCHEDULED', queued: true, method: null });
    expect(await simRows(t, r.body.messageRecordId)).toHaveLength(0);
    const sms = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: 'Sale tonight', sendernameId: acc.senders.sms }, { key: acc.apiKey });
    expect(sms.status, JSON.stringify(sms.body)).toBe(200);
    expect(sms.body).toMatchObject({ ...held, status: 'SCHEDULED', queued: true });
    expect((await t.api('DELETE', `/api/messages/${r.body.messageRecordId}`, undefined, { key: acc.apiKey })).status).toBe(200);
    expect(await messageRow(t, r.body.messageRecordId)).toBeUndefined();
  });

  it('a transactional send goes out at night (RCS, SMS, batch)', async () => {
    const r = await t.api('POST', '/api/rcs/send', text(fresh(), { content: { text: 'Your code is 123456' }, transactional: true }), { key: acc.apiKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.status).toMatch(/SENT|DELIVERED|READ/);
    expect(r.body).toMatchObject({ scheduled: false });
    expect(r.body).not.toHaveProperty('deferredUntil');
    expect(r.body).not.toHaveProperty('scheduleTime');
    expect(await simRows(t, r.body.messageRecordId)).toHaveLength(1);
    const sms = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: fresh(), message: 'Your code is 654321', sendernameId: acc.senders.sms, transactional: true }, { key: acc.apiKey });
    expect(sms.body.status, JSON.stringify(sms.body)).toMatch(/SENT|DELIVERED/);
    expect(sms.body.scheduled).toBe(false);
    const b = await t.api('POST', '/api/rcs/send-batch', batch([fresh(), fresh()], { transactional: true }), { key: acc.apiKey });
    expect(b.body.quietHours).toEqual({ enabled: true, transactional: true, deferred: 0 });
    await drain();
    for (const m of await messagesOfJob(b.body.jobId)) expect(m.status).toMatch(/SENT|DELIVERED|READ/);
    // Not a boolean: refused at the door.
    const bad = await t.api('POST', '/api/rcs/send', text(fresh(), { transactional: 'yes' }), { key: acc.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('transactional');
  });

  it('a scheduled send is judged at its scheduled time', async () => {
    const night = await t.api('POST', '/api/rcs/send', text(fresh(), { scheduleAt: '2026-06-11T22:30:00' }), { key: acc.apiKey });
    expect(night.body).toMatchObject({ scheduled: true, scheduleTime: '2026-06-11T20:30:00.000Z', deferredUntil: '2026-06-12T06:00:00.000Z' });
    expect((await messageRow(t, night.body.messageId))!).toMatchObject({ status: 'SCHEDULED', due_at: Date.UTC(2026, 5, 12, 6), scheduled_at: Date.UTC(2026, 5, 12, 6) });
    const day = await t.api('POST', '/api/rcs/send', text(fresh(), { scheduleAt: '2026-06-11T10:00:00' }), { key: acc.apiKey });
    expect(day.body).toMatchObject({ scheduled: true, scheduleTime: '2026-06-11T08:00:00.000Z' });
    expect(day.body).not.toHaveProperty('deferredUntil');
  });

  it("an account's window override applies (Germany 09:00–18:00 on weekdays)", async () => {
    await setQuiet({ quietHoursWindows: { DE: { start: '09:00', end: '18:00', days: [1, 2, 3, 4, 5] } } });
    clock.set(Date.UTC(2026, 5, 12, 17, 0)); // Friday 19:00 in Berlin → Monday 09:00
    const r = await t.api('POST', '/api/rcs/send', text(fresh()), { key: acc.apiKey });
    expect(r.body.deferredUntil).toBe('2026-06-15T07:00:00.000Z');
    await setQuiet({ quietHoursWindows: null });
    clock.set(NIGHT_IN_BERLIN);
  });

  it('previews say how many recipients are deferred and until when, or that a send is transactional', async () => {
    const p = await t.api('POST', '/api/rcs/previews/send-batch', batch([fresh(), fresh(), us]), { key: acc.apiKey });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    expect(p.body.data.quietHours).toEqual({ enabled: true, transactional: false, deferred: 2, earliestOpening: '2026-06-11T06:00:00.000Z', latestOpening: '2026-06-11T06:00:00.000Z' });
    expect(p.body.data.warnings).toContainEqual(expect.objectContaining({ code: 'quiet_hours_deferred', message: expect.stringContaining('2 of 3 recipients') }));
    // The share page says it before approval, next to when and to whom.
    const c = new WebClient(t.url);
    expect((await c.login(acc.email, acc.password, acc.totpSecret, '/console', clock.now())).status).toBe(303);
    const share = await c.get(new URL(p.body.data.share_url as string).pathname);
    expect(share.status).toBe(200);
    expect(share.text).toMatch(/data-testid="quiet-hours">2 of 3 recipients deferred \(inside quiet hours, their local time\) until 2026-06-11 06:00 UTC; never dropped\.</);
    const tx = await t.api('POST', '/api/rcs/previews/send-sms', { phoneNumber: fresh(), message: 'Your code is 111111', sendernameId: acc.senders.sms, transactional: true }, { key: acc.apiKey });
    expect(tx.status, JSON.stringify(tx.body)).toBe(201);
    expect(tx.body.data.quietHours).toEqual({ enabled: true, transactional: true, deferred: 0 });
    expect(tx.body.data.warnings).toContainEqual(expect.objectContaining({ code: 'quiet_hours_exempt' }));
    expect((await c.get(new URL(tx.body.data.share_url as string).pathname)).text).toContain('Transactional: exempt — goes out at once, also at night.');
  });

  it('a preview is stale when the quiet-hours setting changed since it was made; sent as approved otherwise', async () => {
    await setQuiet({ approvalRequired: false });
    const make = async () => (await t.api('POST', '/api/rcs/previews/send', text(fresh()), { key: acc.apiKey })).body.data.preview_id as string;
    const unchanged = await make();
    const sent = await t.api('POST', `/api/rcs/previews/${unchanged}/send`, {}, { key: acc.apiKey });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.data ?? sent.body).toMatchObject({ status: 'SCHEDULED', deferredUntil: '2026-06-11T06:00:00.000Z' });

    const changed = await make();
    await setQuiet({ quietHoursWindows: { DE: { start: '07:00', end: '23:30' } } });
    const stale = await t.api('POST', `/api/rcs/previews/${changed}/send`, {}, { key: acc.apiKey });
    expect(stale.status, JSON.stringify(stale.body)).toBe(409);
    expect(stale.body.error.code).toBe('PREVIEW_STALE');
    expect(stale.body.error.changedFields).toContain('quiet hours');
    expect(stale.body.error.message).toContain("the account's quiet-hours setting");

    const off = await make();
    await setQuiet({ quietHours: false, quietHoursWindows: null });
    expect((await t.api('POST', `/api/rcs/previews/${off}/send`, {}, { key: acc.apiKey })).body.error.code).toBe('PREVIEW_STALE');
    await setQuiet({ quietHours: true, approvalRequired: true });
  });

  it('a US number goes by its area code (issue #42): Los Angeles at 09:00 Pacific goes out; toll-free waits for the whole country', async () => {
    // 16:00Z on Thursday 11 June: 09:00 in Los Angeles, 12:00 in New York, 06:00 in Honolulu, 18:00 in Berlin.
    clock.set(Date.UTC(2026, 5, 11, 16, 0));
    const la = '+13107365001';
    const tollFree = '+18007365001';
    const preview = await t.api('POST', '/api/rcs/previews/send-batch', batch([la, tollFree]), { key: acc.apiKey });
    expect(preview.status, JSON.stringify(preview.body)).toBe(201);
    // The preview and the send agree: one recipient waits, for 08:00 in Honolulu (18:00Z).
    const waits = { enabled: true, transactional: false, deferred: 1, earliestOpening: '2026-06-11T18:00:00.000Z', latestOpening: '2026-06-11T18:00:00.000Z' };
    expect(preview.body.data.quietHours).toEqual(waits);
    const r = await t.api('POST', '/api/rcs/send-batch', batch([la, tollFree]), { key: acc.apiKey });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.quietHours).toEqual(waits);
    await drain();
    const byPhone = new Map((await messagesOfJob(r.body.jobId)).map((m) => [`+${m.phone}`, m]));
    expect(byPhone.get(la)).toMatchObject({ status: expect.stringMatching(/SENT|DELIVERED|READ/), quiet_place: 'US|310||480-1260|1234567' });
    expect(await simRows(t, byPhone.get(la)!.id)).toHaveLength(1);
    expect(byPhone.get(tollFree)).toMatchObject({ status: 'SCHEDULED', due_at: Date.UTC(2026, 5, 11, 18), time_zone: 'Pacific/Honolulu', quiet_place: 'US|||480-1260|1234567' });

    // 03:00Z: 20:00 in Los Angeles (open) and 23:00 in New York (quiet until 08:00 Eastern).
    clock.set(Date.UTC(2026, 5, 12, 3, 0));
    const evening = await t.api('POST', '/api/rcs/send', text('+13237365002'), { key: acc.apiKey });
    expect(evening.status, JSON.stringify(evening.body)).toBe(200);
    expect(evening.body.status).toMatch(/SENT|DELIVERED|READ/);
    expect(evening.body).not.toHaveProperty('deferredUntil');
    const east = await t.api('POST', '/api/rcs/send', text('+12127365002'), { key: acc.apiKey });
    expect(east.body).toMatchObject({ status: 'SCHEDULED', deferredUntil: '2026-06-12T12:00:00.000Z' });
    expect((await messageRow(t, east.body.messageRecordId))!.time_zone).toBe('America/New_York');
    clock.set(NIGHT_IN_BERLIN);
  });
});

describe("quiet hours on the console's settings page", () => {
  it('explains the defaults, switches quiet hours on and off and edits the windows; unreadable lines are refused', async () => {
    const other = await t.createAccount();
    const c = new WebClient(t.url);
    expect((await c.login(other.email, other.password, other.totpSecret, '/console/settings', clock.now())).status).toBe(303);
    const page = await c.get('/console/settings');
    expect(page.text).not.toMatch(/name="quietHours"[^>]*checked/);
    expect(page.text).toContain('France: 08:00–20:00, Monday to Saturday; nothing on Sundays.');
    expect(page.text).toContain('Florida or Oklahoma area code 08:00–20:00');
    expect(page.text).toContain('for US and Canadian numbers their area code');
    const base = { csrf: WebClient.hidden(page.text, 'csrf'), name: 'Quiet Co', timezone: 'Europe/Berlin', approvalRequired: 'on', unsubscribeUrl: '', formPerFormPerHour: '30', formPerFormPerDay: '200', formPerAccountPerHour: '100', formPerAccountPerDay: '1000', optOutConfirmation: 'on' };
    expect((await c.post('/console/settings', { ...base, quietHours: 'on', quietHoursWindows: 'de 09:00-20:00\nFR 08:00-19:00 Mon-Fri' })).status).toBe(303);
    expect(await t.ctx.services.accounts.get(other.accountId)).toMatchObject({ quietHours: true, quietHoursWindows: { DE: { start: '09:00', end: '20:00' }, FR: { start: '08:00', end: '19:00', days: [1, 2, 3, 4, 5] } } });
    const saved = await c.get('/console/settings');
    expect(saved.text).toMatch(/name="quietHours"[^>]*checked/);
    expect(saved.text).toContain('DE 09:00-20:00\nFR 08:00-19:00 Mon-Fri</textarea>');
    for (const bad of ['Germany 9 to 5', 'DE 20:00-09:00', 'DE 09:00-20:00 Someday', 'XX1 09:00-20:00']) {
      const r = await c.post('/console/settings', { ...base, quietHours: 'on', quietHoursWindows: bad });
      expect(r.status, bad).toBe(400);
      expect(r.text).toContain('The settings were not saved');
    }
    expect((await t.ctx.services.accounts.get(other.accountId)).quietHoursWindows).toHaveProperty('DE');
    expect((await c.post('/console/settings', { ...base, quietHoursWindows: '' })).status).toBe(303);
    expect(await t.ctx.services.accounts.get(other.accountId)).toMatchObject({ quietHours: false, quietHoursWindows: {} });
  });

  it('the service refuses malformed windows with 400 VALIDATION_ERROR', async () => {
    for (const quietHoursWindows of [{ de: { start: '09:00', end: '20:00' } }, { DE: { start: '9', end: '20:00' } }, { DE: { start: '09:00', end: '20:00', days: [8] } }, { DE: { start: '09:00' } }]) {
      await expect(t.ctx.services.accounts.updateSettings(acc.accountId, { quietHoursWindows } as never)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });
});
