import { z } from 'zod';
import { PreviewToolOutputSchema, withPreviewDisplay } from './preview-display.js';
import { PREVIEW_APP_TOOL_META } from './preview-app-meta.js';
import { PreviewSendInputSchema, SmsPayloadSchema, type SmsPayload } from '../src/previews/schemas.js';
import { SEND_CODES, SEND_TOOL_CODES } from './next-steps.js';
import { SEND, WRITE_IDEMPOTENT, defineTool } from './types.js';

export const SmsSendOutputSchema = z.object({
  success: z.boolean(),
  scheduled: z.boolean(),
  messageId: z.string(),
  jobId: z.string().optional(),
  queued: z.boolean().optional(),
  status: z.string().optional(),
  smsSegments: z.number().int().optional(),
  smsEncoding: z.enum(['GSM-7', 'Unicode']).optional(),
  creditsEstimated: z.number(),
  error: z.string().optional(),
  scheduleTime: z.string().optional(),
  localScheduleTime: z.string().optional(),
  effectiveTimezone: z.string().optional(),
  timezoneSource: z.enum(['request', 'account', 'recipient']).optional().describe('recipient: quiet hours held an immediate send back (scheduled true) in the recipient\'s zone'),
  deferredUntil: z.string().optional().describe('Quiet hours: sent at this time (UTC)'),
});

export const smsPreview = defineTool({
  name: 'sms_preview',
  title: 'Preview a standalone SMS for approval',
  description:
    'Step 1 of a standalone SMS: validates, merges, counts billed segments, stores a preview (idempotent). If approval_required, the user approves share_url; then sms_send.',
  toolset: 'sms',
  permissions: ['messages:write'],
  input: SmsPayloadSchema,
  output: PreviewToolOutputSchema,
  annotations: WRITE_IDEMPOTENT,
  errors: ['NOT_FOUND', 'INVALID_ID', ...SEND_CODES],
  nextSteps: {
    NOT_FOUND: ['contactId is not a contact of this account: list_contacts shows the contacts and their ids; or leave contactId out.', 'contactId is not a contact of this account: leave it out, or use an id exactly as the account lists it.'],
  },
  meta: PREVIEW_APP_TOOL_META,
  uses: ['previews', 'senders'],
  run: async ({ previews, senders, principal }, input) => withPreviewDisplay({ previews, senders }, principal.accountId, await previews.createSms(principal, input)),
});

export const smsSend = defineTool({
  name: 'sms_send',
  title: 'Send a previewed SMS',
  description:
    'Sends (or schedules) the SMS previewed by sms_preview once approved; sends once (a repeat returns the first result).',
  toolset: 'sms',
  permissions: ['messages:write'],
  input: PreviewSendInputSchema,
  output: SmsSendOutputSchema,
  annotations: SEND,
  errors: SEND_TOOL_CODES,
  nextSteps: {
    VALIDATION_ERROR: [
      'Sends take the preview_id of an approved preview, not the message: call sms_preview with the message (phoneNumber, message, sendernameId, …), ask the user to approve its share_url, then call sms_send with {"preview_id": "prv_…"}.',
      'Sends take the preview_id of an approved preview, not the message: preview the message first, ask the user to approve its share_url, then call this tool with {"preview_id": "prv_…"}.',
    ],
  },
  uses: ['previews'],
  run: ({ previews, principal }, { preview_id, payload }) =>
    previews.send(principal, preview_id, 'sms', payload === undefined ? undefined : previews.expandSms(payload as SmsPayload), 'MCP'),
});

export const smsTools = [smsPreview, smsSend];
