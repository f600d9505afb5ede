import { z } from 'zod';
import {
  ContentSchema,
  MessageTypeSchema,
} from '../content/index.js';
import { QuietHoursSummarySchema, SendBatchRequestSchema, SendMessageRequestSchema, SendSmsRequestSchema } from '../messaging/schemas.js';
import { BATCH_DELAY_MS_DEFAULT, BATCH_DELAY_MS_MAX, BATCH_DELAY_MS_MIN, BATCH_SIZE_DEFAULT, BATCH_SIZE_MAX, BATCH_SIZE_MIN } from '../messaging/limits.js';

const base = SendMessageRequestSchema.shape;
const batch = SendBatchRequestSchema.shape;

/**
 * The RCS payload an assistant previews and later sends: one recipient (phoneNumber → rcs_send)
 * or many (phoneNumbers → rcs_send_batch), and the message either as messageType + content or as
 * a templateId. One flat object (no top-level unions); the service checks the combinations.
 */
export const RcsPayloadSchema = z.strictObject({
  phoneNumber: base.phoneNumber.optional().describe('One recipient (→ rcs_send).'),
  phoneNumbers: batch.phoneNumbers.optional().describe('Many recipients (→ rcs_send_batch).'),
  messageType: MessageTypeSchema.optional().describe('With content, or use templateId.'),
  content: ContentSchema.optional(),
  templateId: z.string().max(64).optional().describe('RCS template (tpl_…) instead of content.'),
  sendernameId: base.sendernameId,
  contactId: base.contactId,
  skipContactCreation: z.boolean().optional().describe(base.skipContactCreation.description ?? ''),
  skipDisabled: z.boolean().optional().describe(base.skipDisabled.description ?? ''),
  campaignName: base.campaignName,
  scheduleAt: base.scheduleAt,
  timeZone: base.timeZone,
  smsFallback: base.smsFallback,
  transactional: base.transactional,
  // Without the defaults of the batch body: a single send must be able to leave them out.
  batchSize: z.number().int().min(BATCH_SIZE_MIN).max(BATCH_SIZE_MAX).optional().describe(`Batch: messages per slice (default ${BATCH_SIZE_DEFAULT}).`),
  delayMs: z.number().int().min(BATCH_DELAY_MS_MIN).max(BATCH_DELAY_MS_MAX).optional().describe(`Batch: ms between slices (default ${BATCH_DELAY_MS_DEFAULT}).`),
});
export type RcsPayload = z.infer<typeof RcsPayloadSchema>;

export const SmsPayloadSchema = z.strictObject({
  ...SendSmsRequestSchema.shape,
  skipContactCreation: z.boolean().optional().describe(base.skipContactCreation.description ?? ''),
  skipDisabled: z.boolean().optional().describe(base.skipDisabled.description ?? ''),
});
export type SmsPayload = z.infer<typeof SmsPayloadSchema>;

export const PreviewIdField = z.string().max(64).describe('From rcs_preview or sms_preview.');

/**
 * What a send tool takes (spec §4.7 rule 2, DESIGN §6): the preview, and optionally its payload
 * again. The payload is typed loosely on purpose: it is compared with the stored one, field by
 * field, so the send tools do not repeat the content schema.
 */
export const PreviewSendInputSchema = z.strictObject({
  preview_id: PreviewIdField,
  payload: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("If given, the preview's payload unchanged (else PREVIEW_MISMATCH)."),
});

export const PreviewResultSchema = z.object({
  preview_id: z.string(),
  share_url: z.string().describe('Give this link to the user: they log in, check the message and approve or reject it.'),
  approval_required: z.boolean(),
  status: z.enum(['pending', 'approved', 'rejected', 'sending', 'sent']),
  expires_at: z.string(),
  kind: z.enum(['rcs', 'rcs_batch', 'sms']),
  send_with: z.enum(['rcs_send', 'rcs_send_batch', 'sms_send']).describe('The tool that sends this preview.'),
  recipients: z.object({
    accepted: z.number().int(),
    duplicates: z.number().int(),
    rejected: z
      .array(z.object({ phoneNumber: z.string(), code: z.string(), reason: z.string(), details: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() })).optional() }))
      .describe('The first 10 numbers that will not be sent to, and why (rejectedCount counts all).'),
    rejectedCount: z.number().int().describe('How many numbers will not be sent to.'),
    phoneNumbers: z.number().int().describe('How many numbers the payload names (a batch\'s list is not repeated in the answer).'),
    listedAt: z.string().describe('GET this REST path (?page, ?limit, ?rejected=true) to page the numbers.'),
  }),
  creditsEstimated: z.number(),
  smsSegments: z.number().int().optional(),
  smsEncoding: z.enum(['GSM-7', 'Unicode']).optional(),
  samples: z.array(z.object({ phoneNumber: z.string(), text: z.string(), fallbackText: z.string().nullable(), creditsCost: z.number() })),
  schedule: z.object({ scheduleTime: z.string(), localScheduleTime: z.string(), effectiveTimezone: z.string(), timezoneSource: z.enum(['request', 'account']) }).optional(),
  quietHours: QuietHoursSummarySchema.optional().describe('Quiet hours: recipients deferred to their window, or transactional (exempt).'),
  mergeValues: z
    .object({
      recipients: z.number().int(),
      fields: z.array(
        z.object({
          name: z.string(),
          distinct: z.number().int(),
          flaggedValues: z.number().int(),
          values: z.array(z.object({ value: z.string(), recipients: z.number().int(), risks: z.array(z.string()) })),
          more: z.number().int(),
        }),
      ),
    })
    .optional()
    .describe('Per merge field, its distinct values (riskiest first) and how many recipients get each; the share page lists all.'),
  warnings: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() })),
  payload: z.record(z.string(), z.unknown()).describe('What was previewed, to pass to the send tool with preview_id (optional); a batch leaves phoneNumbers out.'),
  nextStep: z.string(),
});
export type PreviewResult = z.infer<typeof PreviewResultSchema>;
