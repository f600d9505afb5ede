import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildServer } from '../helpers/child-server.js';
import { testDatabaseEnv } from '../helpers/database.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-first-start-'));
// Its own PostgreSQL schema with TEST_DATABASE=postgres, kept across the starts like the data directory.
const { env: dbEnv, schema } = await testDatabaseEnv('first');
afterAll(async () => {
  await schema?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('first start of the real entry point', () => {
  let apiKey = '';

  it('writes working demo credentials once to a 0600 file, not to the output (not a terminal)', async () => {
    const s = await startChildServer({ DATA_DIR: dataDir, ...dbEnv });
    try {
      const file = path.join(path.resolve(dataDir), 'first-start-credentials.txt');
      // stdout is a pipe here (as under a service manager): only the file's path is printed.
      expect(s.output()).toContain(file);
      expect(s.output()).not.toMatch(/API key:|Password:|otpauth:|rcsk_/);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const out = fs.readFileSync(file, 'utf8');
      // A file read in an editor: no terminal colour escapes, the QR code as block characters.
      // eslint-disable-next-line no-control-regex
      expect(out).not.toMatch(/\u001b\[/);
      expect(out).toMatch(/[█▀▄]/);
      apiKey = /Automation API key:\s+(rcsk_\S+)/.exec(out)?.[1] ?? '';
      expect(apiKey).not.toBe('');
      // The key printed for assistants is another one, and its sends need approval.
      const assistantKey = /Assistant API key:\s+(rcsk_\S+)/.exec(out)?.[1] ?? '';
      expect(assistantKey).not.toBe('');
      expect(assistantKey).not.toBe(apiKey);
      expect(out).toContain(`claude mcp add --transport http rcs ${s.url}/mcp --header "X-API-Key: ${assistantKey}"`);
      expect(out).not.toContain(`"X-API-Key: ${apiKey}"}`);
      const direct = await fetch(`${s.url}/api/rcs/send-sms`, {
        method: 'POST',
        headers: { 'X-API-Key': assistantKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ phoneNumber: '+4915550000001', message: 'hi', sendernameId: 'DemoCo' }),
      });
      expect(direct.status).toBe(403);
      expect(((await direct.json()) as { error: { code: string } }).error.code).toBe('APPROVAL_REQUIRED');
      const preview = await fetch(`${s.url}/api/rcs/previews/send-sms`, {
        method: 'POST',
        headers: { 'X-API-Key': assistantKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ phoneNumber: '+4915550000001', message: 'hi', sendernameId: 'DemoCo' }),
      });
      expect(preview.status).toBe(201);
      expect(out).toMatch(/Password:\s+\S{12,}/);
      expect(out).toMatch(/otpauth:\/\/totp\//);
      expect(out).toMatch(/snd_\w+\s+RCS/);
      expect(out).toMatch(/snd_\w+\s+SMS/);
      const health = await fetch(`${s.url}/api/rcs/health`, { headers: { 'X-API-Key': apiKey } });
      expect(health.status).toBe(200);
      const status = await fetch(`${s.url}/api/rcs/status`, { headers: { 'X-API-Key': apiKey } });
      expect(status.status).toBe(200);
      const denied = await fetch(`${s.url}/api/rcs/status`);
      expect(denied.status).toBe(401);
      // One JSON log line per request, with route, status and duration, and no key in it.
      for (let i = 0; i < 50 && !/"status":401.*"msg":"request"/.test(s.output()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(s.output()).toMatch(/"status":200.*"msg":"request"/);
      expect(s.output().split('\n').filter((l) => l.includes('"msg":"request"')).join('\n')).not.toContain(apiKey);
      expect(s.output()).not.toContain(apiKey);
    } finally {
      expect(await s.stop('SIGTERM')).toBe(0);
    }
  }, 60_000);

  it('reuses the data on the second start and prints only the URLs', async () => {
    const s = await startChildServer({ DATA_DIR: dataDir, ...dbEnv });
    try {
      expect(s.output()).not.toContain('API key:');
      expect(s.output()).toContain('MCP endpoint:');
      const status = await fetch(`${s.url}/api/rcs/status`, { headers: { 'X-API-Key': apiKey } });
      expect(status.status).toBe(200);
    } finally {
      expect(await s.stop('SIGINT')).toBe(0);
    }
  }, 60_000);

  it('refuses to start with a wrong SEALING_KEY or without its key file, saying why', async () => {
    const wrong = startChildServer({ DATA_DIR: dataDir, ...dbEnv, SEALING_KEY: 'ab'.repeat(32) }, 20_000);
    await expect(wrong).rejects.toThrow(/exited \(78\)[\s\S]*not the key this database was sealed with/);
    const keyFile = path.join(dataDir, 'sealing.key');
    const saved = fs.readFileSync(keyFile);
    fs.rmSync(keyFile);
    try {
      await expect(startChildServer({ DATA_DIR: dataDir, ...dbEnv }, 20_000)).rejects.toThrow(/exited \(78\)[\s\S]*sealing key is missing/);
      expect(fs.existsSync(keyFile)).toBe(false);
    } finally {
      fs.writeFileSync(keyFile, saved, { mode: 0o600 });
    }
  }, 60_000);

  it('refuses to start on a bad setting, naming the variable', async () => {
    await expect(startChildServer({ DATA_DIR: dataDir, ...dbEnv, LOG_LEVEL: 'loud' }, 20_000)).rejects.toThrow(/LOG_LEVEL/);
  }, 30_000);
});
