import { z } from 'zod';
import { pageQueryFields, PagePaginationSchema } from '../platform/pagination.js';

/** Spec §8: 24 hours. */
export const CONVERSATION_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Spec §8: 1000 numbers per billing preview. */
export const BILLING_PREVIEW_MAX_NUMBERS = 1000;

export const ConversationStatusSchema = z.enum(['ACTIVE', 'EXPIRED']);
export type ConversationStatus = z.infer<typeof ConversationStatusSchema>;

const PhoneParam = z.string().min(1).max(40).describe('The number, e.g. +4915112345678 (URL-encode + as %2B).');
const SenderFilter = z.string().min(1).max(64).describe('Only this sender (sendernameId).');

/** GET {base_url}/conversations (spec §4.1): status filter, newest activity first, page-based. */
export const ConversationListQuerySchema = z.object({
  status: ConversationStatusSchema.optional().describe('ACTIVE (window open now) or EXPIRED; omit for both (spec §3.3).'),
  phoneNumber: PhoneParam.optional().describe('Only this number.'),
  sendernameId: SenderFilter.optional(),
  ...pageQueryFields({ defaultLimit: 20, maxLimit: 100 }),
});
export type ConversationListQuery = z.input<typeof ConversationListQuerySchema>;

/** `{phoneNumber}` of /conversations/{phoneNumber}/status and /rate-limit. */
export const ConversationPhoneParamsSchema = z.object({ phoneNumber: PhoneParam });

/** The input of rcs_conversation_status (the tool reuses it). */
export const ConversationStatusQuerySchema = z.object({
  phoneNumber: PhoneParam,
  sendernameId: SenderFilter.optional(),
});
export type ConversationStatusQuery = z.input<typeof ConversationStatusQuerySchema>;

/** One conversation window (spec §3.3). Status is derived when asked, never stored. */
export const ConversationSchema = z.object({
  id: z.string().describe('cnv_… id of the window'),
  phoneNumber: z.string(),
  sendernameId: z.string(),
  senderName: z.string().nullable(),
  status: ConversationStatusSchema,
  sessionStarted: z.string().describe('When the window opened: the send time of the first billable message'),
  sessionExpires: z.string().describe('24 h after sessionStarted, or 24 h after the first reply of the person'),
  remainingSeconds: z.number().int().describe('Seconds until sessionExpires; 0 once EXPIRED'),
  lastActivity: z.string().describe('Latest message or reply in the window'),
  userRepliedAt: z.string().nullable().describe('First reply or chip tap of the person inside the window'),
  messageCount: z.number().int().describe('Our messages in the window (the opening one included)'),
  inboundCount: z.number().int().describe('Replies and taps of the person in the window'),
  openedByMessageId: z.string(),
});
export type Conversation = z.infer<typeof ConversationSchema>;

export const ConversationListResponseSchema = z.object({
  success: z.literal(true),
  data: z.array(ConversationSchema),
  pagination: PagePaginationSchema,
});
export type ConversationListResponse = z.infer<typeof ConversationListResponseSchema>;

/** GET /conversations/{phoneNumber}/status and the rcs_conversation_status tool. */
export const ConversationStatusResponseSchema = z.object({
  success: z.literal(true),
  phoneNumber: z.string(),
  hasActiveConversation: z.boolean().describe('A window of any (or the given) sender is open now: the next RCS message through it is free'),
  status: z.enum(['ACTIVE', 'EXPIRED', 'NONE']).describe('Of the window below; NONE when the number never had one'),
  sessionStarted: z.string().nullable(),
  sessionExpires: z.string().nullable(),
  remainingSeconds: z.number().int(),
  sendernameId: z.string().nullable().describe('Sender of the window below'),
  activeSendernameIds: z.array(z.string()).describe('Senders with an open window to the number'),
  conversation: ConversationSchema.nullable().describe('The open window that lasts longest, else the latest expired one'),
  conversations: z.array(ConversationSchema).describe('The latest window per sender'),
  checkedAt: z.string(),
});
export type ConversationStatusResponse = z.infer<typeof ConversationStatusResponseSchema>;

/** POST /conversations/billing-preview (spec §4.1). */
export const BillingPreviewRequestSchema = z.strictObject({
  phoneNumbers: z
    .array(z.string().max(100))
    .min(1)
    .max(BILLING_PREVIEW_MAX_NUMBERS)
    .describe(`Numbers to check, 1 to ${BILLING_PREVIEW_MAX_NUMBERS}.`),
  sendernameId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('The RCS sender you will send with: the answer is then exactly what that send would be charged. Without it a number counts as free when any sender has an open window to it.'),
});
export type BillingPreviewRequest = z.input<typeof BillingPreviewRequestSchema>;

export const BILLING_REASONS = ['ACTIVE_CONVERSATION', 'NO_ACTIVE_CONVERSATION', 'NOT_CONVERSATION_BILLING', 'TEST_PHONE', 'DUPLICATE', 'ERROR_CHECKING'] as const;
export const BillingReasonSchema = z.enum(BILLING_REASONS);

export const BillingPreviewEntrySchema = z.object({
  phoneNumber: z.string().describe('As given'),
  normalized: z.string().nullable().describe('E.164, or null when the number could not be read'),
  free: z.boolean(),
  chargeable: z.boolean(),
  reason: BillingReasonSchema.describe(
    'ACTIVE_CONVERSATION (free: a window is open), NO_ACTIVE_CONVERSATION (charged, opens a window), NOT_CONVERSATION_BILLING (the sender bills every message), TEST_PHONE (free), DUPLICATE (listed before; sent once), ERROR_CHECKING (status unknown: counted as chargeable)',
  ),
  conversation: z.object({ id: z.string(), sendernameId: z.string(), sessionExpires: z.string() }).nullable(),
  estimatedCost: z.number().nullable().describe('Credits an RCS message to the number costs now; null when not known'),
  error: z.string().optional().describe('Why the status could not be determined (ERROR_CHECKING)'),
});

export const BillingPreviewResponseSchema = z.object({
  success: z.literal(true),
  checkedAt: z.string(),
  sendernameId: z.string().nullable(),
  total: z.number().int(),
  freeCount: z.number().int(),
  chargeableCount: z.number().int().describe('Includes ERROR_CHECKING entries'),
  errorCount: z.number().int(),
  duplicateCount: z.number().int(),
  estimatedCredits: z.number().describe('Sum of estimatedCost over chargeable entries with a known price'),
  results: z.array(BillingPreviewEntrySchema),
});
export type BillingPreviewResponse = z.infer<typeof BillingPreviewResponseSchema>;

/** GET /conversations/{phoneNumber}/rate-limit: the per-recipient throttle (docs/decisions.md). */
export const RateLimitResponseSchema = z.object({
  success: z.literal(true),
  phoneNumber: z.string(),
  enabled: z.boolean(),
  limit: z.number().int().describe('Messages per recipient per window (0: throttle off)'),
  windowSeconds: z.number().int(),
  used: z.number().int().describe('Outbound messages to the number accepted inside the current window'),
  remaining: z.number().int(),
  limited: z.boolean().describe('True: a send to this number now is refused with 429 RATE_LIMITED'),
  resetAt: z.string().nullable().describe('When the oldest counted message leaves the window'),
  retryAfterSeconds: z.number().int().describe('Seconds until a message would be accepted (0 when now)'),
  checkedAt: z.string(),
});
export type RateLimitResponse = z.infer<typeof RateLimitResponseSchema>;
