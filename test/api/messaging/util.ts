import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { TestAccount, TestServer } from '../../helpers/server.js';

/** Polls `probe` until it returns something truthy (or `until` accepts it); fails after `timeoutMs`. */
export async function waitFor<T>(probe: () => Promise<T> | T, opts: { timeoutMs?: number; until?: (v: T) => boolean; what?: string } = {}): Promise<T> {
  const end = Date.now() + (opts.timeoutMs ?? 10_000);
  let last: T;
  for (;;) {
    last = await probe();
    if (opts.until ? opts.until(last) : Boolean(last)) return last;
    if (Date.now() > end) throw new Error(`timed out waiting for ${opts.what ?? 'condition'}; last value: ${JSON.stringify(last)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The account's balance in credits, straight from the database. */
export async function creditsOf(t: TestServer, accountId: string): Promise<number> {
  const row = await t.ctx.db.selectFrom('accounts').select('credits_milli').where('id', '=', accountId).executeTakeFirstOrThrow();
  return row.credits_milli / 1000;
}

export async function messageRow(t: TestServer, id: string) {
  return t.ctx.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function simRows(t: TestServer, messageId: string) {
  return t.ctx.db.selectFrom('sim_messages').selectAll().where('message_id', '=', messageId).execute();
}

/** GET /log?messageId= as the given account: the record, or undefined. */
export async function logRecord(t: TestServer, id: string, key?: string): Promise<Record<string, any> | undefined> {
  const r = await t.api('GET', `/api/messages/log?messageId=${id}`, undefined, key ? { key } : {});
  expect(r.status).toBe(200);
  return r.body.messages[0];
}

/** Waits until the message's log status is one of `statuses`. */
export async function waitForStatus(t: TestServer, id: string, statuses: string[], key?: string): Promise<Record<string, any>> {
  return (await waitFor(() => logRecord(t, id, key), { until: (r) => r !== undefined && statuses.includes(r.status), what: `${id} to reach ${statuses.join('/')}` }))!;
}

export const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

/** A valid German mobile number whose last four digits are `last4` (simulated network behaviour). */
export const de = (middle: number, last4 = '0001') => `+49151${String(middle).padStart(4, '0')}${last4}`;

export function rcsText(account: TestAccount, phoneNumber: string, text: string, extra: Record<string, unknown> = {}) {
  return { phoneNumber, messageType: 'text', content: { text }, sendernameId: account.senders.rcs, ...extra };
}
