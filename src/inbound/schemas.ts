import { z } from 'zod';
import { CursorPaginationSchema, cursorQueryFields } from '../platform/pagination.js';

export const INTERACTION_TYPES = ['button_click', 'reply_received'] as const;
export const InteractionTypeSchema = z.enum(INTERACTION_TYPES);

/** Page size of the interaction list (REST and list_rcs_interactions). */
export const INTERACTIONS_LIMIT_MAX = 200;

const DateParam = z
  .string()
  .max(40)
  .refine((s) => !Number.isNaN(Date.parse(s)), { message: 'must be an ISO 8601 date or date-time' });

/**
 * GET {base_url}/interactions and the list_rcs_interactions tool (spec §4.7): filters campaign,
 * phone, type, date range; newest first; cursor pagination.
 */
export const InteractionsQuerySchema = z.object({
  campaign: z.string().max(100).optional().describe('Exact campaignName.'),
  phone: z.string().max(40).optional().describe('The person’s number.'),
  type: InteractionTypeSchema.optional().describe('Omit for both.'),
  startDate: DateParam.optional().describe('From this instant (ISO 8601).'),
  endDate: DateParam.optional().describe('Until this instant (ISO 8601).'),
  ...cursorQueryFields({ defaultLimit: 50, maxLimit: INTERACTIONS_LIMIT_MAX }),
});
export type InteractionsQuery = z.input<typeof InteractionsQuerySchema>;

export const InteractionSchema = z.object({
  id: z.string().describe('int_… id'),
  type: InteractionTypeSchema,
  actionType: z.enum(['reply', 'postback', 'action', 'text']).describe('reply chip, card postback button, action chip/button, or a typed reply (text)'),
  campaignName: z.string().nullable().describe('Campaign of the message the person reacted to'),
  phoneNumber: z.string(),
  contact: z.object({ id: z.string(), name: z.string().nullable() }).nullable(),
  sendernameId: z.string(),
  messageId: z.string().nullable().describe('Our message the person reacted to'),
  inboundMessageId: z.string().nullable().describe('The INBOUND message of a reply (in the message log)'),
  buttonText: z.string().nullable(),
  postbackData: z.string().nullable(),
  text: z.string().nullable().describe('What the person wrote (reply_received)'),
  channel: z.enum(['RCS', 'SMS']),
  occurredAt: z.string(),
});
export type Interaction = z.infer<typeof InteractionSchema>;

export const InteractionListResponseSchema = z.object({
  data: z.array(InteractionSchema),
  pagination: CursorPaginationSchema,
});
export type InteractionList = z.infer<typeof InteractionListResponseSchema>;
