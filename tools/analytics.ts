import { z } from 'zod';
import { LogQuerySchema } from '../src/messaging/log-service.js';
import { MessageContentSchema, MessageLogRecordSchema } from '../src/messaging/records.js';
import { CursorPaginationSchema } from '../src/platform/pagination.js';
import { InteractionListResponseSchema, InteractionsQuerySchema } from '../src/inbound/schemas.js';
import { READ, cursorPaging, defineTool } from './types.js';

/** The assistant's log is capped at 200 results per call (spec §4.7); REST allows 500. */
const TOOL_LOG_MAX = 200;

export const rcsMessageLog = defineTool({
  name: 'rcs_message_log',
  title: 'Message log',
  description:
    'Sent and received messages, newest first; the last 7 days unless a range (≤ 31 days) is given.',
  toolset: 'analytics',
  permissions: ['messages:read'],
  input: z.strictObject({
    ...LogQuerySchema.shape,
    campaignName: LogQuerySchema.shape.campaignName.describe('Exact campaignName.'),
    limit: z.number().int().min(1).max(TOOL_LOG_MAX).default(50).describe('Page size.'),
    cursor: LogQuerySchema.shape.cursor.describe('From pagination.nextCursor.'),
  }),
  output: z.object({ messages: z.array(MessageLogRecordSchema), pagination: CursorPaginationSchema }),
  annotations: READ,
  paging: () => cursorPaging('messages'),
  uses: ['log'],
  run: ({ log, principal }, input) => log.list(principal.accountId, input),
});

export const rcsMessageContent = defineTool({
  name: 'rcs_message_content',
  title: 'Message content',
  description: 'The full content of one message (RCS content as sent, or SMS text) with status, error and fallback.',
  toolset: 'analytics',
  permissions: ['messages:read'],
  input: z.strictObject({ messageId: z.string().max(64).describe('Message id (msg_…).') }),
  output: MessageContentSchema,
  annotations: READ,
  uses: ['log'],
  run: ({ log, principal }, input) => log.content(principal.accountId, input.messageId),
});

export const listRcsInteractions = defineTool({
  name: 'list_rcs_interactions',
  title: 'Button taps and replies',
  description:
    'Chip and button taps (button_click) and typed replies (reply_received) to your messages, newest first.',
  toolset: 'analytics',
  permissions: ['messages:read'],
  input: z.strictObject(InteractionsQuerySchema.shape),
  output: InteractionListResponseSchema,
  annotations: READ,
  paging: () => cursorPaging(),
  uses: ['interactions'],
  run: ({ interactions, principal }, input) => interactions.list(principal.accountId, input),
});

export const analyticsTools = [listRcsInteractions, rcsMessageLog, rcsMessageContent];
