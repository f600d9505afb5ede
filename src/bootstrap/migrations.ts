import { migrationParts as accounts } from '../accounts/migrations/index.js';
import { migrationParts as billing } from '../billing/migrations/index.js';
import { migrationParts as carriers } from '../carriers/migrations/index.js';
import { migrationParts as contacts } from '../contacts/migrations/index.js';
import { migrationParts as conversations } from '../conversations/migrations/index.js';
import { migrationParts as fields } from '../fields/migrations/index.js';
import { migrationParts as forms } from '../forms/migrations/index.js';
import { migrationParts as groups } from '../groups/migrations/index.js';
import { migrationParts as inbound } from '../inbound/migrations/index.js';
import { migrationParts as messaging } from '../messaging/migrations/index.js';
import { migrationParts as oauth } from '../../oauth/migrations/index.js';
import { composeMigrations, type Migrations } from '../platform/db/migration-parts.js';
import { migrationParts as platform } from '../platform/db/migrations/index.js';
import { migrationParts as previews } from '../previews/migrations/index.js';
import { migrationParts as sandbox } from '../sandbox/migrations/index.js';
import { migrationParts as senders } from '../senders/migrations/index.js';
import { migrationParts as suppression } from '../suppression/migrations/index.js';
import { migrationParts as templates } from '../templates/migrations/index.js';
import { migrationParts as webhooks } from '../webhooks/migrations/index.js';

/** Every area's parts (src/<area>/migrations/index.ts, oauth/migrations/, the platform's own), by area. */
export const MIGRATION_PARTS = {
  platform,
  accounts,
  senders,
  sandbox,
  contacts,
  fields,
  groups,
  templates,
  messaging,
  carriers,
  oauth,
  previews,
  conversations,
  inbound,
  suppression,
  webhooks,
  forms,
  billing,
} as const;

export type MigrationArea = keyof typeof MIGRATION_PARTS;

/**
 * Every migration, in order, with the areas whose parts it runs, in the order they run. The names are the ones
 * recorded in the database (kysely_migration) and never change; 014 was never used. A migration whose statements
 * touch the tables of several areas is split into one part per area, each in the folder of the area that owns the
 * tables (the one whose tables.ts declares them); the parts run in the order listed here, which is the order the
 * statements had in the single file before the split, so foreign keys always point at tables that exist and data
 * back-fills read columns already added. Numbered files are never edited after they land; a change to a table is a
 * new number.
 *
 * What each brought: 001 foundation (accounts, users, API keys, sessions, senders, settings), 002 sandbox, 003 address
 * book & templates, 004 messaging, 005 OAuth, 006 MCP previews, 007 engagement, 008 webhooks and forms, 009 SMPP
 * carrier, 010 the messages phone index, 011 the simulated carrier's receipt indexes, 012 approval-bound API keys and
 * the management permissions, 013 the merge fingerprint of previews, 015 idempotency keys, 016 webhook circuit breaker
 * and fair claim, 017 SMPP, 018 the credit ledger, 019 limits shared by instances (rate limiter counters, the forms'
 * identical-submission key), 020 cache change notifications (PostgreSQL), 021 the per-sender throughput budget, 022 the
 * parts of concatenated incoming SMS, 023 the merged values of previews, 024 known login devices and the latest
 * failure of a login counter, 025 the caps on opt-in forms' confirmation SMS, 026 who last wrote a contact's merge
 * values among approval-bound credentials (and the OAuth client's name on its tokens), 027 the confirmation of an
 * opt-out (account setting), 028 the consent record (consent_events), 029 quiet hours (account setting,
 * messages.quiet_place), 030 budgets per credential (limits and per-day spend counters), 031 the approvals inbox and
 * audit trail (append-only approval records, the credential and expiry notice of previews, the preview of a message),
 * 032 a sender's own consent words, 033 instances and their heartbeats (who holds a claim), 034 messages without
 * per-row foreign-key checks on PostgreSQL (statement triggers follow a deleted account or job), 035 `status` out of the
 * messages indexes on jobs and contacts, 036 consent reviews (and whether a message is transactional), 037 the consent
 * record by contact (a deleted contact's id still finds it), 038 consent replies in the word's language (account
 * settings), 039 budget holds of approved previews.
 *
 * To add one (docs/storage.md "Migrations"): a file `NNN_name.ts` in each owning area's `migrations/` folder, listed
 * in that folder's index.ts, and a line here; test/unit/migration-parts.test.ts holds the same list and fails until it
 * is added there too.
 */
export const MIGRATION_ORDER: Readonly<Record<string, readonly MigrationArea[]>> = {
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

/** This version's migrations, one Kysely migration per name, for openDatabase and the copy to PostgreSQL. */
export const migrations: Migrations = composeMigrations(MIGRATION_ORDER, MIGRATION_PARTS);
