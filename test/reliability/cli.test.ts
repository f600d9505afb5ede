import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { expectLedgerBalancedFile } from '../billing/invariant.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-cli-'));
afterAll(() => {
  try {
    expectLedgerBalancedFile(path.join(dataDir, 'rcs.sqlite'));
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

function admin(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'src/cli.ts'), ...args], {
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
