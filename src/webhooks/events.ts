import { toIso } from '../platform/clock.js';
import { parseJson } from '../platform/db/sql.js';
import type { InteractionsTable } from '../inbound/tables.js';
import type { MessageStatus, MessagesTable } from '../messaging/tables.js';
import type { PreviewApprovalsTable } from '../previews/tables.js';
import type { PreviewFacts } from '../previews/events.js';
import type { OptInEvent, OptOutEvent } from '../suppression/opt-outs.js';
import type { ConsentReviewEvent } from '../suppression/schemas.js';

/**
 * The event kinds an endpoint can subscribe to (spec §6; the shapes §6 leaves open are designed
 * here and documented with examples in docs/webhooks.md). Every payload is one flat JSON object:
 * `{id, event, createdAt, …}` — `id` is the event id (evt_…, also the X-RCS-Event-Id header, the
 * same on every retry), `event` the kind, `createdAt` when the fact happened — followed by the
 * kind's objects. Ids inside are the global public ids (msg_…, ct_…, frm_…, sub_…), never
 * per-account counters, so a receiver may de-duplicate on them alone.
 */
export const WEBHOOK_EVENTS = [
  'button_interaction',
  'rcs_message_received',
  'sms_message_received',
  'delivery_status',
  'form_submission',
  'form_optin_confirmed',
  'preview.created',
  'preview.approved',
  'preview.rejected',
  'preview.expired',
  'contact.opted_out',
  'contact.resubscribed',
  'consent.review',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
/** Sent only by POST /webhooks/{id}/test; no endpoint subscribes to it. */
export const TEST_EVENT = 'webhook_test';

export const EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  button_interaction: 'A recipient tapped a reply chip, a postback button or an action of one of your messages',
  rcs_message_received: 'A person sent an RCS message to one of your senders',
  sms_message_received: 'A person sent an SMS to one of your senders',
  delivery_status: 'A message you sent changed status: SENT, DELIVERED, READ or FAILED (with error and fallback)',
  form_submission: 'Someone submitted one of your opt-in forms (opt-in still PENDING)',
  form_optin_confirmed: 'A form submission was confirmed through the link in the confirmation SMS',
  'preview.created': 'An assistant or API key previewed a send: it waits for a person at its share URL when approval is required',
  'preview.approved': 'A person approved a preview on its share page (who and when are in the payload)',
  'preview.rejected': 'A person rejected a preview on its share page; it will not be sent',
  'preview.expired': 'A preview expired while still waiting or approved but not sent; it can no longer be sent',
  'contact.opted_out': 'A number opted out: a STOP reply, an unsubscribe chip or link, or a person confirming a consent review',
  'contact.resubscribed': 'A number that had opted out replied START (or an equivalent) and may be messaged again',
  'consent.review': 'A reply that may be a request to stop paused marketing to the number (opened), or the review was confirmed or released',
};

/** Everything after the envelope; the envelope (`id`, `event`, `createdAt`) is added by the outbox. */
export type EventBody = Record<string, unknown>;

export interface PayloadContact {
  id: string | null;
  /** E.164 with +. */
  phone: string;
  name: string | null;
}

/** The statuses a delivery_status event reports. */
export const REPORTED_STATUSES: ReadonlySet<MessageStatus> = new Set(['SENT', 'DELIVERED', 'READ', 'FAILED', 'BLOCKED', 'REJECTED']);

/** `message` of delivery_status, as of one status. */
export function deliveryStatusBody(m: MessagesTable, status: MessageStatus, previous: MessageStatus, contact: PayloadContact | null): EventBody {
  const statusAt = status === 'SENT' ? m.sent_at : status === 'DELIVERED' ? m.delivered_at : status === 'READ' ? m.read_at : (m.failed_at ?? m.sent_at);
  return {
    message: {
      messageRecordId: m.id,
      type: m.type,
      status,
      previousStatus: previous,
      statusAt: toIso(statusAt),
      phoneNumber: `+${m.phone}`,
      sendernameId: m.sendername_id,
      campaignName: m.campaign_name,
      jobId: m.job_id,
      method: m.method,
      fallbackUsed: m.fallback_used === 1,
      fallbackReason: m.fallback_reason,
      fallbackSendernameId: m.fallback_used === 1 ? (parseJson<{ sendernameId?: string } | null>(m.sms_fallback, null)?.sendernameId ?? null) : null,
      error: status === 'FAILED' || status === 'BLOCKED' || status === 'REJECTED' ? m.error : null,
      smsSegments: m.method === 'SMS' || m.type === 'SMS' ? m.sms_segments : null,
      sentAt: toIso(m.sent_at),
      deliveredAt: toIso(m.delivered_at),
      readAt: toIso(m.read_at),
      failedAt: toIso(m.failed_at),
    },
    contact,
  };
}

/** rcs_message_received / sms_message_received. */
export function inboundBody(m: MessagesTable, contact: PayloadContact): EventBody {
  return {
    message: {
      messageRecordId: m.id,
      type: m.type,
      direction: 'INBOUND',
      status: 'RECEIVED',
      text: m.text,
      from: `+${m.phone}`,
      sendernameId: m.sendername_id,
      campaignName: m.campaign_name,
      smsSegments: m.type === 'SMS' ? m.sms_segments : null,
      receivedAt: toIso(m.created_at),
    },
    contact,
  };
}

/** button_interaction: §6 `{interaction {type, buttonText, postbackData}, contact {phone, name}}` plus ids and context. */
export function buttonInteractionBody(i: InteractionsTable, contact: PayloadContact): EventBody {
  return {
    interaction: {
      type: 'button_click',
      buttonText: i.button_text,
      postbackData: i.postback_data,
      actionType: i.action_type,
      interactionId: i.id,
      messageRecordId: i.message_id,
      campaignName: i.campaign_name,
      sendernameId: i.sender_id,
      occurredAt: toIso(i.occurred_at),
    },
    contact,
  };
}

/** The statuses a receiver hears of for one change: SENT → READ in one go reports DELIVERED, then READ. */
export function reportedSteps(m: MessagesTable, previous: MessageStatus): Array<{ status: MessageStatus; previous: MessageStatus }> {
  if (m.direction !== 'OUTBOUND' || !REPORTED_STATUSES.has(m.status) || m.status === previous) return [];
  if (m.status === 'READ' && (previous === 'SENT' || previous === 'SENDING') && m.delivered_at !== null) {
    const steps: Array<{ status: MessageStatus; previous: MessageStatus }> = [];
    let prev = previous;
    if (prev === 'SENDING' && m.sent_at !== null) {
      steps.push({ status: 'SENT', previous: prev });
      prev = 'SENT';
    }
    steps.push({ status: 'DELIVERED', previous: prev }, { status: 'READ', previous: 'DELIVERED' });
    return steps;
  }
  if ((m.status === 'DELIVERED' || m.status === 'READ') && previous === 'SENDING' && m.sent_at !== null) {
    return [{ status: 'SENT', previous }, { status: m.status, previous: 'SENT' }];
  }
  return [{ status: m.status, previous }];
}

/**
 * preview.created / .approved / .rejected / .expired: the preview (id, kind, credential that made
 * it, recipient count, estimated cost, share URL) and, for a decision, who decided and when.
 */
export function previewBody(p: PreviewFacts, decision: PreviewApprovalsTable | null = null): EventBody {
  return {
    preview: {
      previewId: p.previewId,
      kind: p.kind,
      channel: p.kind === 'sms' ? 'SMS' : 'RCS',
      status: p.status,
      approvalRequired: p.approvalRequired,
      credential: p.credential,
      recipients: p.recipients,
      creditsEstimated: p.creditsEstimated,
      campaignName: p.campaignName,
      shareUrl: p.shareUrl,
      createdAt: toIso(p.createdAt),
      expiresAt: toIso(p.expiresAt),
    },
    ...(decision
      ? { decision: { approvalId: decision.id, decision: decision.decision, decidedAt: toIso(decision.decided_at), userId: decision.user_id, email: decision.user_email } }
      : {}),
  };
}

/** contact.opted_out: the number, its contact, where the opt-out came from and what it cancelled. */
export function optedOutBody(e: OptOutEvent): EventBody {
  return {
    contact: { id: e.contactId, phone: e.phone },
    optOut: {
      source: e.source,
      keyword: e.keyword,
      sendernameId: e.senderId,
      messageRecordId: e.messageId,
      confirmedBy: e.actor,
      cancelledMessages: e.cancelledMessages,
      occurredAt: toIso(e.at),
    },
  };
}

/** contact.resubscribed: the number, its contact and the word that re-subscribed it. */
export function resubscribedBody(e: OptInEvent): EventBody {
  return {
    contact: { id: e.contactId, phone: e.phone },
    resubscribe: { source: 'keyword', keyword: e.keyword, sendernameId: e.senderId, messageRecordId: e.messageId, occurredAt: toIso(e.at) },
  };
}

/** consent.review: what happened (opened, confirmed, released) and the review as the REST API shows it. */
export function consentReviewBody(e: ConsentReviewEvent): EventBody {
  return { action: e.action, review: e.review, contact: { id: e.review.contactId, phone: e.review.phone } };
}
