/**
 * The approval audit trail's pure parts (issue #29): the fingerprint of what a share page shows,
 * the CSV of an account's approval history, and the states of the approvals inbox.
 */
import { toIso } from '../platform/clock.js';
import type { PreviewApprovalsTable, PreviewsTable } from './tables.js';
import { sha256Hex } from '../platform/secrets.js';
import { csvCell } from '../platform/csv.js';

/**
 * SHA-256 over everything the share page renders a preview from: its id, the canonical payload
 * (recipients included, by its hash), the dry-run estimate (recipients, cost, samples, schedule),
 * the warnings, and what every recipient gets merged in (the merge fingerprint and the merged
 * values the page lists). These are fixed when the preview is stored; the page posts the value it
 * rendered back with the decision and the decision is refused unless it matches, so a record says
 * exactly which content the person looked at.
 */
export function shownFingerprint(row: Pick<PreviewsTable, 'id' | 'payload_hash' | 'estimate' | 'warnings' | 'merge_fingerprint' | 'merge_values'>): string {
  return sha256Hex(['prv-shown-v1', row.id, row.payload_hash, sha256Hex(row.estimate), sha256Hex(row.warnings), sha256Hex(row.merge_fingerprint ?? ''), sha256Hex(row.merge_values ?? '')].join('\n'));
}

/** The states of the approvals inbox (a person's words for the stored status and the expiry). */
export const INBOX_STATES = ['waiting', 'approved', 'rejected', 'expired', 'sent'] as const;
export type InboxState = (typeof INBOX_STATES)[number];

/** The inbox state of a preview at `now`: pending/approved past their expiry are expired; sending counts as sent. */
export function inboxState(row: Pick<PreviewsTable, 'status' | 'expires_at'>, now: number): InboxState {
  if (row.status === 'sent' || row.status === 'sending') return 'sent';
  if (row.status === 'rejected') return 'rejected';
  if (row.expires_at <= now) return 'expired';
  return row.status === 'approved' ? 'approved' : 'waiting';
}

export const APPROVALS_CSV_COLUMNS = [
  'approval_id',
  'decided_at',
  'decision',
  'preview_id',
  'kind',
  'recipients',
  'credits_estimated',
  'created_by_credential',
  'user_id',
  'user_email',
  'client_ip',
  'user_agent',
  'session_hash',
  'shown_fingerprint',
] as const;

export function approvalsCsvHeader(): string {
  return `${APPROVALS_CSV_COLUMNS.join(',')}\r\n`;
}

export function approvalCsvLine(r: PreviewApprovalsTable): string {
  const cells = [r.id, toIso(r.decided_at), r.decision, r.preview_id, r.preview_kind, r.recipients, r.credits_milli / 1000, r.credential_label, r.user_id, r.user_email, r.client_ip, r.user_agent, r.session_hash, r.fingerprint];
  return `${cells.map((c) => csvCell(c ?? null)).join(',')}\r\n`;
}
