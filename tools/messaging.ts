import { z } from 'zod';
import { ContentSchema, MessageTypeSchema, SmsFallbackSchema } from '../src/content/index.js';
import { BatchResponseSchema } from '../src/messaging/schemas.js';
import { PreviewToolOutputSchema, withPreviewDisplay } from '../src/mcp/apps/display.js';
import { PREVIEW_APP_TOOL_META } from '../src/mcp/apps/meta.js';
import { PreviewIdField, RcsPayloadSchema } from '../src/previews/schemas.js';
import { SendernameSchema, SenderTypeSchema } from '../src/senders/schemas.js';
import { ValidateResponseSchema, ValidateScheduleTimeResponseSchema } from '../src/validation-api/schemas.js';
import { READ, SEND, WRITE, defineTool } from './types.js';

/** What rcs_send answers: the immediate result (spec §2.12) or the scheduled one, as one flat object. */
export const RcsSendOutputSchema = z.object({
  success: z.boolean(),
  scheduled: z.boolean(),
  messageRecordId: z.string().optional().describe('Message id of an immediate send (use with rcs_message_content).'),
  messageId: z.string().optional().describe('Message id of a scheduled send (cancel with rcs_batch_cancel on jobId).'),
  jobId: z.string().optional(),
  status: z.string().optional(),
  method: z.enum(['RCS', 'SMS']).nullable().optional(),
  queued: z.boolean().optional(),
  countrySupported: z.boolean().optional(),
  countryError: z.string().optional(),
  fallbackUsed: z.boolean().optional(),
  fallbackReason: z.string().optional(),
  creditsEstimated: z.number(),
  error: z.string().optional(),
  scheduleTime: z.string().optional(),
  localScheduleTime: z.string().optional(),
  effectiveTimezone: z.string().optional(),
  timezoneSource: z.enum(['request', 'account']).optional(),
});

const SendPayloadNote =
  'Pass preview_id and exactly the payload returned by rcs_preview (its `payload` field). A payload that differs is refused, naming the fields; an unapproved preview is refused while approval is required. Calling again with the same preview returns the first result instead of sending twice. If merged values (contact or custom fields, company profile, today) changed since the preview, the send is refused with PREVIEW_STALE: preview again.';

export const rcsPreview = defineTool({
  name: 'rcs_preview',
  title: 'Preview an RCS message for approval',
  description:
    'Step 2 of every RCS send. Validates the whole send (recipients, sender, content or templateId, fallback, schedule), prices it and stores a preview. Returns preview_id, share_url and approval_required. When approval_required is true, give the user the share_url to approve; then call rcs_send (phoneNumber) or rcs_send_batch (phoneNumbers) with preview_id and the returned payload. Use rcs_validate first while drafting content.',
  toolset: 'messaging',
  permissions: ['messages:write'],
  input: RcsPayloadSchema,
  output: PreviewToolOutputSchema,
  annotations: WRITE,
  meta: PREVIEW_APP_TOOL_META,
  uses: ['previews', 'senders'],
  run: async ({ previews, senders, principal }, input) => withPreviewDisplay({ previews, senders }, principal.accountId, await previews.createRcs(principal, input)),
});

export const rcsSend = defineTool({
  name: 'rcs_send',
  title: 'Send a previewed RCS message',
  description: `Sends one RCS message (with its SMS fallback when the phone cannot receive RCS) after rcs_preview and, when required, the user's approval. ${SendPayloadNote} Returns messageRecordId, method (RCS or SMS), fallbackUsed/fallbackReason, or the schedule for scheduled sends.`,
  toolset: 'messaging',
  permissions: ['messages:write'],
  input: RcsPayloadSchema.extend({ preview_id: PreviewIdField }),
  output: RcsSendOutputSchema,
  annotations: SEND,
  uses: ['previews'],
  run: async ({ previews, principal }, { preview_id, ...payload }) => {
    const { payload: expanded } = await previews.expandRcs(principal.accountId, payload);
    return previews.send(principal, preview_id, 'rcs', expanded, 'MCP');
  },
});

export const rcsSendBatch = defineTool({
  name: 'rcs_send_batch',
  title: 'Send a previewed RCS batch',
  description: `Sends one RCS message to up to 10,000 numbers as a background job, after rcs_preview (with phoneNumbers) and approval. ${SendPayloadNote} Returns the jobId: follow it with rcs_batch_status, stop it with rcs_batch_cancel.`,
  toolset: 'messaging',
  permissions: ['messages:write'],
  input: RcsPayloadSchema.extend({ preview_id: PreviewIdField }),
  output: BatchResponseSchema,
  annotations: SEND,
  uses: ['previews'],
  run: async ({ previews, principal }, { preview_id, ...payload }) => {
    const { payload: expanded } = await previews.expandRcs(principal.accountId, payload);
    return previews.send(principal, preview_id, 'rcs_batch', expanded, 'MCP');
  },
});

export const rcsValidate = defineTool({
  name: 'rcs_validate',
  title: 'Validate RCS content',
  description:
    'Step 1: checks messageType + content (and an optional smsFallback) against every rule and limit without sending or storing anything. Returns valid, errors and warnings with exact paths (e.g. content.suggestions[3].reply.text), and for a fallback its SMS encoding and segment count. Fix errors, consider warnings, then call rcs_preview.',
  toolset: 'messaging',
  permissions: [],
  input: z.object({ messageType: MessageTypeSchema, content: ContentSchema, smsFallback: SmsFallbackSchema.partial({ sendernameId: true }).optional() }),
  output: ValidateResponseSchema,
  annotations: READ,
  uses: ['validation'],
  run: ({ validation, principal }, input) => validation.validate(principal.accountId, input.messageType, input.content, input.smsFallback),
});

export const rcsValidateScheduleTime = defineTool({
  name: 'rcs_validate_schedule_time',
  title: 'Check a schedule time',
  description:
    "Resolves scheduleAt (+ timeZone, default the account's zone) to the exact instant a scheduled send would use. Reports times in the past, invalid zones, wall times that do not exist because of a DST change (with the nearest valid times), and ambiguous ones. Use before previewing a scheduled send.",
  toolset: 'messaging',
  permissions: [],
  input: z.object({ scheduleAt: z.string().max(64).describe('ISO 8601, e.g. 2026-05-01T09:30:00 (wall time) or with Z/offset.'), timeZone: z.string().max(64).optional().describe('IANA zone such as Europe/Berlin.') }),
  output: ValidateScheduleTimeResponseSchema,
  annotations: READ,
  uses: ['validation'],
  run: ({ validation, principal }, input) => validation.scheduleTime(principal.accountId, input.scheduleAt, input.timeZone),
});

export const listSendernames = defineTool({
  name: 'list_sendernames',
  title: 'List senders',
  description:
    'Sender identities of the account (RCS agents and SMS sender names) with status. Only APPROVED senders can send; a test sender (isTest) sends only to its testPhones, free. Use an RCS sender id as sendernameId and an SMS sender id in smsFallback.sendernameId.',
  toolset: 'messaging',
  permissions: [],
  input: z.object({ type: SenderTypeSchema.optional().describe('SMS or RCS; omit for all.') }),
  output: z.object({ success: z.literal(true), count: z.number().int(), sendernames: z.array(SendernameSchema) }),
  annotations: READ,
  uses: ['senders'],
  run: async ({ senders, principal }, input) => {
    // The service's list is frozen and shared; the result gets its own array.
    const sendernames = [...(await senders.list(principal.accountId, input.type))];
    return { success: true as const, count: sendernames.length, sendernames };
  },
});

export const messagingTools = [rcsSend, rcsSendBatch, rcsValidate, rcsValidateScheduleTime, rcsPreview, listSendernames];
