import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../helpers/server.js';
import { settled } from '../../helpers/settled.js';
import { createHook, startReceiver, startWebhookServer, v1Values, verifyWebhook, type Receiver } from './helpers.js';

let t: TestServer;
let rx: Receiver;

beforeAll(async () => {
  t = await startWebhookServer();
  rx = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

describe('webhook endpoints (REST)', () => {
  it('creates an endpoint with its secret, lists and gets it without the secret', async () => {
    const r = await t.api('POST', '/api/rcs/webhooks', { url: `${rx.url}/a`, events: ['delivery_status', 'delivery_status', 'button_interaction'], description: 'CRM' });
    expect(r.status).toBe(201);
    const w = r.body.data;
    expect(w.id).toMatch(/^whk_[0-9A-Z]{26}$/);
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(w).toMatchObject({ url: `${rx.url}/a`, events: ['delivery_status', 'button_interaction'], description: 'CRM', enabled: true, source: 'user', secretHint: `…${w.secret.slice(-4)}` });
    expect(w.health).toEqual({ status: 'healthy', consecutiveFailures: 0, failingSince: null, lastSuccessAt: null, lastFailureAt: null, lastError: null, pendingDeliveries: 0, failedDeliveries: 0, circuit: 'closed', nextProbeAt: null });

    const list = await t.api('GET', '/api/rcs/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: any) => x.id)).toContain(w.id);
    expect(list.body.pagination).toMatchObject({ hasNext: false, nextCursor: null });
    const one = await t.api('GET', `/api/rcs/webhooks/${w.id}`);
    expect(one.body.data.secret).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(w.secret);

    const revealed = await t.api('GET', `/api/rcs/webhooks/${w.id}/secret`);
    expect(revealed.status).toBe(200);
    expect(revealed.body.data).toEqual({ id: w.id, secret: w.secret, previousSecret: null, previousSecretExpiresAt: null });
    expect(revealed.headers.get('cache-control')).toBe('no-store');

    // Stored sealed, never in the clear.
    const row = await t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', w.id).executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(w.secret);
    expect(JSON.stringify(row)).not.toContain(w.secret.slice(6, 30));
  });

  it('validates: events, URL, duplicates; updates partially; deletes', async () => {
    expect((await t.api('POST', '/api/rcs/webhooks', { url: `${rx.url}/b`, events: [] })).status).toBe(400);
    const bad = await t.api('POST', '/api/rcs/webhooks', { url: `${rx.url}/b`, events: ['nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('events[0]');
    expect((await t.api('POST', '/api/rcs/webhooks', { url: 'ftp://example.com/x', events: ['delivery_status'] })).status).toBe(400);
    expect((await t.api('POST', '/api/rcs/webhooks', { url: 'https://u:p@example.com/x', events: ['delivery_status'] })).status).toBe(400);

    const { id } = await createHook(t, `${rx.url}/b`, ['delivery_status']);
    const dup = await t.api('POST', '/api/rcs/webhooks', { url: `${rx.url}/b`, events: ['form_submission'] });
    expect(dup.status).toBe(409);
    expect(dup.body.error.existingWebhookId).toBe(id);

    const up = await t.api('PUT', `/api/rcs/webhooks/${id}`, { events: ['form_submission', 'form_optin_confirmed'], enabled: false });
    expect(up.status).toBe(200);
    expect(up.body.data).toMatchObject({ url: `${rx.url}/b`, events: ['form_submission', 'form_optin_confirmed'], enabled: false, description: 'test receiver' });
    expect((await t.api('PUT', `/api/rcs/webhooks/${id}`, {})).status).toBe(400);

    expect((await t.api('GET', '/api/rcs/webhooks/whk_bad')).status).toBe(400);
    expect((await t.api('GET', '/api/rcs/webhooks/whk_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
    const del = await t.api('DELETE', `/api/rcs/webhooks/${id}`);
    expect(del.body).toEqual({ success: true, data: { id, deleted: true, droppedPendingDeliveries: 0 } });
    expect((await t.api('GET', `/api/rcs/webhooks/${id}`)).status).toBe(404);
  });

  it('messages:read reads; changing, testing and revealing need webhooks:manage; other accounts see 404', async () => {
    const { id } = await createHook(t, `${rx.url}/perm`, ['delivery_status']);
    const reader = await t.createKey(t.account.accountId, ['messages:read']);
    expect((await t.api('GET', '/api/rcs/webhooks', undefined, { key: reader })).status).toBe(200);
    expect((await t.api('GET', `/api/rcs/webhooks/${id}/deliveries`, undefined, { key: reader })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/rcs/webhooks', { url: `${rx.url}/x`, events: ['delivery_status'] }],
      ['PUT', `/api/rcs/webhooks/${id}`, { enabled: false }],
      ['DELETE', `/api/rcs/webhooks/${id}`, undefined],
      ['GET', `/api/rcs/webhooks/${id}/secret`, undefined],
      ['POST', `/api/rcs/webhooks/${id}/rotate-secret`, {}],
      ['POST', `/api/rcs/webhooks/${id}/test`, undefined],
    ] as const) {
      const r = await t.api(method, path, body, { key: reader });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.error.requiredPermission).toBe('webhooks:manage');
    }
    const noRead = await t.createKey(t.account.accountId, ['contacts:read']);
    expect((await t.api('GET', '/api/rcs/webhooks', undefined, { key: noRead })).status).toBe(403);
    expect((await t.api('GET', '/api/rcs/webhooks', undefined, { key: null })).status).toBe(401);

    const other = await t.createAccount();
    expect((await t.api('GET', `/api/rcs/webhooks/${id}`, undefined, { key: other.apiKey })).status).toBe(404);
    expect((await t.api('GET', `/api/rcs/webhooks/${id}/secret`, undefined, { key: other.apiKey })).status).toBe(404);
    expect((await t.api('POST', `/api/rcs/webhooks/${id}/test`, undefined, { key: other.apiKey })).status).toBe(404);
    expect((await t.api('GET', '/api/rcs/webhooks', undefined, { key: other.apiKey })).body.data).toEqual([]);
  });
});

describe('signing (spec §5.5)', () => {
  it('a test event is signed over the exact bytes sent, with event id and attempt headers; a tampered body fails', async () => {
    const { id, secret } = await createHook(t, `${rx.url}/sig`, ['delivery_status']);
    const before = rx.requests.length;
    const r = await t.api('POST', `/api/rcs/webhooks/${id}/test`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ delivered: true, statusCode: 200, error: null });
    const got = rx.requests.slice(before).find((x) => x.path === '/sig')!;
    expect(got.method).toBe('POST');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-rcs-signature']).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(got.raw, got.headers['x-rcs-signature'], secret, 300)).toBe(true);
    expect(got.headers['x-rcs-event-id']).toBe(r.body.data.eventId);
    expect(got.headers['x-rcs-event']).toBe('webhook_test');
    expect(got.headers['x-rcs-delivery-attempt']).toBe('1');
    expect(got.headers['x-rcs-delivery-id']).toBe(r.body.data.deliveryId);
    expect(got.headers['x-rcs-webhook-id']).toBe(id);
    expect(got.json).toMatchObject({ id: r.body.data.eventId, event: 'webhook_test', webhook: { id, url: `${rx.url}/sig` } });
    expect(Object.keys(got.json).slice(0, 3)).toEqual(['id', 'event', 'createdAt']);
    expect(Number.isNaN(Date.parse(got.json.createdAt))).toBe(false);

    // A changed byte, a wrong secret, a stale timestamp: refused.
    const tampered = Buffer.from(got.raw);
    tampered[tampered.length - 2] = tampered[tampered.length - 2]! ^ 1;
    expect(verifyWebhook(tampered, got.headers['x-rcs-signature'], secret)).toBe(false);
    expect(verifyWebhook(Buffer.from(JSON.stringify(got.json, null, 1)), got.headers['x-rcs-signature'], secret)).toBe(false);
    expect(verifyWebhook(got.raw, got.headers['x-rcs-signature'], `${secret}x`)).toBe(false);
    expect(verifyWebhook(got.raw, got.headers['x-rcs-signature'], secret, 300, Math.floor(Date.now() / 1000) + 3600)).toBe(false);

    // The log shows the attempt.
    const log = await t.api('GET', `/api/rcs/webhooks/${id}/deliveries`);
    expect(log.body.data[0]).toMatchObject({ id: r.body.data.deliveryId, event: 'webhook_test', status: 'delivered', attempts: 1, lastStatusCode: 200 });
    expect(log.body.data[0].log[0]).toMatchObject({ attempt: 1, outcome: 'success', statusCode: 200, manual: true, responseSnippet: 'ok' });
    expect(typeof log.body.data[0].log[0].latencyMs).toBe('number');
  });

  it('rotation: both secrets sign during the overlap (two v1), only the new one after an overlap of 0', async () => {
    const { id, secret: oldSecret } = await createHook(t, `${rx.url}/rot`, ['delivery_status']);
    const rot = await t.api('POST', `/api/rcs/webhooks/${id}/rotate-secret`, { overlapHours: 2 });
    expect(rot.status).toBe(200);
    const newSecret = rot.body.data.secret;
    expect(newSecret).not.toBe(oldSecret);
    expect(rot.body.data.previousSecret).toBe(oldSecret);
    expect(Date.parse(rot.body.data.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(2 * 3_600_000 - 60_000);
    expect((await t.api('GET', `/api/rcs/webhooks/${id}`)).body.data.previousSecretExpiresAt).toBe(rot.body.data.previousSecretExpiresAt);

    const before = rx.requests.length;
    await t.api('POST', `/api/rcs/webhooks/${id}/test`);
    const got = rx.requests.slice(before).find((x) => x.path === '/rot')!;
    const v1 = v1Values(got.headers['x-rcs-signature']);
    expect(v1).toHaveLength(2);
    // A receiver still on the old secret and one already on the new one both accept it.
    expect(verifyWebhook(got.raw, got.headers['x-rcs-signature'], oldSecret)).toBe(true);
    expect(verifyWebhook(got.raw, got.headers['x-rcs-signature'], newSecret)).toBe(true);
    expect(verifyWebhook(got.raw, `t=${/t=(\d+)/.exec(got.headers['x-rcs-signature'] as string)![1]},v1=${v1[0]}`, newSecret)).toBe(true);
    expect(verifyWebhook(got.raw, `t=${/t=(\d+)/.exec(got.headers['x-rcs-signature'] as string)![1]},v1=${v1[1]}`, oldSecret)).toBe(true);
    const tampered = Buffer.concat([got.raw, Buffer.from(' ')]);
    expect(verifyWebhook(tampered, got.headers['x-rcs-signature'], oldSecret)).toBe(false);
    expect(verifyWebhook(tampered, got.headers['x-rcs-signature'], newSecret)).toBe(false);

    const rot2 = await t.api('POST', `/api/rcs/webhooks/${id}/rotate-secret`, { overlapHours: 0 });
    expect(rot2.body.data.previousSecret).toBeNull();
    const before2 = rx.requests.length;
    await t.api('POST', `/api/rcs/webhooks/${id}/test`);
    const got2 = rx.requests.slice(before2).find((x) => x.path === '/rot')!;
    expect(v1Values(got2.headers['x-rcs-signature'])).toHaveLength(1);
    expect(verifyWebhook(got2.raw, got2.headers['x-rcs-signature'], rot2.body.data.secret)).toBe(true);
    expect(verifyWebhook(got2.raw, got2.headers['x-rcs-signature'], newSecret)).toBe(false);
  });

  it('a test to a failing receiver is logged as failed, once, and can be redelivered by hand', async () => {
    const { id, secret } = await createHook(t, `${rx.url}/fail-test`, ['delivery_status']);
    rx.respond((r) => (r.path === '/fail-test' ? { status: 500, body: 'boom' } : { status: 200, body: 'ok' }));
    const r = await t.api('POST', `/api/rcs/webhooks/${id}/test`);
    expect(r.body.data).toMatchObject({ delivered: false, statusCode: 500, error: 'HTTP 500' });
    // No delivery due, leased or in flight: a retry the worker had wrongly queued would have been posted by now.
    await settled(t);
    expect(rx.requests.filter((x) => x.path === '/fail-test')).toHaveLength(1);
    const log = await t.api('GET', `/api/rcs/webhooks/${id}/deliveries?status=failed`);
    expect(log.body.data[0]).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500' });
    expect(log.body.data[0].log[0].responseSnippet).toBe('boom');

    rx.respond(() => ({ status: 204 }));
    const again = await t.api('POST', `/api/rcs/webhooks/${id}/deliveries/${r.body.data.deliveryId}/redeliver`);
    expect(again.body.data).toMatchObject({ delivered: true, statusCode: 204, eventId: r.body.data.eventId });
    const both = rx.requests.filter((x) => x.path === '/fail-test');
    expect(both).toHaveLength(2);
    // Same event, same bytes, next attempt number.
    expect(both[1]!.raw.equals(both[0]!.raw)).toBe(true);
    expect(both[1]!.headers['x-rcs-delivery-attempt']).toBe('2');
    expect(verifyWebhook(both[1]!.raw, both[1]!.headers['x-rcs-signature'], secret)).toBe(true);
    const after = await t.api('GET', `/api/rcs/webhooks/${id}/deliveries`);
    expect(after.body.data[0]).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(after.body.data[0].log.map((a: any) => a.outcome)).toEqual(['failed', 'success']);
    rx.respond(() => ({ status: 200, body: 'ok' }));
    expect((await t.api('POST', `/api/rcs/webhooks/${id}/deliveries/dlv_01ARZ3NDEKTSV4RRFFQ69G5FAV/redeliver`)).status).toBe(404);
  });

  it('is listed in the OpenAPI document with its permissions', async () => {
    const { body } = await t.api('GET', '/openapi.json', undefined, { key: null });
    expect(body.paths['/api/rcs/webhooks'].post['x-required-permission']).toBe('webhooks:manage');
    expect(body.paths['/api/rcs/webhooks'].get['x-required-permission']).toBe('messages:read');
    expect(body.paths['/api/rcs/webhooks/{id}/rotate-secret'].post).toBeDefined();
    expect(body.paths['/api/rcs/webhooks/{id}/deliveries'].get).toBeDefined();
    expect(body.paths['/api/v1/forms'].post['x-required-permission']).toBe('forms:manage');
  });
});
