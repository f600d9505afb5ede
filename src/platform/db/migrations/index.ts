import type { Migration } from 'kysely';
import * as m001 from './001_foundation.js';
import * as m002 from './002_sandbox.js';
import * as m003 from './003_address_book.js';
import * as m004 from './004_messaging.js';
import * as m005 from './005_oauth.js';
import * as m006 from './006_previews.js';
import * as m007 from './007_engagement.js';
import * as m008 from './008_webhooks_forms.js';
import * as m009 from './009_smpp.js';
import * as m010 from './010_messages_phone_window.js';
import * as m011 from './011_sim_receipt_indexes.js';
import * as m012 from './012_approval_bound_keys.js';
import * as m013 from './013_preview_merge_fingerprint.js';
import * as m015 from './015_idempotency_keys.js';
import * as m016 from './016_webhook_fairness.js';
import * as m017 from './017_smpp_unreported_partial.js';
import * as m018 from './018_credit_ledger.js';
import * as m019 from './019_shared_limits.js';
import * as m020 from './020_change_notifications.js';
import * as m021 from './021_sender_throughput.js';
import * as m022 from './022_smpp_mo_parts.js';
import * as m023 from './023_preview_merge_values.js';
import * as m024 from './024_login_devices.js';
import * as m025 from './025_form_confirmation_limits.js';
import * as m026 from './026_assistant_writes.js';
import * as m027 from './027_opt_out_confirmation.js';
import * as m028 from './028_consent_events.js';
import * as m029 from './029_quiet_hours.js';
import * as m030 from './030_credential_budgets.js';
import * as m031 from './031_approval_audit.js';
import * as m032 from './032_sender_consent_words.js';
import * as m033 from './033_instance_heartbeats.js';

/**
 * Every migration, in order. Numbered files are never edited after they land; a change to a table
 * is a new file. Each area owns its numbers: 002 sandbox, 003 address book & templates, 004 messaging, 005 OAuth, 006 MCP previews, 007 engagement, 008 webhooks and forms, 009 SMPP carrier, 010 the messages phone index, 011 the simulated carrier's receipt indexes, 012 approval-bound API keys and the management permissions, 013 the merge fingerprint of previews, 015 idempotency keys, 016 webhook circuit breaker and fair claim, 017 SMPP, 018 the credit ledger, 019 limits shared by instances (rate limiter counters, the forms' identical-submission key), 020 cache change notifications (PostgreSQL), 021 the per-sender throughput budget, 022 the parts of concatenated incoming SMS, 023 the merged values of previews, 024 known login devices and the latest failure of a login counter, 025 the caps on opt-in forms' confirmation SMS, 026 who last wrote a contact's merge values among approval-bound credentials (and the OAuth client's name on its tokens), 027 the confirmation of an opt-out (account setting), 028 the consent record (consent_events), 029 quiet hours (account setting, messages.quiet_place), 030 budgets per credential (limits and per-day spend counters), 031 the approvals inbox and audit trail (append-only approval records, the credential and expiry notice of previews, the preview of a message), 032 a sender's own consent words, 033 instances and their heartbeats (who holds a claim).
 */
export const migrations: Record<string, Migration> = {
  '001_foundation': m001,
  '002_sandbox': m002,
  '003_address_book': m003,
  '004_messaging': m004,
  '005_oauth': m005,
  '006_previews': m006,
  '007_engagement': m007,
  '008_webhooks_forms': m008,
  '009_smpp': m009,
  '010_messages_phone_window': m010,
  '011_sim_receipt_indexes': m011,
  '012_approval_bound_keys': m012,
  '013_preview_merge_fingerprint': m013,
  '015_idempotency_keys': m015,
  '016_webhook_fairness': m016,
  '017_smpp_unreported_partial': m017,
  '018_credit_ledger': m018,
  '019_shared_limits': m019,
  '020_change_notifications': m020,
  '021_sender_throughput': m021,
  '022_smpp_mo_parts': m022,
  '023_preview_merge_values': m023,
  '024_login_devices': m024,
  '025_form_confirmation_limits': m025,
  '026_assistant_writes': m026,
  '027_opt_out_confirmation': m027,
  '028_consent_events': m028,
  '029_quiet_hours': m029,
  '030_credential_budgets': m030,
  '031_approval_audit': m031,
  '032_sender_consent_words': m032,
  '033_instance_heartbeats': m033,
};
