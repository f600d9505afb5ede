import { z } from 'zod';
import { MessageTypeSchema } from '../src/content/index.js';
import { BatchResponseSchema } from '../src/messaging/schemas.js';
import { PreviewToolOutputSchema, withPreviewDisplay } from './preview-display.js';
import { PREVIEW_APP_TOOL_META } from './preview-app-meta.js';
import { PreviewSendInputSchema, RcsPayloadSchema } from '../src/previews/schemas.js';
import { SendernameSchema, SenderTypeSchema } from '../src/senders/schemas.js';
import { ValidateResponseSchema, ValidateScheduleTimeResponseSchema } from '../src/validation-api/schemas.js';
import { SEND_CODES, SEND_TOOL_CODES } from './next-steps.js';
import { READ, SEND, WRITE, defineTool, type NextSteps } from './types.js';

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
  timezoneSource: z.enum(['request', 'account', 'recipient']).optional().describe('recipient: quiet hours held an immediate send back (scheduled true) in the recipient\'s zone'),
  deferredUntil: z.string().optional().describe('Quiet hours: sent at this time (UTC)'),
});

/** Said once per send tool; the rules in full are in rcs_workflow_guide. */
const SendNote = 'once approved; sends once (a repeat returns the first result).';

export const rcsPreview = defineTool({
  name: 'rcs_preview',
  title: 'Preview an RCS message for approval',
  description:
    'Step 2 of every RCS send: validates, prices and stores it. If approval_required, the user approves share_url; then send_with (rcs_send or rcs_send_batch) with the preview_id.',
  toolset: 'messaging',
  permissions: ['messages:write'],
  input: RcsPayloadSchema,
  output: PreviewToolOutputSchema,
  annotations: WRITE,
  errors: ['NOT_FOUND', 'INVALID_ID', 'NO_VALID_CONTACTS', ...SEND_CODES],
  nextSteps: {
    VALIDATION_ERROR: ['Fix the fields named in details (each has a path and a reason), then preview again. While drafting content, rcs_validate names every problem in it at once.', 'Fix the fields named in details (each has a path and a reason), then preview again.'],
    NOT_FOUND: ['templateId (or contactId) is not in this account: list_templates shows the RCS templates (tpl_…), list_contacts the contacts; or give messageType + content instead of a template.', 'templateId (or contactId) is not in this account: give messageType + content instead, or an id exactly as the account lists it.'],
  },
  meta: PREVIEW_APP_TOOL_META,
  uses: ['previews', 'senders'],
  run: async ({ previews, senders, principal }, input) => withPreviewDisplay({ previews, senders }, principal.accountId, await previews.createRcs(principal, input)),
});

/** What the RCS send tools add to the messaging toolset's sentences. */
const rcsSendSteps: NextSteps = {
  NOT_FOUND: ['No preview with this preview_id in this account: call rcs_preview and send with the preview_id it returns.', 'No preview with this preview_id in this account: preview the message first and send with the preview_id it returns.'],
  VALIDATION_ERROR: [
    'Sends take the preview_id of an approved preview, not the message: call rcs_preview with the message (phoneNumber or phoneNumbers, messageType, content, sendernameId, …), ask the user to approve its share_url, then call this tool with {"preview_id": "prv_…"} (the payload, if at all, unchanged under payload).',
    'Sends take the preview_id of an approved preview, not the message: preview the message first, ask the user to approve its share_url, then call this tool with {"preview_id": "prv_…"}.',
  ],
};


export const rcsSend = defineTool({
  name: 'rcs_send',
  title: 'Send a previewed RCS message',
  description: `Sends the message previewed by rcs_preview (phoneNumber), with its SMS fallback, ${SendNote}`,
  toolset: 'messaging',
  permissions: ['messages:write'],
  input: PreviewSendInputSchema,
  output: RcsSendOutputSchema,
  annotations: SEND,
  errors: SEND_TOOL_CODES,
  nextSteps: rcsSendSteps,
  uses: ['previews'],
  run: async ({ previews, principal }, { preview_id, payload }) => previews.send(principal, preview_id, 'rcs', await previews.expandEchoedRcs(principal.accountId, preview_id, payload), 'MCP'),
});

export const rcsSendBatch = defineTool({
  name: 'rcs_send_batch',
  title: 'Send a previewed RCS batch',
  description: `Sends the batch previewed by rcs_preview (phoneNumbers) as a job (rcs_batch_status), ${SendNote}`,
  toolset: 'messaging',
  permissions: ['messages:write'],
  input: PreviewSendInputSchema,
  output: BatchResponseSchema,
  annotations: SEND,
  errors: SEND_TOOL_CODES,
  nextSteps: rcsSendSteps,
  uses: ['previews'],
  run: async ({ previews, principal }, { preview_id, payload }) => previews.send(principal, preview_id, 'rcs_batch', await previews.expandEchoedRcs(principal.accountId, preview_id, payload), 'MCP'),
});

export const rcsValidate = defineTool({
  name: 'rcs_validate',
  title: 'Validate RCS content',
  description:
    "Step 1: checks messageType + content (as in rcs_preview) and smsFallback; problems come back as valid:false with paths. Stores nothing.",
  toolset: 'messaging',
  permissions: [],
  input: z.strictObject({
    messageType: MessageTypeSchema,
    // Loose on purpose: every problem with the content is reported in the result (valid:false, errors with paths), never as a tool error.
    content: z.record(z.string(), z.unknown()).describe("As rcs_preview's content."),
    smsFallback: z
      .strictObject({
        message: z.string().describe('SMS text; encoding and segments reported.'),
        sendernameId: z.string().optional().describe('SMS sender; optional here.'),
      })
      .optional()
      .describe("As rcs_preview's smsFallback."),
  }),
  output: ValidateResponseSchema,
  annotations: READ,
  uses: ['validation'],
  run: ({ validation, principal }, input) => validation.validate(principal.accountId, input.messageType, input.content, input.smsFallback),
});

export const rcsValidateScheduleTime = defineTool({
  name: 'rcs_validate_schedule_time',
  title: 'Check a schedule time',
  description:
    "Resolves scheduleAt (+ timeZone) to the instant a send would use; reports past times, bad zones, DST gaps and ambiguous times. Before previewing a scheduled send.",
  toolset: 'messaging',
  permissions: [],
  input: z.strictObject({ scheduleAt: z.string().max(64).describe('ISO 8601; without Z/offset a wall time.'), timeZone: z.string().max(64).optional().describe('IANA zone such as Europe/Berlin.') }),
  output: ValidateScheduleTimeResponseSchema,
  annotations: READ,
  uses: ['validation'],
  run: ({ validation, principal }, input) => validation.scheduleTime(principal.accountId, input.scheduleAt, input.timeZone),
});

export const listSendernames = defineTool({
  name: 'list_sendernames',
  title: 'List senders',
  description:
    'RCS and SMS senders with status; only APPROVED ones send, a test sender only to its testPhones. RCS id → sendernameId, SMS id → smsFallback.sendernameId.',
  toolset: 'messaging',
  permissions: [],
  input: z.strictObject({ type: SenderTypeSchema.optional().describe('Omit for all.') }),
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
