/**
 * The approval policy of previews, decided here and nowhere else (DESIGN §6, issue #27): whether a
 * send needs a person, whether this credential may send this preview now, which kind of preview a
 * body is, and how an echoed payload is compared with the stored one. PreviewsService, the REST flow
 * and the MCP tools only word the answers for their callers.
 */
import type { PreviewsTable } from './tables.js';
import { isRecord } from '../platform/guards.js';
import type { Principal } from '../platform/permissions.js';
import { differingPaths } from '../platform/canonical-json.js';

export type PreviewKind = PreviewsTable['kind'];

/** A send that started this long ago without finishing is reported as stuck, not repeated. */
export const SENDING_STUCK_MS = 60_000;

type Credential = Pick<Principal, 'sendsNeedApproval'>;

/**
 * Whether a new preview waits for a person: the account's switch (§3.5, on by default) or the
 * credential — an assistant's preview (OAuth token, key marked "sends need approval") always does.
 */
export function previewNeedsPerson(account: { approvalRequired: boolean }, principal: Credential): boolean {
  return account.approvalRequired || principal.sendsNeedApproval;
}

/**
 * Whether sending this preview with this credential needs a person's approval first: the preview's
 * own mark, or the sender's credential (an assistant must not send an unapproved preview that an
 * automation key made while the account's switch was off).
 */
export function sendNeedsPerson(preview: { approvalRequired: boolean }, principal: Credential): boolean {
  return preview.approvalRequired || principal.sendsNeedApproval;
}

/** Whether the caller still has to wait for a person before this preview can be sent. */
export function waitsForPerson(preview: { approvalRequired: boolean; status: PreviewsTable['status'] }, principal: Credential): boolean {
  return sendNeedsPerson(preview, principal) && preview.status !== 'approved' && preview.status !== 'sending' && preview.status !== 'sent';
}

/**
 * An open identical preview may be handed back (idempotent sms_preview) only while it still shows
 * what would be sent, and never a preview that needs no approval to a credential whose sends need it.
 */
export function mayReuse(existing: Pick<PreviewsTable, 'approval_required'>, principal: Credential, stillCurrent: boolean): boolean {
  return stillCurrent && (existing.approval_required === 1 || !principal.sendsNeedApproval);
}

/** Why a preview cannot be sent now, or null when it may be. Checked in this order. */
export type SendRefusal = 'wrong_kind' | 'rejected' | 'expired' | 'sending' | 'stuck' | 'not_approved';

export function sendRefusal(row: PreviewsTable, kind: PreviewKind, principal: Credential, now: number): SendRefusal | null {
  if (row.kind !== kind) return 'wrong_kind';
  if (row.status === 'rejected') return 'rejected';
  if (row.expires_at <= now) return 'expired';
  if (row.status === 'sending') return row.send_started_at !== null && now - row.send_started_at > SENDING_STUCK_MS ? 'stuck' : 'sending';
  if (sendNeedsPerson({ approvalRequired: row.approval_required === 1 }, principal) && row.status !== 'approved') return 'not_approved';
  return null;
}

/** No body, or an empty JSON object: "send what was previewed". */
export function isEmptyBody(body: unknown): boolean {
  return body === undefined || body === null || (isRecord(body) && Object.keys(body).length === 0);
}

/**
 * Where an echoed payload differs from the stored one (field paths, at most 20); none when no
 * payload was echoed, because the preview_id alone names exactly what the person saw.
 */
export function payloadDifferences(stored: Record<string, unknown>, echoed: Record<string, unknown> | undefined): string[] {
  return echoed === undefined ? [] : differingPaths(stored, echoed);
}

/**
 * A payload echoed to the send of a batch preview may leave phoneNumbers out: preview answers do not repeat a batch's
 * numbers (issue #42), so the echo stands for the preview's own list. Every other field must still match.
 */
export function withPreviewRecipients(stored: Record<string, unknown>, echoed: unknown): unknown {
  if (!isRecord(echoed) || Object.keys(echoed).length === 0 || !Array.isArray(stored.phoneNumbers) || echoed.phoneNumbers !== undefined || echoed.phoneNumber !== undefined) return echoed;
  return { ...echoed, phoneNumbers: stored.phoneNumbers };
}

/** Which creation route a body belongs to: recipients list → batch, SMS text → SMS, otherwise one RCS message. */
export function kindOfBody(body: unknown): PreviewKind {
  if (isRecord(body) && body.phoneNumbers !== undefined) return 'rcs_batch';
  if (isRecord(body) && body.message !== undefined && body.messageType === undefined && body.content === undefined) return 'sms';
  return 'rcs';
}
