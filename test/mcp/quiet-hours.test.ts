import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FakeClock } from '../../src/platform/clock.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { body, mcpClient } from './helpers.js';

/**
 * Quiet hours over MCP (issue #28): rcs_preview and sms_preview say how many recipients wait and until when, or that
 * a transactional send is exempt; the send tools answer deferredUntil / quietHours. 23:00 in Berlin.
 */
const clock = new FakeClock(Date.UTC(2026, 5, 10, 21, 0, 0));
let t: TestServer;
let a: TestAccount;
let c: Client;
beforeAll(async () => {
  t = await startTestServer({ clock, workers: false });
  a = await t.createAccount();
  await t.ctx.services.accounts.updateSettings(a.accountId, { approvalRequired: false, quietHours: true });
  c = await mcpClient(t.url, a.apiKey);
});
afterAll(async () => {
  await c.close();
  await t.close();
});

async function call(name: string, args: Record<string, unknown>) {
  const r = await c.callTool({ name, arguments: args });
  return { isError: r.isError === true, body: body(r) };
}

describe('quiet hours over MCP', () => {
  it('rcs_preview of a batch counts the deferred recipients; rcs_send_batch defers them', async () => {
    const p = await call('rcs_preview', { phoneNumbers: ['+4915112348101', '+4915112348102', '+12127365001'], messageType: 'text', content: { text: 'Sale' }, sendernameId: a.senders.rcs });
    expect(p.isError, JSON.stringify(p.body)).toBe(false);
    expect(p.body.quietHours).toEqual({ enabled: true, transactional: false, deferred: 2, earliestOpening: '2026-06-11T06:00:00.000Z', latestOpening: '2026-06-11T06:00:00.000Z' });
    expect(p.body.warnings.map((w: { code: string }) => w.code)).toContain('quiet_hours_deferred');
    const sent = await call('rcs_send_batch', { preview_id: p.body.preview_id });
    expect(sent.isError, JSON.stringify(sent.body)).toBe(false);
    expect(sent.body.quietHours).toMatchObject({ deferred: 2, earliestOpening: '2026-06-11T06:00:00.000Z' });
    // One recipient goes now: not held back as a whole.
    expect(sent.body.scheduled).toBe(false);
  });

  it('sms_preview of a transactional message says it is exempt; sms_send sends it at night; without the mark it waits', async () => {
    const p = await call('sms_preview', { phoneNumber: '+4915112348103', message: 'Your code is 424242', sendernameId: a.senders.sms, transactional: true });
    expect(p.isError, JSON.stringify(p.body)).toBe(false);
    expect(p.body.quietHours).toEqual({ enabled: true, transactional: true, deferred: 0 });
    expect(p.body.warnings.map((w: { code: string }) => w.code)).toContain('quiet_hours_exempt');
    const sent = await call('sms_send', { preview_id: p.body.preview_id });
    expect(sent.body.status, JSON.stringify(sent.body)).toMatch(/SENT|DELIVERED/);
    const night = await call('rcs_preview', { phoneNumber: '+4915112348104', messageType: 'text', content: { text: 'Sale' }, sendernameId: a.senders.rcs });
    const deferred = await call('rcs_send', { preview_id: night.body.preview_id });
    const held = { scheduled: true, scheduleTime: '2026-06-11T06:00:00.000Z', localScheduleTime: '2026-06-11T08:00:00.000+02:00', effectiveTimezone: 'Europe/Berlin', timezoneSource: 'recipient', deferredUntil: '2026-06-11T06:00:00.000Z' };
    expect(deferred.body).toMatchObject({ ...held, status: 'SCHEDULED', queued: true });
    // sms_send too (issue #42): held back is scheduled, with the time it goes.
    const smsNight = await call('sms_preview', { phoneNumber: '+4915112348105', message: 'Sale tonight', sendernameId: a.senders.sms });
    const smsDeferred = await call('sms_send', { preview_id: smsNight.body.preview_id });
    expect(smsDeferred.isError, JSON.stringify(smsDeferred.body)).toBe(false);
    expect(smsDeferred.body).toMatchObject({ ...held, status: 'SCHEDULED', queued: true });
    expect(sent.body.scheduled).toBe(false);
  });
});
