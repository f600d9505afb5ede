import { readFileSync } from 'node:fs';
import { basename, dirname, relative } from 'node:path';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { MIGRATION_ORDER, MIGRATION_PARTS, migrations } from '../../src/bootstrap/migrations.js';
import { composeMigrations, type MigrationParts } from '../../src/platform/db/migration-parts.js';
import { PROJECT_ROOT, sourceFiles } from '../helpers/source-files.js';

/**
 * Each area holds the migrations of its own tables (issue #32, docs/storage.md "Migrations"). The names recorded in
 * installed databases never change, each is one Kysely migration, and the parts of a name run in the order written
 * below — the order their statements had when each migration was one file. A new migration is added here as well as
 * to MIGRATION_ORDER in src/bootstrap/migrations.ts; the test fails until both agree.
 */
const EXPECTED: Record<string, string[]> = {
  '001_foundation': ['accounts', 'senders', 'platform'],
  '002_sandbox': ['sandbox'],
  '003_address_book': ['contacts', 'fields', 'groups', 'templates'],
  '004_messaging': ['messaging', 'carriers'],
  '005_oauth': ['oauth'],
  '006_previews': ['previews'],
  '007_engagement': ['conversations', 'inbound', 'suppression'],
  '008_webhooks_forms': ['webhooks', 'forms'],
  '009_smpp': ['carriers'],
  '010_messages_phone_window': ['messaging'],
  '011_sim_receipt_indexes': ['carriers'],
  '012_approval_bound_keys': ['accounts'],
  '013_preview_merge_fingerprint': ['previews'],
  '015_idempotency_keys': ['platform'],
  '016_webhook_fairness': ['webhooks'],
  '017_smpp_unreported_partial': ['carriers'],
  '018_credit_ledger': ['billing'],
  '019_shared_limits': ['platform', 'forms'],
  '020_change_notifications': ['platform', 'accounts', 'senders'],
  '021_sender_throughput': ['messaging'],
  '022_smpp_mo_parts': ['carriers'],
  '023_preview_merge_values': ['previews'],
  '024_login_devices': ['accounts'],
  '025_form_confirmation_limits': ['accounts', 'forms'],
  '026_assistant_writes': ['contacts', 'oauth'],
  '027_opt_out_confirmation': ['accounts'],
  '028_consent_events': ['suppression'],
  '029_quiet_hours': ['accounts', 'messaging'],
  '030_credential_budgets': ['billing'],
  '031_approval_audit': ['previews', 'messaging'],
  '032_sender_consent_words': ['senders'],
  '033_instance_heartbeats': ['platform', 'messaging', 'webhooks'],
  '034_messages_follow_by_trigger': ['messaging'],
  '035_messages_status_out_of_indexes': ['messaging'],
  '036_consent_reviews': ['suppression', 'messaging'],
  '037_consent_events_by_contact': ['suppression'],
  '038_consent_reply_texts': ['accounts'],
  '039_budget_holds': ['billing'],
};

/** The area a migrations folder belongs to: src/<area>/migrations, oauth/migrations, src/platform/db/migrations. */
function areaOfMigrationFolder(rel: string): string | null {
  if (rel === 'src/platform/db/migrations') return 'platform';
  if (rel === 'oauth/migrations') return 'oauth';
  const m = /^src\/([\w-]+)\/migrations$/.exec(rel);
  return m && m[1] !== 'platform' ? m[1]! : null;
}

/** Which area declares each table (src/<area>/tables.ts, oauth/tables.ts; the platform's in src/platform/db/tables/). */
function declaredOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const file of sourceFiles(['src', 'oauth'])) {
    const rel = relative(PROJECT_ROOT, file);
    const area = rel.startsWith('src/platform/db/tables/') ? 'platform' : rel === 'oauth/tables.ts' ? 'oauth' : /^src\/([\w-]+)\/tables\.ts$/.exec(rel)?.[1];
    if (!area) continue;
    const block = /export interface \w+Tables \{([^}]*)\}/.exec(readFileSync(file, 'utf8'));
    for (const m of block?.[1]?.matchAll(/^\s*(\w+): \w+;/gm) ?? []) owners.set(m[1]!, area);
  }
  return owners;
}

/** The tables a migration file creates, alters, indexes, writes or puts a trigger on. */
const TOUCHES = [
  /\b(?:createTable|alterTable|updateTable|insertInto|deleteFrom)\(\s*'(\w+)'/g,
  /\.on\(\s*'(\w+)'\)/g,
  /\bcreate\s+(?:unique\s+)?index\s+\w+\s+on\s+"?(\w+)/gi,
  /\bupdate\s+"?(\w+)"?\s+set\b/gi,
  /\[\s*'(\w+)',\s*'(?:insert|update|delete|truncate)\b/g,
];

const migrationFiles = () =>
  sourceFiles(['src', 'oauth'])
    .map((file) => relative(PROJECT_ROOT, file))
    .filter((rel) => rel.split('/').includes('migrations'));

describe('migration parts', () => {
  it('the names are exactly the recorded ones, in order, each one Kysely migration', () => {
    expect(Object.keys(migrations)).toEqual(Object.keys(EXPECTED));
    for (const migration of Object.values(migrations)) expect(typeof migration.up).toBe('function');
  });

  it('each name runs the parts of the documented areas, in the documented order', () => {
    expect(Object.fromEntries(Object.entries(MIGRATION_ORDER).map(([name, areas]) => [name, [...areas]]))).toEqual(EXPECTED);
    // Every area's parts are the names the order gives it: none left out, none extra.
    for (const [area, parts] of Object.entries(MIGRATION_PARTS)) {
      const names = Object.entries(EXPECTED)
        .filter(([, areas]) => areas.includes(area))
        .map(([name]) => name);
      expect(Object.keys(parts).sort(), area).toEqual(names);
    }
  });

  it('a composed migration runs its parts one after the other in the listed order', async () => {
    const ran: string[] = [];
    const stubs: Record<string, MigrationParts> = {};
    for (const [area, parts] of Object.entries(MIGRATION_PARTS)) {
      stubs[area] = Object.fromEntries(
        Object.keys(parts).map((name) => [
          name,
          {
            async up() {
              await Promise.resolve();
              ran.push(`${name}:${area}`);
            },
          },
        ]),
      );
    }
    const composed = composeMigrations(MIGRATION_ORDER, stubs);
    for (const migration of Object.values(composed)) await migration.up(null as unknown as Kysely<unknown>);
    expect(ran).toEqual(Object.entries(EXPECTED).flatMap(([name, areas]) => areas.map((area) => `${name}:${area}`)));
  });

  it('refuses an order and parts that disagree (a part missing, unlisted, or listed twice)', () => {
    const part = { up: async () => undefined };
    expect(() => composeMigrations({ '001_a': ['x', 'y'] }, { x: { '001_a': part }, y: {} })).toThrow(/001_a: y has no part of it/);
    expect(() => composeMigrations({ '001_a': ['x'] }, { x: { '001_a': part }, y: { '001_a': part } })).toThrow(/001_a: the part of y is not in the order/);
    expect(() => composeMigrations({ '001_a': ['x', 'x'] }, { x: { '001_a': part } })).toThrow(/lists an area twice/);
  });

  it('every part file sits in the migrations folder of the area that owns the tables it creates or changes, and is listed', () => {
    const owners = declaredOwners();
    expect(owners.size).toBeGreaterThan(40);
    const files = migrationFiles();
    expect(files.length).toBeGreaterThan(Object.keys(EXPECTED).length);
    const problems: string[] = [];
    let touched = 0;
    for (const rel of files) {
      const area = areaOfMigrationFolder(dirname(rel));
      if (!area || !(area in MIGRATION_PARTS)) {
        problems.push(`${rel}: not in an area's migrations folder that src/bootstrap/migrations.ts merges`);
        continue;
      }
      const name = basename(rel).replace(/\.ts$/, '');
      if (name === 'index') continue;
      if (!EXPECTED[name]?.includes(area)) problems.push(`${rel}: ${name} does not list ${area}`);
      if (!(name in MIGRATION_PARTS[area as keyof typeof MIGRATION_PARTS])) problems.push(`${rel}: not in ${dirname(rel)}/index.ts`);
      const text = readFileSync(`${PROJECT_ROOT}/${rel}`, 'utf8');
      for (const pattern of TOUCHES) {
        for (const m of text.matchAll(pattern)) {
          touched++;
          const owner = owners.get(m[1]!);
          if (owner !== area) problems.push(`${rel}: touches ${m[1]}, which ${owner ? `belongs to ${owner}` : 'no tables.ts declares'}`);
        }
      }
    }
    expect(problems).toEqual([]);
    // The scan sees the tables (a broken pattern finds nothing and passes nothing).
    expect(touched).toBeGreaterThan(100);
  });
});
