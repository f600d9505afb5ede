import { z } from 'zod';
import {
  ContentSchema,
  MessageTypeSchema,
  SmsFallbackSchema,
  printable,
  withRcsMessageRules,
} from '../content/index.js';
import { SMS_MAX_LENGTH } from '../sms/index.js';
import { BATCH_DELAY_MS_DEFAULT, BATCH_DELAY_MS_MAX, BATCH_DELAY_MS_MIN, BATCH_MAX_RECIPIENTS, BATCH_SIZE_DEFAULT, BATCH_SIZE_MAX, BATCH_SIZE_MIN, CAMPAIGN_NAME_MAX_LENGTH } from './limits.js';
import { RejectedRecipientSchema } from '../platform/error-fields.js';

const PhoneNumber = z.string().min(1).max(40).describe('Recipient with country code, e.g. +4915112345678.');
const CampaignName = z.string().max(CAMPAIGN_NAME_MAX_LENGTH).describe('Free label for reporting.');
const ScheduleAt = z.string().min(1).max(64).describe('ISO 8601; without offset, wall time in timeZone.');
const TimeZone = z.string().min(1).max(64).describe('IANA zone; default the account zone.');
const SkipContactCreation = z.boolean().default(false).describe('Do not create a contact for an unknown number.');
const SkipDisabled = z.boolean().default(true).describe('Skip disabled or opted-out contacts (default true).');
/** Exempt from the account's quiet hours (issue #28): sent at once, never deferred. */
export const Transactional = z.boolean().optional().describe('One-time code or reply in an open chat: exempt from quiet hours.');

const sendShape = {
  phoneNumber: PhoneNumber,
  messageType: MessageTypeSchema,
  content: ContentSchema,
  sendernameId: z.string().min(1).max(64).describe('An approved RCS sender id (list_sendernames).'),
  contactId: z.string().min(1).max(64).optional().describe('Existing contact with this phoneNumber.'),
  skipContactCreation: SkipContactCreation,
  skipDisabled: SkipDisabled,
  campaignName: CampaignName.optional(),
  scheduleAt: ScheduleAt.optional(),
  timeZone: TimeZone.optional(),
  smsFallback: SmsFallbackSchema.optional(),
  transactional: Transactional,
};
const { phoneNumber: _phoneNumber, contactId: _contactId, ...batchBase } = sendShape;

/** POST /send (spec §4.1): the envelope, the content and what the messageType needs of it, in one schema. */
export const SendMessageRequestSchema = withRcsMessageRules(z.strictObject(sendShape));
export type SendMessageRequest = z.output<typeof SendMessageRequestSchema>;

/** POST /send-batch: /send without phoneNumber/contactId, plus phoneNumbers, batchSize, delayMs. */
export const SendBatchRequestSchema = withRcsMessageRules(
  z.strictObject({
    ...batchBase,
    phoneNumbers: z.array(z.string().max(40)).min(1).max(BATCH_MAX_RECIPIENTS).describe(`Recipients, at most ${BATCH_MAX_RECIPIENTS}; duplicates are sent once.`),
    batchSize: z.number().int().min(BATCH_SIZE_MIN).max(BATCH_SIZE_MAX).default(BATCH_SIZE_DEFAULT).describe('Messages per slice.'),
    delayMs: z.number().int().min(BATCH_DELAY_MS_MIN).max(BATCH_DELAY_MS_MAX).default(BATCH_DELAY_MS_DEFAULT).describe('Pause between slices in milliseconds.'),
  }),
);
export type SendBatchRequest = z.output<typeof SendBatchRequestSchema>;

/** POST /send-sms (spec §4.1). */
export const SendSmsRequestSchema = z.strictObject({
  phoneNumber: PhoneNumber,
  message: printable(z.string()).min(1).max(SMS_MAX_LENGTH).describe('SMS text; the limit applies after merging.'),
  sendernameId: z.string().min(1).max(100).describe('ID or name of an approved SMS sender.'),
  campaignName: CampaignName.optional(),
  skipContactCreation: SkipContactCreation,
  skipDisabled: SkipDisabled,
  scheduleAt: ScheduleAt.optional(),
  timeZone: TimeZone.optional(),
  transactional: Transactional,
});
export type SendSmsRequest = z.output<typeof SendSmsRequestSchema>;

/** When quiet hours deferred a message: the opening of the recipient's window it waits for (UTC). */
const DeferredUntil = z.string().optional().describe('Quiet hours: sent at this time (UTC)');

/** What quiet hours did to a send (src/messaging/quiet-hours.ts). */
export const QuietHoursSummarySchema = z.object({
  enabled: z.boolean(),
  transactional: z.boolean(),
  deferred: z.number().int(),
  earliestOpening: z.string().optional(),
  latestOpening: z.string().optional(),
});

// Defined beside the error fields: a refused send carries the same list (VALIDATION_ERROR's `rejected`).
export { RejectedRecipientSchema };
export type RejectedRecipient = z.infer<typeof RejectedRecipientSchema>;

const ScheduledFields = {
  scheduled: z.literal(true),
  jobId: z.string(),
  messageId: z.string(),
  scheduleTime: z.string().describe('UTC instant'),
  localScheduleTime: z.string().describe('The instant with the offset of effectiveTimezone'),
  effectiveTimezone: z.string(),
  timezoneSource: z.enum(['request', 'account']),
};

/**
 * An immediate send that waits for a later time (quiet hours held it back): `scheduled` is true and these say when it
 * goes, in the zone the hold was computed in — the recipient's (issue #42). Absent when the message went or is queued
 * to go now (`scheduled` false).
 */
const HeldBackFields = {
  scheduled: z.boolean().describe('true when the message waits for a later time (quiet hours held it back; scheduleTime says when); false when it went or is queued to go now'),
  scheduleTime: z.string().optional().describe('Held back: when it goes (UTC)'),
  localScheduleTime: z.string().optional().describe('Held back: the same instant with the offset of effectiveTimezone'),
  effectiveTimezone: z.string().optional().describe("Held back: the recipient's zone the hold was computed in"),
  timezoneSource: z.literal('recipient').optional(),
};

/** Immediate RCS send result (spec §2.12); `scheduled` true when quiet hours held it back. */
export const SendMessageResponseSchema = z.object({
  success: z.boolean(),
  ...HeldBackFields,
  messageRecordId: z.string(),
  status: z.string(),
  method: z.enum(['RCS', 'SMS']).nullable().describe('Channel it went out on; null while still queued.'),
  queued: z.boolean(),
  countrySupported: z.boolean(),
  countryError: z.string().optional(),
  fallbackUsed: z.boolean(),
  fallbackReason: z.string().optional(),
  creditsEstimated: z.number(),
  error: z.string().optional(),
  deferredUntil: DeferredUntil,
});

export const ScheduledSendResponseSchema = z.object({
  success: z.literal(true),
  ...ScheduledFields,
  deferredUntil: DeferredUntil,
  creditsEstimated: z.number(),
  smsSegments: z.number().int().optional(),
  smsEncoding: z.enum(['GSM-7', 'Unicode']).optional(),
});

export const SendSmsResponseSchema = z.object({
  success: z.boolean(),
  messageId: z.string(),
  ...HeldBackFields,
  queued: z.boolean(),
  status: z.string(),
  smsSegments: z.number().int(),
  smsEncoding: z.enum(['GSM-7', 'Unicode']),
  creditsEstimated: z.number(),
  error: z.string().optional(),
  deferredUntil: DeferredUntil,
});

export const JobStatusSchema = z.enum(['scheduled', 'processing', 'completed', 'failed', 'cancelled']);
export type JobStatus = z.infer<typeof JobStatusSchema>;

export const JobSchema = z.object({
  jobId: z.string(),
  type: z.enum(['batch', 'scheduled']),
  channel: z.enum(['RCS', 'SMS']),
  status: JobStatusSchema,
  campaignName: z.string().nullable(),
  sendernameId: z.string(),
  messageType: z.string().nullable(),
  createdAt: z.string(),
  scheduledAt: z.string().nullable(),
  cancelledAt: z.string().nullable(),
  batchSize: z.number().int(),
  delayMs: z.number().int(),
  progress: z.object({
    total: z.number().int().describe('Messages accepted for this job'),
    pending: z.number().int().describe('Not yet handed to a carrier (scheduled or queued)'),
    sent: z.number().int().describe('SENT, DELIVERED or READ'),
    delivered: z.number().int(),
    read: z.number().int(),
    failed: z.number().int(),
    cancelled: z.number().int().describe('Unsent messages removed by cancellation'),
    percent: z.number().describe('Share of accepted messages that reached a final outcome, 0–100'),
  }),
  rejected: z.array(RejectedRecipientSchema).describe('Numbers refused at accept time, with the reason'),
  creditsCharged: z.number(),
});
export type Job = z.infer<typeof JobSchema>;

export const BatchResponseSchema = z.object({
  success: z.literal(true),
  jobId: z.string(),
  status: JobStatusSchema,
  scheduled: z.boolean().describe('true when nothing goes now: scheduleAt was given, or quiet hours held back every recipient (scheduleTime is then the first one\'s opening, timezoneSource recipient)'),
  queued: z.boolean(),
  totalRequested: z.number().int().describe('phoneNumbers given'),
  accepted: z.number().int().describe('Messages created (after normalising and de-duplicating)'),
  duplicates: z.number().int(),
  rejectedCount: z.number().int(),
  rejected: z.array(RejectedRecipientSchema),
  creditsEstimated: z.number(),
  batchSize: z.number().int(),
  delayMs: z.number().int(),
  estimatedCompletionTime: z.string().describe('When the last slice is due (UTC)'),
  scheduleTime: z.string().optional(),
  localScheduleTime: z.string().optional(),
  effectiveTimezone: z.string().optional(),
  timezoneSource: z.enum(['request', 'account', 'recipient']).optional(),
  quietHours: QuietHoursSummarySchema.optional(),
});
export type BatchResponse = z.infer<typeof BatchResponseSchema>;

/** DELETE /batch/{jobId}. */
export const CancelBatchResponseSchema = z.object({
  success: z.literal(true),
  jobId: z.string(),
  cancelledMessages: z.number().int().describe('Unsent messages removed by this call (0 when nothing was left to cancel)'),
  creditsRefunded: z.number(),
  job: JobSchema,
});

/** GET /queue/status. */
export const QueueStatusResponseSchema = z.object({
  success: z.literal(true),
  queue: z.object({
    dueNow: z.number().int().describe('Messages due now, waiting for the dispatcher'),
    scheduledLater: z.number().int().describe('Messages scheduled for later'),
    inFlight: z.number().int().describe('Messages a dispatcher is handing to a carrier right now'),
    nextDueAt: z.string().nullable().describe('When the next pending message is due (ISO 8601), null when none'),
  }),
  pendingJobs: z.array(
    z.object({ jobId: z.string(), type: z.enum(['batch', 'scheduled']), status: JobStatusSchema, scheduledAt: z.string().nullable(), pending: z.number().int(), total: z.number().int() }),
  ),
  timestamp: z.string(),
});

const ByChannel = z.object({ RCS: z.number().int(), SMS: z.number().int() });

/** GET /stats. */
export const StatsResponseSchema = z.object({
  success: z.literal(true),
  range: z.object({ startDate: z.string(), endDate: z.string(), period: z.string().describe('The period asked for, or custom for a startDate/endDate range') }),
  totals: z.object({
    messages: z.number().int(),
    outbound: z.number().int(),
    inbound: z.number().int(),
    byStatus: z.record(z.string(), z.number().int()).describe('Messages per status (every status of the log, 0 when none)'),
    byType: ByChannel,
    sentByMethod: ByChannel.describe('Messages handed over per channel actually used (RCS, or SMS as fallback or standalone)'),
    fallbackUsed: z.number().int(),
    deliveryRate: z.number().describe('Delivered or read, in percent of those sent, one decimal'),
    readRate: z.number().describe('Read, in percent of those sent, one decimal'),
  }),
  creditsSpent: z.number(),
});

/** DELETE /api/messages/{id}. */
export const CancelScheduledResponseSchema = z.object({ success: z.literal(true), messageId: z.string(), cancelled: z.literal(true), creditsRefunded: z.number() });

/** The documented answer of a single send to a recipient that had its share of messages in the window (RECIPIENT_RATE_LIMIT). */
export const RECIPIENT_THROTTLED = { description: 'RATE_LIMITED: this recipient had its share of messages for now (retryAfterSeconds, Retry-After); nothing was sent or charged' };
