import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { createLogger } from '../../src/platform/logger.js';
import { SealingKeyError } from '../../src/platform/sealing.js';
import { describeSqliteOnly, tableNames, testDatabaseEnv } from '../helpers/database.js';
import type { TestSchema } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';
import { authorizeVia, discover, exchange, register } from '../oauth/helpers.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-secrets-'));
/** One database per data directory, kept across restarts like the directory (a PostgreSQL schema with TEST_DATABASE=postgres). */
const databases = new Map<string, { env: Record<string, string>; schema: TestSchema | null }>();
afterAll(async () => {
  for (const d of databases.values()) await d.schema?.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function configFor(dir: string, env: Record<string, string> = {}) {
  let d = databases.get(dir);
  if (!d) databases.set(dir, (d = await testDatabaseEnv('secrets')));
  return loadConfig({ DATA_DIR: dir, ...quiet, ...d.env, ...env });
}

const modeOf = (p: string) => fs.statSync(p).mode & 0o777;
const quiet = { LOG_LEVEL: 'silent', SIM_DELIVERY_DELAY_MS: '0', SIM_READ_DELAY_MS: '0' };

/** A logger whose lines the test can read. */
function capturingLogger() {
  const lines: string[] = [];
  return { lines, logger: pino({ level: 'info' }, { write: (s: string) => void lines.push(s) }) };
}

describeSqliteOnly('the files are the SQLite database')('file modes of the data directory', () => {
  it('a fresh data directory is 0700 and the database files 0600, whatever the umask', async () => {
    const dir = path.join(tmp, 'fresh', 'data');
    const old = process.umask(0o022);
    try {
      const ctx = await createContext(loadConfig({ DATA_DIR: dir, ...quiet }), { logger: createLogger('silent') });
      try {
        await ctx.services.accounts.create({ name: 'Modes', timezone: 'Europe/Berlin', credits: 1, companyProfile: { company_name: 'Modes' } });
        expect(modeOf(dir)).toBe(0o700);
        const db = path.join(dir, 'rcs.sqlite');
        for (const f of [db, `${db}-wal`, `${db}-shm`, path.join(dir, 'sealing.key')]) {
          expect(fs.existsSync(f), f).toBe(true);
          expect(modeOf(f), f).toBe(0o600);
        }
      } finally {
        await ctx.database.close();
      }
    } finally {
      process.umask(old);
    }
  });

  it('a 0755 directory and 0644 database files are tightened at start, with one log line naming them', async () => {
    const dir = path.join(tmp, 'loose');
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    const first = await createContext(loadConfig({ DATA_DIR: dir, ...quiet }), { logger: createLogger('silent') });
    await first.database.close();
    const db = path.join(dir, 'rcs.sqlite');
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(db, 0o644);
    // A -wal left behind by a crash, world-readable.
    fs.writeFileSync(`${db}-wal`, '');
    fs.chmodSync(`${db}-wal`, 0o644);
    // A sealing key restored from a backup as 0644.
    const key = path.join(dir, 'sealing.key');
    fs.chmodSync(key, 0o644);

    const { lines, logger } = capturingLogger();
    const ctx = await createContext(loadConfig({ DATA_DIR: dir, ...quiet }), { logger });
    try {
      expect(modeOf(dir)).toBe(0o700);
      expect(modeOf(db)).toBe(0o600);
      expect(modeOf(`${db}-wal`)).toBe(0o600);
      const said = lines.filter((l) => l.includes('tightened permissions'));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(`${dir} 0755 → 0700`);
      expect(said[0]).toContain(`${db} 0644 → 0600`);
      expect(said[0]).toContain(`${db}-wal 0644 → 0600`);
      expect(modeOf(key)).toBe(0o600);
      expect(lines.filter((l) => l.includes('sealing key file was readable by others'))).toHaveLength(1);
    } finally {
      await ctx.database.close();
    }
    // Nothing to say on the next start.
    const again = capturingLogger();
    const ctx2 = await createContext(loadConfig({ DATA_DIR: dir, ...quiet }), { logger: again.logger });
    await ctx2.database.close();
    expect(again.lines.filter((l) => l.includes('tightened permissions'))).toEqual([]);
  });
});

describe('the sealing key', () => {
  it('a wrong SEALING_KEY, or a missing key file, refuses to start instead of making a new key', async () => {
    const dir = path.join(tmp, 'keyed');
    const key = randomBytes(32).toString('base64');
    const ctx = await createContext(await configFor(dir, { SEALING_KEY: key }), { logger: createLogger('silent') });
    const account = await ctx.services.accounts.create({ name: 'Keyed', timezone: 'Europe/Berlin', credits: 1, companyProfile: { company_name: 'Keyed' } });
    await ctx.services.users.create(account.id, 'keyed@example.com', 'a long enough password');
    await ctx.database.close();
    // Given as hex, the same key opens it.
    const hex = Buffer.from(key, 'base64').toString('hex');
    await (await createContext(await configFor(dir, { SEALING_KEY: hex }), { logger: createLogger('silent') })).database.close();

    const wrong = createContext(await configFor(dir, { SEALING_KEY: randomBytes(32).toString('hex') }), { logger: createLogger('silent') });
    await expect(wrong).rejects.toThrow(SealingKeyError);
    await expect(wrong).rejects.toThrow(/not the key this database was sealed with/);
    // Without SEALING_KEY the key file is looked for; there is none, and none is created.
    await expect(createContext(await configFor(dir), { logger: createLogger('silent') })).rejects.toThrow(/sealing key is missing/);
    expect(fs.existsSync(path.join(dir, 'sealing.key'))).toBe(false);
    expect(() => loadConfig({ DATA_DIR: dir, SEALING_KEY: 'too short' })).toThrow(/SEALING_KEY=\(redacted\)/);
  });

  it('clear values from before sealing are sealed at start (TOTP secrets, signing keys), with a log line', async () => {
    const dir = path.join(tmp, 'legacy');
    const ctx = await createContext(await configFor(dir), { logger: createLogger('silent') });
    const account = await ctx.services.accounts.create({ name: 'Legacy', timezone: 'Europe/Berlin', credits: 1, companyProfile: { company_name: 'Legacy' } });
    const created = await ctx.services.users.create(account.id, 'legacy@example.com', 'a long enough password');
    const signing = await ctx.db.selectFrom('settings').select('value').where('key', '=', 'oauth.jwt_signing_key').executeTakeFirstOrThrow();
    // Put the database back the way the previous version wrote it: everything in the clear.
    const clearKey = ctx.sealer.open(signing.value, 'settings:oauth.jwt_signing_key');
    await ctx.db.updateTable('users').set({ totp_secret: created.totpSecret }).where('id', '=', created.user.id).execute();
    await ctx.db.updateTable('settings').set({ value: clearKey }).where('key', '=', 'oauth.jwt_signing_key').execute();
    await ctx.db.deleteFrom('settings').where('key', '=', 'sealing.check').execute();
    await ctx.database.close();

    const { lines, logger } = capturingLogger();
    const again = await createContext(await configFor(dir), { logger });
    try {
      const row = await again.db.selectFrom('users').select('totp_secret').where('id', '=', created.user.id).executeTakeFirstOrThrow();
      expect(row.totp_secret).toMatch(/^sealed:v1:/);
      expect(row.totp_secret).not.toContain(created.totpSecret);
      const s = await again.db.selectFrom('settings').select('value').where('key', '=', 'oauth.jwt_signing_key').executeTakeFirstOrThrow();
      expect(again.sealer.open(s.value, 'settings:oauth.jwt_signing_key')).toBe(clearKey);
      expect(lines.some((l) => l.includes('sealed secrets that were stored in the clear') && l.includes('"totpSecrets":1'))).toBe(true);
    } finally {
      await again.database.close();
    }
  });
});

describe('a dump of the database reveals no secret', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('after a TOTP enrolment, an OAuth token and a send with {{unsubscribe_link}}: no TOTP secret, no key material, no link token', async () => {
    // TOTP enrolment (the test account's user was enrolled when it was created) and a re-enrolment.
    const other = await t.createAccount();
    const users = await t.ctx.services.users.listForAccount(other.accountId);
    const reset = await t.ctx.services.users.resetTotp(users[0]!.id);

    // An OAuth token issued through the real flow.
    const { as } = await discover(t);
    const rc = await register(as, 'http://127.0.0.1:9/callback');
    const web = new WebClient(t.url);
    const a = await authorizeVia(web, as, rc, { email: t.account.email, password: t.account.password, totpSecret: t.account.totpSecret, now: () => Date.now() }, { scope: 'messages:read' });
    expect(a.status, a.text).toBe(303);
    const tokens = await exchange(as, rc, a.location!, a.state, a.verifier);
    expect(tokens.access_token).toBeTruthy();

    // Sends with {{unsubscribe_link}}: RCS with an SMS fallback, and a plain SMS.
    const to = '+4915550000777';
    const rcs = await t.api('POST', '/api/rcs/send', {
      phoneNumber: to,
      messageType: 'text',
      content: { text: 'Deals. Opt out: {{unsubscribe_link}}' },
      sendernameId: t.account.senders.rcs,
      smsFallback: { message: 'Opt out: {{unsubscribe_link}}', sendernameId: t.account.senders.sms },
    });
    expect(rcs.status, JSON.stringify(rcs.body)).toBe(200);
    const sms = await t.api('POST', '/api/rcs/send-sms', { phoneNumber: '+4915550009990', message: 'Stop here: {{unsubscribe_link}}', sendernameId: t.account.senders.sms });
    expect(sms.status, JSON.stringify(sms.body)).toBe(200);

    // What the recipient's phone got: the real link, which works end to end.
    const phone = t.ctx.services.virtualPhone!;
    const view = await phone.view(t.account.accountId, to);
    const out = view.threads.flatMap((th) => th.items).find((i) => i.kind === 'out' && i.messageId === rcs.body.messageRecordId);
    const link = /https?:\/\/[^\s"]+\/u\/([A-Za-z0-9_-]{32})/.exec(JSON.stringify(out))!;
    expect(link).not.toBeNull();
    const token = link[1]!;
    const smsView = await phone.view(t.account.accountId, '+4915550009990');
    const smsToken = /\/u\/([A-Za-z0-9_-]{32})/.exec(JSON.stringify(smsView))![1]!;

    // The message log shows the link masked.
    const log = await t.api('GET', `/api/messages/log?phoneNumber=${encodeURIComponent(to)}`);
    const logged = JSON.stringify(log.body);
    expect(logged).toContain(`/u/${'*'.repeat(32)}`);
    expect(logged).not.toContain(token);
    const content = await t.api('GET', `/api/messages/${rcs.body.messageRecordId}/content`);
    expect(JSON.stringify(content.body)).toContain(`/u/${'*'.repeat(32)}`);

    // The secrets, read the way only the key holder can.
    const setting = async (key: string) => t.ctx.sealer.open((await t.ctx.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow()).value, `settings:${key}`);
    const jwk = JSON.parse(await setting('oauth.jwt_signing_key')).jwk as { d: string };
    const webhookKey = JSON.parse(await setting('webhooks.secret_key')).key as string;
    const secrets: Record<string, string> = {
      'TOTP secret': t.account.totpSecret,
      'TOTP secret (other user)': other.totpSecret,
      'TOTP secret (re-enrolled)': reset.totpSecret,
      'OAuth signing key (d)': jwk.d,
      'webhook secrets key': webhookKey,
      'unsubscribe token (RCS)': token,
      'unsubscribe token (SMS)': smsToken,
      'access token': tokens.access_token,
    };
    expect(secrets['TOTP secret']!.length).toBeGreaterThan(20);

    // Every text column of every table...
    let dump = '';
    for (const name of await tableNames(t.ctx.db)) {
      for (const row of (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(t.ctx.db)).rows) {
        for (const v of Object.values(row)) if (typeof v === 'string') dump += `${v}\n`;
      }
    }
    expect(dump).toContain('sealed:v1:');
    // ...and the raw bytes of the database and its WAL (SQLite: PostgreSQL's files are the server's, not ours to read).
    const file = t.ctx.config.databaseFile;
    const raw = t.ctx.database.dialect === 'sqlite' ? [file, `${file}-wal`, `${file}-shm`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f).toString('latin1')).join('') : null;
    if (raw !== null) expect(raw.length).toBeGreaterThan(0);
    for (const [what, value] of Object.entries(secrets)) {
      expect(dump.includes(value), `${what} in a table`).toBe(false);
      if (raw !== null) expect(raw.includes(value), `${what} in the database files`).toBe(false);
    }

    // The recipient's link opens the page and opts the number out.
    const page = await web.get(`/u/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Unsubscribe from');
    const done = await web.post(`/u/${token}`, { csrf: WebClient.hidden(page.text, 'csrf') });
    expect(done.text).toContain('You are unsubscribed');
    const again = await t.api('POST', '/api/rcs/send', { phoneNumber: to, messageType: 'text', content: { text: 'Hi' }, sendernameId: t.account.senders.rcs });
    expect(again.body.error.code).toBe('CONTACT_OPTED_OUT');
  });
});
