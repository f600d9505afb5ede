import { z } from 'zod';
import { toIso } from '../platform/clock.js';
import { parseJson } from '../platform/db/sql.js';
import type { MessagesTable } from './tables.js';
import { milliToCredits } from '../billing/pricing.js';

export const MESSAGE_STATUSES = ['SCHEDULED', 'SENDING', 'SENT', 'DELIVERED', 'READ', 'RECEIVED', 'FAILED', 'BLOCKED', 'REJECTED'] as const;
export const MessageStatusSchema = z.enum(MESSAGE_STATUSES);

const Fallback = z.object({ message: z.string(), sendernameId: z.string() }).nullable();

/** A message log record (spec §2.7). */
export const MessageLogRecordSchema = z.object({
  id: z.string(),
  type: z.enum(['RCS', 'SMS']),
  status: MessageStatusSchema,
  direction: z.string(),
  source: z.string(),
  phoneNumber: z.string(),
  content: z.string().describe('Flat text summary'),
  campaignName: z.string().nullable(),
  sendernameId: z.string(),
  smsFallback: Fallback,
  creditsCost: z.number().nullable(),
  method: z.enum(['RCS', 'SMS']).nullable(),
  fallbackUsed: z.boolean(),
  fallbackReason: z.string().nullable(),
  jobId: z.string().nullable(),
  contactId: z.string().nullable(),
  carrierMessageId: z.string().nullable(),
  smsSegments: z.number().nullable(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  readAt: z.string().nullable(),
  scheduledAt: z.string().nullable(),
  failedAt: z.string().nullable(),
  error: z.string().nullable(),
  previewId: z.string().nullable().describe('The preview it was sent from (prv_…), if any.'),
  approvedBy: z.string().nullable().describe('E-mail of the person who approved that preview; null when nobody had to.'),
  approvedAt: z.string().nullable(),
});
export type MessageLogRecord = z.infer<typeof MessageLogRecordSchema>;

/** Who approved the preview a message was sent from (the previews area's audit trail). */
export interface Approver {
  email: string;
  at: number;
}

export function toLogRecord(row: MessagesTable, approver: Approver | null = null): MessageLogRecord {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    direction: row.direction,
    source: row.source,
    phoneNumber: `+${row.phone}`,
    content: row.text,
    campaignName: row.campaign_name,
    sendernameId: row.sendername_id,
    smsFallback: parseJson(row.sms_fallback, null),
    creditsCost: row.credits_cost_milli === null ? null : milliToCredits(row.credits_cost_milli),
    method: row.method,
    fallbackUsed: row.fallback_used === 1,
    fallbackReason: row.fallback_reason,
    jobId: row.job_id,
    contactId: row.contact_id,
    carrierMessageId: row.carrier_message_id,
    smsSegments: row.sms_segments,
    createdAt: toIso(row.created_at)!,
    sentAt: toIso(row.sent_at),
    deliveredAt: toIso(row.delivered_at),
    readAt: toIso(row.read_at),
    scheduledAt: toIso(row.scheduled_at),
    failedAt: toIso(row.failed_at),
    error: row.error,
    previewId: row.preview_id,
    approvedBy: approver?.email ?? null,
    approvedAt: approver ? toIso(approver.at) : null,
  };
}

/** GET /{id}/content (spec §2.7 "Message content response"). */
export const MessageContentSchema = z.object({
  success: z.literal(true),
  message: z.object({
    id: z.string(),
    type: z.enum(['RCS', 'SMS']),
    status: MessageStatusSchema,
    direction: z.string(),
    source: z.string(),
    phoneNumber: z.string(),
    messageType: z.string().optional(),
    content: z.union([z.record(z.string(), z.unknown()), z.string()]),
    text: z.string(),
    error: z.string().nullable(),
    smsFallback: Fallback.optional(),
    campaignName: z.string().nullable(),
    sendernameId: z.string(),
    createdAt: z.string(),
    sentAt: z.string().nullable(),
  }),
});

export function toContentResponse(row: MessagesTable): z.infer<typeof MessageContentSchema> {
  const fallback = parseJson<{ message: string; sendernameId: string } | null>(row.sms_fallback, null);
  return {
    success: true,
    message: {
      id: row.id,
      type: row.type,
      status: row.status,
      direction: row.direction,
      source: row.source,
      phoneNumber: `+${row.phone}`,
      ...(row.type === 'RCS' && row.message_type ? { messageType: row.message_type } : {}),
      content: row.type === 'RCS' ? parseJson<Record<string, unknown>>(row.content, {}) : row.text,
      // SMS body, or for RCS the text a fallback shows (the merged fallback) or the flat summary.
      text: row.type === 'SMS' ? row.text : (row.fallback_text ?? row.text),
      error: row.error,
      ...(fallback ? { smsFallback: fallback } : {}),
      campaignName: row.campaign_name,
      sendernameId: row.sendername_id,
      createdAt: toIso(row.created_at)!,
      sentAt: toIso(row.sent_at),
    },
  };
}
