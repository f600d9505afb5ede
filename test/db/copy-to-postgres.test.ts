import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyToPostgresCommand } from '../../src/admin/db-copy-command.js';
import { migrations } from '../../src/bootstrap/migrations.js';
import { PostgresTarget } from '../../src/platform/db/copy/postgres-target.js';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { cliEntry } from '../helpers/cli.js';
import { expectLedgerBalancedFile } from '../billing/invariant.js';
import { startReceiver, type Receiver } from '../api/webhooks/helpers.js';
import { waitFor } from '../api/messaging/util.js';
import { createTestSchema, postgresUnreachable, type TestSchema } from '../helpers/postgres.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { WebClient } from '../helpers/web-client.js';

/**
 * `npm run admin -- db:copy-to-postgres` end to end: a SQLite installation built through the real
 * server (accounts, keys, people, contacts with custom fields, a batch sent, a webhook with its
 * deliveries, the credit ledger) is copied by the real CLI into a fresh PostgreSQL schema, and a
 * server started on that schema serves the same data: the old key, the old password and TOTP, the
 * sealed webhook secret, the ledger. Skipped without a PostgreSQL server unless REQUIRE_POSTGRES=1.
 */
const unreachable = await postgresUnreachable();
const required = process.env.REQUIRE_POSTGRES === '1';

describe.runIf(required && unreachable !== null)('db:copy-to-postgres: PostgreSQL required (REQUIRE_POSTGRES=1)', () => {
  it('is reachable', () => {
    throw new Error(`PostgreSQL is not reachable: ${unreachable}`);
  });
});

/** The real CLI in a child process, as an operator runs it (stdout and stderr are not a TTY). */
function admin(...args: string[]) {
  const env = { ...process.env };
  // The command must not fall back on the suite's own database settings.
  for (const k of ['DATABASE_URL', 'DATABASE_FILE', 'DATABASE_SSL', 'DATABASE_SSL_CA', 'DATA_DIR']) delete env[k];
  const r = spawnSync(process.execPath, [cliEntry(), ...args], { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function onTarget<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Rows per application table of the PostgreSQL schema. */
const targetCounts = (url: string) =>
  onTarget(url, async (c) => {
    const { rows } = await c.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = current_schema() and table_name not like 'kysely_%'");
    const counts: Record<string, number> = {};
    for (const { name } of rows) counts[name] = Number((await c.query<{ n: string }>(`select count(*) as n from "${name}"`)).rows[0]!.n);
    return counts;
  });

function sourceCounts(file: string): Record<string, number> {
  const db = new SQLite(file, { readonly: true });
  try {
    const counts: Record<string, number> = {};
    const names = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'").all() as { name: string }[];
    for (const { name } of names) counts[name] = (db.prepare(`select count(*) as n from "${name}"`).get() as { n: number }).n;
    return counts;
  } finally {
    db.close();
  }
}

describe.skipIf(unreachable !== null)('db:copy-to-postgres', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-copy-'));
  const sourceFile = path.join(dir, 'rcs.sqlite');
  // The source installation seals with this key; the PostgreSQL instances must get the same one.
  const sealingKey = randomBytes(32).toString('base64');
  const schemas: TestSchema[] = [];
  let rx: Receiver;
  let acc: TestAccount;
  let other: TestAccount;
  let revokedKey = '';
  let jobId = '';
  let webhookId = '';
  let webhookSecret = '';
  let contactId = '';
  let ledgerBefore: unknown;

  const freshSchema = async () => {
    const s = await createTestSchema('h4copy');
    schemas.push(s);
    return s;
  };

  beforeAll(async () => {
    rx = await startReceiver();
    const t: TestServer = await startTestServer({
      env: { DATABASE_FILE: sourceFile, SEALING_KEY: sealingKey, DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: 'true', WEBHOOK_RETRY_BASE_MS: '40' },
    });
    try {
      acc = t.account;
      other = await t.createAccount({ name: 'Other tenant' });
      revokedKey = await t.createKey(acc.accountId, ['contacts:read']);
      const [revokedInfo] = (await t.ctx.services.apiKeys.list(acc.accountId)).filter((k) => k.permissions.length === 1);
      await t.ctx.services.apiKeys.revoke(acc.accountId, revokedInfo!.id);

      const field = await t.api('POST', '/api/v1/contacts/fields', { name: 'Tier', tag: 'tier' });
      expect(field.status).toBe(201);
      const phones = ['+4915123450001', '+4915123450011', '+4915123450021'];
      for (const [i, phone] of phones.entries()) {
        const c = await t.api('POST', '/api/v1/contacts', { phone, firstName: `Nora${i}` });
        expect(c.status).toBe(201);
        contactId ||= c.body.data.id;
        expect((await t.api('PUT', `/api/v1/contacts/${c.body.data.id}/fields`, { customFields: [{ tag: 'tier', value: i === 0 ? 'gold' : 'silver' }] })).status).toBe(200);
      }
      const hook = await t.api('POST', '/api/rcs/webhooks', { url: `${rx.url}/hook`, events: ['delivery_status'], description: 'CRM' });
      expect(hook.status).toBe(201);
      webhookId = hook.body.data.id;
      webhookSecret = hook.body.data.secret;

      await t.ctx.services.billing.setCredits(acc.accountId, 500, 'top-up before the move');
      const batch = await t.api('POST', '/api/rcs/send-batch', { phoneNumbers: phones, messageType: 'text', content: { text: 'Hi {{contact_first_name}}, you are {{tier}}' }, sendernameId: acc.senders.rcs, campaignName: 'move' });
      expect(batch.status, JSON.stringify(batch.body)).toBe(202);
      jobId = batch.body.jobId;
      await waitFor(async () => (await t.api('GET', `/api/rcs/batch/${jobId}/status`)).body.job, { until: (j) => j?.status === 'completed', what: 'the batch to complete' });
      await waitFor(() => rx.events('delivery_status').length >= 3, { what: 'three delivery webhooks' });
      ledgerBefore = (await t.api('GET', '/api/rcs/credits/ledger?limit=100')).body;
    } finally {
      await t.close();
    }
  }, 120_000);

  afterAll(async () => {
    await rx?.close();
    for (const s of schemas) await s.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('copies every table, verified by counts, and a server on PostgreSQL serves the same installation', async () => {
    const target = await freshSchema();
    const r = admin('db:copy-to-postgres', '--from', sourceFile, '--to', target.url, '--chunk-rows', '2');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('row counts verified per table');
    expect(r.out).toMatch(/messages\s+3 →\s+3/);
    expect(r.out).toContain('SEALING_KEY');
    // Not a terminal: plain progress lines on stderr, no carriage returns.
    expect(r.err).toMatch(/copy 100%/);
    expect(r.err).toMatch(/contacts: 3 rows copied/);
    expect(r.err).not.toContain('\r');

    const before = sourceCounts(sourceFile);
    expect(before.messages).toBe(3);
    expect(before.credit_ledger).toBeGreaterThanOrEqual(3);
    expect(before.webhook_deliveries).toBeGreaterThanOrEqual(3);
    expect(await targetCounts(target.url)).toEqual(before);
    const applied = await onTarget(target.url, async (c) => (await c.query<{ name: string }>('select name from kysely_migration order by name')).rows.map((x) => x.name));
    expect(applied).toEqual(Object.keys(migrations).sort());

    const s = await startTestServer({ env: { DATABASE_URL: target.url, SEALING_KEY: sealingKey, DATABASE_POOL_MAX: '4' } });
    try {
      expect((await s.api('GET', '/api/rcs/status', undefined, { key: acc.apiKey })).body.database).toMatchObject({ dialect: 'postgres', status: 'up' });
      // The old API keys: valid ones work, the revoked one stays revoked.
      const contacts = await s.api('GET', '/api/v1/contacts?include=customFields&limit=10', undefined, { key: acc.apiKey });
      expect(contacts.status).toBe(200);
      const gold = contacts.body.data.find((c: { id: string }) => c.id === contactId);
      expect(gold.customFields).toEqual([expect.objectContaining({ tag: 'tier', value: 'gold' })]);
      expect(contacts.body.data).toHaveLength(3);
      expect((await s.api('GET', '/api/v1/contacts', undefined, { key: revokedKey })).status).toBe(401);
      expect((await s.api('GET', `/api/v1/contacts/${contactId}`, undefined, { key: other.apiKey })).status).toBe(404);

      const job = await s.api('GET', `/api/rcs/batch/${jobId}/status`, undefined, { key: acc.apiKey });
      expect(job.body.job).toMatchObject({ status: 'completed' });
      const log = await s.api('GET', '/api/messages/log?limit=10', undefined, { key: acc.apiKey });
      expect(log.body.messages).toHaveLength(3);
      for (const m of log.body.messages) expect(['SENT', 'DELIVERED', 'READ']).toContain(m.status);
      expect((await s.api('GET', '/api/rcs/credits/ledger?limit=100', undefined, { key: acc.apiKey })).body).toEqual(ledgerBefore);

      // Sealed values open with the shared key: the webhook secret, and the person's TOTP secret at login.
      const secret = await s.api('GET', `/api/rcs/webhooks/${webhookId}/secret`, undefined, { key: acc.apiKey });
      expect(secret.body.data.secret).toBe(webhookSecret);
      const web = new WebClient(s.url);
      const login = await web.login(acc.email, acc.password, acc.totpSecret);
      expect(login.status).toBe(303);
      expect((await web.get('/console')).status).toBe(200);

      // And the installation goes on working on PostgreSQL: a new send reaches the network.
      const sent = await s.api('POST', '/api/rcs/send', { phoneNumber: '+4915123450031', messageType: 'text', content: { text: 'After the move' }, sendernameId: acc.senders.rcs }, { key: acc.apiKey });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(sent.body.status).toBe('SENT');
      const record = await s.api('GET', `/api/messages/log?messageId=${sent.body.messageRecordId}`, undefined, { key: acc.apiKey });
      expect(['SENT', 'DELIVERED', 'READ']).toContain(record.body.messages[0]?.status);
    } finally {
      await s.close();
    }
    expectLedgerBalancedFile(sourceFile);
  }, 120_000);

  it('refuses a target that holds any row, before and after migrating, and changes nothing', async () => {
    const target = await freshSchema();
    expect(admin('db:copy-to-postgres', '--from', sourceFile, '--to', target.url).code).toBe(0);
    const counts = await targetCounts(target.url);
    const again = admin('db:copy-to-postgres', '--from', sourceFile, '--to', target.url);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/Error \(CONFLICT\): The target .* is not empty \(rows in accounts, api_keys/);
    expect(again.err).toContain('create a new database');
    expect(await targetCounts(target.url)).toEqual(counts);

    // A schema holding someone else's table with a row is refused before our tables are created in it.
    const foreign = await freshSchema();
    await onTarget(foreign.url, async (c) => {
      await c.query('create table notes (body text)');
      await c.query('insert into notes values ($1)', ['keep me']);
    });
    const refused = admin('db:copy-to-postgres', '--from', sourceFile, '--to', foreign.url);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('rows in notes');
    expect(Object.keys(await targetCounts(foreign.url))).toEqual(['notes']);
  }, 120_000);

  it('a copy that fails part-way leaves the target empty (one transaction)', async () => {
    const broken = path.join(dir, 'nul.sqlite');
    fs.copyFileSync(sourceFile, broken);
    const db = new SQLite(broken);
    // The last contact copied holds a NUL, which PostgreSQL text cannot store: accounts and others are inserted before it fails.
    db.prepare("update contacts set first_name = 'No' || char(0) || 'ra' where id = (select max(id) from contacts)").run();
    db.close();
    const target = await freshSchema();
    const r = admin('db:copy-to-postgres', '--from', broken, '--to', target.url);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/Copying contacts failed after \d+ of its rows: .*NUL character.*Nothing was committed/);
    const counts = await targetCounts(target.url);
    expect(Object.keys(counts).length).toBeGreaterThan(30);
    expect(Object.values(counts).every((n) => n === 0)).toBe(true);
  }, 120_000);

  it('refuses a source at another schema version before touching the target', async () => {
    const target = await freshSchema();
    const older = path.join(dir, 'older.sqlite');
    fs.copyFileSync(sourceFile, older);
    const latest = Object.keys(migrations).at(-1)!;
    let db = new SQLite(older);
    db.prepare('delete from kysely_migration where name = ?').run(latest);
    db.close();
    let r = admin('db:copy-to-postgres', '--from', older, '--to', target.url);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`is at another schema version than this server (${latest}): it lacks ${latest}: start this version of the server on it once`);

    const newer = path.join(dir, 'newer.sqlite');
    fs.copyFileSync(sourceFile, newer);
    db = new SQLite(newer);
    db.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('999_from_the_future', new Date().toISOString());
    db.close();
    r = admin('db:copy-to-postgres', '--from', newer, '--to', target.url);
    expect(r.code).toBe(1);
    expect(r.err).toContain('it has 999_from_the_future, which this version does not know');
    expect(await targetCounts(target.url)).toEqual({});
  }, 120_000);

  it('bad arguments fail with a clear message and a non-zero exit', async () => {
    const target = await freshSchema();
    // Exit codes through the real CLI: 1 for a refused command, 2 for a usage error.
    const cli: Array<[string[], number, RegExp]> = [
      [['--to', target.url], 1, /Error \(VALIDATION_ERROR\): --from is required/],
      [['--from', sourceFile, '--to', target.url, '--force'], 2, /Unknown option '--force'/],
      [['--from', sourceFile, '--to', target.url, 'extra'], 2, /Unexpected argument "extra"/],
      // A password in the URL is never echoed.
      [['--from', sourceFile, '--to', 'mysql://u:hunter2@localhost/db'], 1, /DATABASE_URL=\(redacted\)/],
    ];
    for (const [args, code, message] of cli) {
      const r = admin('db:copy-to-postgres', ...args);
      expect(r.err, args.join(' ')).toMatch(message);
      expect(r.err + r.out).not.toContain('hunter2');
      expect(r.code, args.join(' ')).toBe(code);
    }
    // The rest of the checks in-process: the same command object the CLI runs.
    const run = (values: Record<string, string>) => copyToPostgresCommand.run(values, { out: () => undefined, err: { write: () => true } });
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ from: sourceFile }, /--to is required \(or DATABASE_URL\)/],
      [{ from: path.join(dir, 'missing.sqlite'), to: target.url }, /--from: no such file/],
      [{ from: dir, to: target.url }, /--from: not a file/],
      [{ from: path.join(PROJECT_ROOT, 'package.json'), to: target.url }, /is not a SQLite database/],
      [{ from: sourceFile, to: target.url, 'chunk-rows': '0' }, /--chunk-rows must be a whole number/],
      [{ from: sourceFile, to: 'postgres://u:hunter2@127.0.0.1:1/nothing' }, /^Cannot connect to PostgreSQL at 127\.0\.0\.1:1\/nothing/],
    ];
    for (const [values, message] of cases) {
      const err = await run(values).then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(err?.message, JSON.stringify(values)).toMatch(message);
      expect(err?.message).not.toContain('hunter2');
    }
    expect(await targetCounts(target.url)).toEqual({});
  }, 120_000);

  it('moves sequences (serial and identity columns) past the copied values; an empty table keeps its start', async () => {
    const scratch = await freshSchema();
    await onTarget(scratch.url, async (c) => {
      await c.query('create table numbered (id serial primary key, note text)');
      await c.query('create table ident (id bigint generated by default as identity (start with 10) primary key)');
      await c.query('create table untouched (id bigserial primary key)');
      await c.query("insert into numbered (id, note) values (1, 'a'), (41, 'b')");
      await c.query('insert into ident (id) values (500)');
      const reset = await new PostgresTarget(c).resetSequences();
      expect(reset.map((q) => q.replace(/^.*\./, '')).sort()).toEqual(['ident_id_seq', 'numbered_id_seq', 'untouched_id_seq']);
      expect((await c.query<{ id: number }>("insert into numbered (note) values ('c') returning id")).rows[0]!.id).toBe(42);
      expect(Number((await c.query<{ id: string }>('insert into ident default values returning id')).rows[0]!.id)).toBe(501);
      expect(Number((await c.query<{ id: string }>('insert into untouched default values returning id')).rows[0]!.id)).toBe(1);
    });
  });
});
