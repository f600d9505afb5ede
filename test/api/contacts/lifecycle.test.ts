import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContactLifecycle } from '../../../src/contacts/lifecycle.js';
import { ContactsService } from '../../../src/contacts/service.js';
import type { DbOrTx } from '../../../src/platform/db/database.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

/**
 * The hook the messaging area plugs in: deleting or disabling contacts must cancel their
 * scheduled messages in the same transaction. Tested with a fake until messaging exists.
 */
class FakeLifecycle implements ContactLifecycle {
  calls: Array<{ accountId: string; contactIds: string[]; tx: DbOrTx }> = [];
  result = 3;
  fail = false;
  async cancelScheduledFor(accountId: string, contactIds: readonly string[], tx: DbOrTx): Promise<number> {
    this.calls.push({ accountId, contactIds: [...contactIds], tx });
    if (this.fail) throw new Error('messaging is down');
    return this.result;
  }
}

let t: TestServer;
let acc: TestAccount;
let fake: FakeLifecycle;
let contacts: ContactsService;
const phone = (i: number) => `+49151${String(40000000 + i)}`;

beforeAll(async () => {
  t = await startTestServer();
  acc = await t.createAccount();
  fake = new FakeLifecycle();
  const s = t.ctx.services;
  contacts = new ContactsService({ db: t.ctx.db, clock: t.ctx.clock, accounts: s.accounts, fields: s.fields, groups: s.groups, lifecycle: fake, consent: s.consent });
});
afterAll(async () => {
  await t.close();
});

describe('ContactLifecycle hook', () => {
  it('delete calls cancelScheduledFor with the contact inside the transaction and reports the count', async () => {
    const c = await contacts.create(acc.accountId, { phone: phone(1) });
    fake.calls = [];
    const r = await contacts.delete(acc.accountId, c.id);
    expect(r).toEqual({ id: c.id, deleted: true, cancelledMessages: 3 });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]).toMatchObject({ accountId: acc.accountId, contactIds: [c.id] });
    // Called with the open transaction, not the root database handle.
    expect(fake.calls[0]!.tx).not.toBe(t.ctx.db);
    expect(fake.calls[0]!.tx.isTransaction).toBe(true);
  });

  it('bulk disable reports cancelledMessages from the hook, for the account\'s contacts only', async () => {
    const a = await contacts.create(acc.accountId, { phone: phone(2) });
    const b = await contacts.create(acc.accountId, { phone: phone(3) });
    const foreign = (await t.api('POST', '/api/v1/contacts', { phone: phone(4) })).body.data;
    fake.calls = [];
    fake.result = 7;
    const r = await contacts.bulkDisable(acc.accountId, { contactIds: [a.id, b.id, foreign.id], reason: 'test' });
    expect(r.cancelledMessages).toBe(7);
    expect(r.disabledCount).toBe(2);
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.accountId).toBe(acc.accountId);
    expect(fake.calls[0]!.contactIds.sort()).toEqual([a.id, b.id].sort());
    expect(fake.calls[0]!.tx.isTransaction).toBe(true);
  });

  it('disabling through update calls the hook; enabling and other updates do not', async () => {
    const c = await contacts.create(acc.accountId, { phone: phone(5) });
    fake.calls = [];
    await contacts.update(acc.accountId, c.id, { firstName: 'x' });
    expect(fake.calls).toHaveLength(0);
    await contacts.update(acc.accountId, c.id, { disabled: true });
    expect(fake.calls.map((x) => x.contactIds)).toEqual([[c.id]]);
    await contacts.update(acc.accountId, c.id, { disabled: true });
    expect(fake.calls).toHaveLength(1);
    await contacts.bulkEnable(acc.accountId, { contactIds: [c.id] });
    expect(fake.calls).toHaveLength(1);
  });

  it('when the hook fails, nothing is deleted or disabled (one transaction)', async () => {
    const c = await contacts.create(acc.accountId, { phone: phone(6) });
    fake.fail = true;
    try {
      await expect(contacts.delete(acc.accountId, c.id)).rejects.toThrow('messaging is down');
      await expect(contacts.bulkDisable(acc.accountId, { contactIds: [c.id] })).rejects.toThrow('messaging is down');
    } finally {
      fake.fail = false;
    }
    const still = await contacts.get(acc.accountId, c.id);
    expect(still.disabled).toBe(false);
  });

  it('wired to messaging: deleting or disabling a contact cancels its scheduled messages', async () => {
    const scheduleAt = new Date(Date.now() + 3 * 24 * 3600 * 1000).toISOString();
    const schedule = async (to: string) => {
      const r = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: to, message: 'Later', sendernameId: t.account.senders.sms, scheduleAt });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.scheduled).toBe(true);
    };
    const a = (await t.api('POST', '/api/v1/contacts', { phone: phone(7) })).body.data;
    const b = (await t.api('POST', '/api/v1/contacts', { phone: phone(8) })).body.data;
    await schedule(phone(7));
    await schedule(phone(7));
    await schedule(phone(8));
    const disabled = await t.api('PATCH', '/api/v1/contacts/bulk/disable', { contactIds: [a.id] });
    expect(disabled.body).toMatchObject({ disabledCount: 1, cancelledMessages: 2 });
    const deleted = await t.api('DELETE', `/api/v1/contacts/${b.id}`);
    expect(deleted.body.data).toEqual({ id: b.id, deleted: true, cancelledMessages: 1 });
  });
});
