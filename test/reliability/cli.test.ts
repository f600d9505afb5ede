import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { expectLedgerBalancedFile } from '../billing/invariant.js';
import { cliEntry } from '../helpers/cli.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-cli-'));
afterAll(() => {
  try {
    expectLedgerBalancedFile(path.join(dataDir, 'rcs.sqlite'));
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

function admin(...args: string[]) {
  const r = spawnSync(process.execPath, [cliEntry(), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('admin CLI', () => {
  it('creates an account, a person, a key and senders, and manages them', () => {
    const acc = admin('accounts:create', '--name', 'Acme', '--timezone', 'Europe/Paris', '--credits', '12.5');
    expect(acc.code).toBe(0);
    const account = JSON.parse(acc.out) as { id: string; credits: number; timezone: string };
    expect(account).toMatchObject({ credits: 12.5, timezone: 'Europe/Paris' });

    const user = admin('users:create', '--account', account.id, '--email', 'ops@acme.example');
    expect(user.code).toBe(0);
    expect(user.out).toMatch(/Password:\s+\S{12,}/);
    expect(user.out).toMatch(/otpauth:\/\/totp\//);

    const key = admin('keys:create', '--account', account.id, '--name', 'CRM', '--permissions', 'contacts:read,contacts:write');
    expect(key.code).toBe(0);
    expect(key.out).toMatch(/API key \(shown once\): rcsk_/);
    const keyId = /"id": "(key_\w+)"/.exec(key.out)![1]!;
    expect(key.out).toContain('"sendsNeedApproval": false');
    const assistant = admin('keys:create', '--account', account.id, '--name', 'Claude', '--permissions', 'messages:read,messages:write', '--sends-need-approval');
    expect(assistant.code).toBe(0);
    expect(assistant.out).toContain('"sendsNeedApproval": true');
    expect(assistant.out).toContain('Sends need approval');
    const list = admin('keys:list', '--account', account.id);
    expect(list.out).toContain(keyId);
    expect((JSON.parse(list.out) as { name: string; sendsNeedApproval: boolean }[]).map((k) => [k.name, k.sendsNeedApproval])).toEqual([
      ['Claude', true],
      ['CRM', false],
    ]);
    expect(list.out).not.toMatch(/rcsk_[\w-]{40}/);
    expect(admin('keys:revoke', '--account', account.id, '--key', keyId).out).toMatch(/"revokedAt": "20/);

    const sender = admin('senders:add', '--account', account.id, '--name', 'Acme', '--type', 'SMS');
    expect(sender.code).toBe(0);
    const senderId = (JSON.parse(sender.out) as { id: string; status: string }).id;
    expect(JSON.parse(sender.out).status).toBe('PENDING');
    expect(JSON.parse(admin('senders:approve', senderId).out).status).toBe('APPROVED');
    const rejected = JSON.parse(admin('senders:reject', senderId, '--reason', 'Brand mismatch').out);
    expect(rejected).toMatchObject({ status: 'REJECTED', rejectionReason: 'Brand mismatch' });

    expect(admin('prices:set', '--account', account.id, '--country', 'JP', '--rcs', '0.05', '--sms', '0.09').code).toBe(0);
    expect(admin('prices:list', '--account', account.id).out).toMatch(/JP\s+rcs 0\.05\s+sms\/segment 0\.09/);
    expect(admin('credits:set', '--account', account.id, '--credits', '99').out).toContain('99 credits');
  }, 120_000);

  it('sets, changes, clears and lists the limits of keys (issue #29)', () => {
    const account = JSON.parse(admin('accounts:create', '--name', 'Budgets').out) as { id: string };
    const created = admin('keys:create', '--account', account.id, '--name', 'Assistant', '--permissions', 'messages:write', '--sends-need-approval', '--daily-credits', '50', '--max-recipients', '10');
    expect(created.code).toBe(0);
    const keyId = /"id": "(key_\w+)"/.exec(created.out)![1]!;
    expect(JSON.parse(created.out.slice(0, created.out.indexOf('API key (shown once)'))).limits).toEqual({ dailyCredits: 50, maxRecipients: 10 });
    const listed = () => (JSON.parse(admin('keys:list', '--account', account.id).out) as { id: string; limits: unknown; today: unknown }[]).find((k) => k.id === keyId)!;
    expect(listed()).toMatchObject({ limits: { dailyCredits: 50, maxRecipients: 10 }, today: { credits: 0, messages: 0, creditsLeft: 50 } });

    // One limit changed, the other kept; then removed with "none".
    expect(JSON.parse(admin('keys:limits', '--account', account.id, '--key', keyId, '--daily-credits', '12.5').out).limits).toEqual({ dailyCredits: 12.5, maxRecipients: 10 });
    expect(JSON.parse(admin('keys:limits', '--account', account.id, '--key', keyId, '--max-recipients', 'none').out).limits).toEqual({ dailyCredits: 12.5, maxRecipients: null });
    expect(listed().limits).toEqual({ dailyCredits: 12.5, maxRecipients: null });
    expect(JSON.parse(admin('keys:limits', '--account', account.id, '--key', keyId, '--daily-credits', 'none').out).limits).toEqual({ dailyCredits: null, maxRecipients: null });

    // Bad input: nothing created or changed.
    const bad = admin('keys:create', '--account', account.id, '--name', 'Typo', '--permissions', 'all', '--daily-credits', 'fifty');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('is not a number');
    expect(JSON.parse(admin('keys:list', '--account', account.id).out).map((k: { name: string }) => k.name)).not.toContain('Typo');
    expect(admin('keys:limits', '--account', account.id, '--key', keyId, '--max-recipients', '0').err).toContain('from 1 to 10000');
    expect(admin('keys:limits', '--account', account.id, '--key', keyId, '--max-recipients', '10001').code).toBe(1);
    expect(admin('keys:limits', '--account', account.id, '--key', keyId, '--daily-credits', '1.2345').err).toContain('at most 3 decimals');
    expect(admin('keys:limits', '--account', account.id, '--key', keyId).err).toContain('Give --daily-credits and/or --max-recipients');
    expect(admin('keys:limits', '--account', account.id, '--key', keyId, '--app', 'x', '--daily-credits', '1').err).toContain('exactly one of');
    // Another account's key, an unknown key, an app that never connected: not found.
    const other = JSON.parse(admin('accounts:create', '--name', 'Other').out) as { id: string };
    expect(admin('keys:limits', '--account', other.id, '--key', keyId, '--daily-credits', '1').err).toContain('API key not found');
    expect(admin('keys:limits', '--account', account.id, '--key', 'key_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--daily-credits', '1').code).toBe(1);
    expect(admin('keys:limits', '--account', account.id, '--app', 'cli_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--daily-credits', '1').err).toContain('Connected app not found');
  }, 120_000);

  it('fails clearly with a non-zero exit', () => {
    const unknown = admin('no:such');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('Unknown command');
    const missing = admin('keys:create', '--account', 'acc_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--name', 'x', '--permissions', 'all');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('Account not found');
    const badPerm = admin('accounts:create', '--name', 'B');
    const id = JSON.parse(badPerm.out).id as string;
    const r = admin('keys:create', '--account', id, '--name', 'x', '--permissions', 'contacts:read,fly');
    expect(r.code).toBe(1);
    expect(r.err).toContain('Unknown permission "fly"');
    expect(admin('senders:reject', 'snd_01ARZ3NDEKTSV4RRFFQ69G5FAV').code).toBe(1);
    expect(admin('credits:set', '--account', id, '--credits', 'lots').err).toContain('--credits must be a number');
  }, 120_000);
});
