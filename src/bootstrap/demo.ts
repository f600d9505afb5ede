import type { ApiKeysService } from '../accounts/api-keys.js';
import type { AccountsService } from '../accounts/service.js';
import type { UsersService } from '../accounts/users.js';
import type { Db } from '../platform/db/database.js';
import type { SendersService } from '../senders/service.js';
import { inTransaction } from '../platform/db/database.js';
import { lockForTransaction } from '../platform/db/locks.js';
import { ALL_PERMISSIONS, DEFAULT_PERMISSIONS } from '../platform/permissions.js';

export const DEMO_EMAIL = 'demo@example.com';
/** Test phones of the demo test sender: the simulated network's RCS-capable numbers (docs/carriers.md). */
export const DEMO_TEST_PHONES = ['+4915550000001', '+4915550000002'];

export interface DemoCredentials {
  accountId: string;
  email: string;
  password: string;
  totpSecret: string;
  otpauthUri: string;
  /** For connecting an assistant (the `claude mcp add` line): every send waits for a person's approval. */
  assistantKey: string;
  /** For the operator's own code on the REST API: every permission, sends directly. */
  automationKey: string;
  senders: { id: string; name: string; type: string; isTest: boolean }[];
}

/**
 * First start on an empty database: a demo account with a person, approved senders on the
 * simulated network and two keys — an assistant key whose sends need approval (what the printed
 * `claude mcp add` line uses) and an automation key with every permission that sends directly.
 * Returns null when any account already exists.
 */
export async function seedDemoIfEmpty({ db, accounts, users, apiKeys, senders }: { db: Db; accounts: AccountsService; users: UsersService; apiKeys: ApiKeysService; senders: SendersService }): Promise<DemoCredentials | null> {
  const anyAccount = (q: Db) => q.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  if (await anyAccount(db)) return null;
  const created = await inTransaction(db, async (tx) => {
    // Instances starting together on one empty PostgreSQL database: one seeds, the others wait
    // here and then find its account.
    await lockForTransaction(tx, 'firstStart', ['demo']);
    if (await anyAccount(tx)) return null;
    const account = await accounts.create(
      {
        name: 'Demo Company',
        timezone: 'Europe/Berlin',
        credits: 1000,
        companyProfile: { company_name: 'Demo Company', company_email: 'hello@example.com', company_website: 'https://example.com', company_country: 'Germany' },
      },
      tx,
    );
    const user = await users.create(account.id, DEMO_EMAIL, undefined, tx);
    const rcs = await senders.create(account.id, { name: 'Demo RCS Agent', type: 'RCS', status: 'APPROVED', isDefault: true }, tx);
    const sms = await senders.create(account.id, { name: 'DemoCo', type: 'SMS', status: 'APPROVED', isDefault: true }, tx);
    const test = await senders.create(account.id, { name: 'Demo RCS Test Agent', type: 'RCS', status: 'APPROVED', isTest: true, testPhones: DEMO_TEST_PHONES }, tx);
    return { account, user, senders: [rcs, sms, test] };
  });
  if (!created) return null;
  const assistant = await apiKeys.create(created.account.id, 'Demo assistant key (sends need approval)', DEFAULT_PERMISSIONS, { sendsNeedApproval: true });
  const automation = await apiKeys.create(created.account.id, 'Demo automation key (all permissions, sends directly)', ALL_PERMISSIONS);
  return {
    accountId: created.account.id,
    email: created.user.user.email,
    password: created.user.generatedPassword!,
    totpSecret: created.user.totpSecret,
    otpauthUri: created.user.otpauthUri,
    assistantKey: assistant.key,
    automationKey: automation.key,
    senders: created.senders.map((s) => ({ id: s.id, name: s.name, type: s.type, isTest: s.isTest })),
  };
}
