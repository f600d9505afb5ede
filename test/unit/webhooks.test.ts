import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MessagesTable } from '../../src/messaging/tables.js';
import { outboundUrlProblem } from '../../src/platform/net/outbound.js';
import { reportedSteps } from '../../src/webhooks/events.js';
import { buttonWebhookUrl } from '../../src/webhooks/listeners.js';
import { newSigningSecret, SecretBox } from '../../src/webhooks/secret-box.js';
import { computeSignature, parseSignatureHeader, signatureHeader, verifySignature } from '../../src/webhooks/signing.js';
import { RoundRobin } from '../../src/webhooks/fair-order.js';
import { retryableStatus } from '../../src/webhooks/worker.js';

describe('signature header', () => {
  const body = Buffer.from('{"id":"evt_1","event":"webhook_test","text":"Grüße"}', 'utf8');
  it('is t=<seconds>,v1=<hex> over "t." + the raw bytes; two v1 during a rotation', () => {
    const a = newSigningSecret();
    const b = newSigningSecret();
    const header = signatureHeader([a, b], 1772356364, body);
    expect(header).toBe(`t=1772356364,v1=${computeSignature(a, 1772356364, body)},v1=${computeSignature(b, 1772356364, body)}`);
    expect(parseSignatureHeader(header)).toEqual({ t: 1772356364, v1: [computeSignature(a, 1772356364, body), computeSignature(b, 1772356364, body)] });
    expect(verifySignature(header, body, a)).toBe(true);
    expect(verifySignature(header, body, b)).toBe(true);
    expect(verifySignature(header, body, newSigningSecret())).toBe(false);
    expect(verifySignature(header, Buffer.concat([body, Buffer.from('\n')]), a)).toBe(false);
    expect(verifySignature(header, body, a, { toleranceSeconds: 300, nowSeconds: 1772356364 + 301 })).toBe(false);
    expect(verifySignature(header, body, a, { toleranceSeconds: 300, nowSeconds: 1772356364 + 299 })).toBe(true);
    expect(verifySignature('garbage', body, a)).toBe(false);
    expect(verifySignature(undefined, body, a)).toBe(false);
  });
});

describe('sealed secrets', () => {
  it('open only with the key and on the row they were sealed for', () => {
    const box = new SecretBox(randomBytes(32));
    const secret = newSigningSecret();
    const sealed = box.seal(secret, 'whk_A');
    expect(sealed).not.toContain(secret);
    expect(box.open(sealed, 'whk_A')).toBe(secret);
    expect(() => box.open(sealed, 'whk_B')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'whk_A')).toThrow();
    expect(box.seal(secret, 'whk_A')).not.toBe(sealed);
  });
});

describe('delivery_status steps', () => {
  const m = (over: Partial<MessagesTable>) => ({ direction: 'OUTBOUND', sent_at: 1, delivered_at: null, ...over }) as MessagesTable;
  it('reports each status once, filling in a skipped one', () => {
    expect(reportedSteps(m({ status: 'SENT' }), 'SENDING')).toEqual([{ status: 'SENT', previous: 'SENDING' }]);
    expect(reportedSteps(m({ status: 'READ', delivered_at: 2 }), 'SENT')).toEqual([
      { status: 'DELIVERED', previous: 'SENT' },
      { status: 'READ', previous: 'DELIVERED' },
    ]);
    expect(reportedSteps(m({ status: 'READ', delivered_at: 2 }), 'SENDING').map((s) => s.status)).toEqual(['SENT', 'DELIVERED', 'READ']);
    expect(reportedSteps(m({ status: 'FAILED', sent_at: null }), 'SENDING')).toEqual([{ status: 'FAILED', previous: 'SENDING' }]);
    expect(reportedSteps(m({ status: 'SENDING' }), 'SCHEDULED')).toEqual([]);
    expect(reportedSteps(m({ status: 'RECEIVED', direction: 'INBOUND' }), 'RECEIVED')).toEqual([]);
  });
});

describe('button webhookUrl lookup', () => {
  const content = {
    suggestions: [{ reply: { text: 'Yes', postbackData: 'y', webhookUrl: 'https://a.example/reply' } }, { action: { text: 'Call', type: 'dial', dialAction: { phoneNumber: '+1' } } }],
    cardContents: [{ cardActions: [{ text: 'Book', type: 'postback', postbackData: 'b', webhookUrl: 'https://a.example/book' }] }, { cardActions: [{ text: 'Book', type: 'postback', postbackData: 'c' }] }],
  };
  it('matches text, postbackData and kind', () => {
    expect(buttonWebhookUrl(content, { actionType: 'reply', buttonText: 'Yes', postbackData: 'y' })).toBe('https://a.example/reply');
    expect(buttonWebhookUrl(content, { actionType: 'postback', buttonText: 'Book', postbackData: 'b' })).toBe('https://a.example/book');
    expect(buttonWebhookUrl(content, { actionType: 'postback', buttonText: 'Book', postbackData: 'c' })).toBeNull();
    expect(buttonWebhookUrl(content, { actionType: 'postback', buttonText: 'Yes', postbackData: 'y' })).toBeNull();
    expect(buttonWebhookUrl(content, { actionType: 'action', buttonText: 'Call', postbackData: null })).toBeNull();
    expect(buttonWebhookUrl(null, { actionType: 'reply', buttonText: 'Yes', postbackData: 'y' })).toBeNull();
  });
});

describe('outbound URL rules and retry classes', () => {
  it.each([
    ['https://hooks.example.com/x', false, null],
    ['http://hooks.example.com/x', false, 'https'],
    ['http://hooks.example.com/x', true, null],
    ['ftp://hooks.example.com/x', true, 'https'],
    ['https://u:p@hooks.example.com/x', false, 'user info'],
    ['https://hooks.example.com/x#frag', false, 'fragment'],
    ['not a url', false, 'valid'],
  ])('%s (switch %s)', (url, allow, problem) => {
    const p = outboundUrlProblem(url, allow);
    if (problem === null) expect(p).toBeNull();
    else expect(p).toContain(problem);
  });

  it('retries 408, 429 and 5xx only', () => {
    expect([200, 301, 400, 401, 404, 410, 422].some(retryableStatus)).toBe(false);
    expect([408, 429, 500, 502, 503, 504].every(retryableStatus)).toBe(true);
  });
});

describe('fair order of delivery slots', () => {
  it('round-robin over accounts, then over an account\'s endpoints; a backlog never queues ahead of another endpoint', () => {
    const rr = new RoundRobin();
    const groups = [
      { accountId: 'acc_A', endpointId: 'whk_A1', deliveryIds: ['a1', 'a2', 'a3', 'a4'] },
      { accountId: 'acc_A', endpointId: 'whk_A2', deliveryIds: ['b1', 'b2'] },
      { accountId: 'acc_B', endpointId: 'whk_B1', deliveryIds: ['c1', 'c2', 'c3'] },
    ];
    // Accounts alternate; inside acc_A its endpoints alternate.
    expect(rr.pick(groups, 5).map((p) => p.deliveryId)).toEqual(['a1', 'c1', 'b1', 'c2', 'a2']);
    // The next round starts after the last account and endpoint served (acc_A / whk_A1).
    expect(rr.pick(groups, 3).map((p) => p.deliveryId)).toEqual(['c1', 'b1', 'c2']);
    expect(rr.pick([], 3)).toEqual([]);
    expect(rr.pick(groups, 0)).toEqual([]);
    expect(rr.pick(groups, 100)).toHaveLength(9);
  });
});
