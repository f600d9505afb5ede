import { z } from 'zod';
import * as L from '../src/content/limits.js';
import * as SL from '../src/messaging/limits.js';
import * as ContactLimits from '../src/contacts/limits.js';
import * as GroupLimits from '../src/groups/limits.js';
import { SMS_MAX_LENGTH } from '../src/sms/index.js';
import { DOMAIN_TOOLS } from './domain.js';
import { READ, TOOLSETS, defineTool, type ToolDef } from './types.js';

const TASKS = ['send', 'batch', 'schedule', 'sms', 'template', 'engagement', 'contacts', 'all'] as const;

/** Guides describe every tool, including themselves (the same list as tools/index.ts, without importing it). */
function registry(): readonly ToolDef[] {
  return [...DOMAIN_TOOLS, ...guideTools];
}

/** Guidance per task, naming tools that must exist: a renamed tool breaks the registry test, not the assistant. */
function steps(task: Exclude<(typeof TASKS)[number], 'all'>): { title: string; steps: string[]; tools: string[] } {
  switch (task) {
    case 'send':
      return {
        title: 'Send one RCS message',
        tools: ['list_sendernames', 'rcs_validate', 'rcs_preview', 'rcs_send', 'rcs_message_content'],
        steps: [
          'list_sendernames: pick an APPROVED RCS sender (sendernameId) and an APPROVED SMS sender for the fallback.',
          `rcs_validate with messageType and content (text ≤ ${L.TEXT_MAX_LENGTH} chars, ≤ ${L.SUGGESTIONS_MAX} chips, ≤ ${L.CARD_ACTIONS_MAX} card buttons, button text ≤ ${L.ACTION_TEXT_MAX_LENGTH}). Fix every error.`,
          `rcs_preview with phoneNumber, sendernameId, messageType + content (or templateId) and an smsFallback {message ≤ ${SMS_MAX_LENGTH} chars, sendernameId}.`,
          'If approval_required is true, give the user the share_url and wait until they say they approved it. You cannot approve it yourself.',
          'rcs_send with the preview_id (the previewed payload is sent; if you also pass payload, it must be exactly the returned one). It reports method (RCS or SMS), fallbackUsed and messageRecordId.',
          'rcs_message_content or rcs_message_log to follow the status (SENT → DELIVERED → READ, or FAILED with error).',
        ],
      };
    case 'batch':
      return {
        title: 'Send to many recipients',
        tools: ['rcs_preview', 'rcs_send_batch', 'rcs_batch_status', 'rcs_batch_cancel', 'rcs_jobs'],
        steps: [
          `rcs_preview with phoneNumbers (≤ ${SL.BATCH_MAX_RECIPIENTS}; duplicates are sent once, invalid numbers are reported), batchSize ${SL.BATCH_SIZE_MIN}–${SL.BATCH_SIZE_MAX} (default ${SL.BATCH_SIZE_DEFAULT}) and delayMs ${SL.BATCH_DELAY_MS_MIN}–${SL.BATCH_DELAY_MS_MAX} (default ${SL.BATCH_DELAY_MS_DEFAULT}).`,
          'Check recipients.accepted, recipients.rejected and creditsEstimated with the user; have them approve the share_url.',
          'rcs_send_batch with the preview_id; it returns a jobId at once and sends in the background.',
          'rcs_batch_status with the jobId for progress; rcs_batch_cancel stops what has not been sent yet.',
        ],
      };
    case 'schedule':
      return {
        title: 'Schedule a send',
        tools: ['rcs_timezones', 'rcs_validate_schedule_time', 'rcs_preview', 'rcs_send', 'rcs_batch_cancel', 'rcs_jobs'],
        steps: [
          "rcs_timezones shows the account's zone; a time without offset is wall time in timeZone (or that zone).",
          'rcs_validate_schedule_time with scheduleAt and timeZone: it rejects past times and times skipped by a DST change, and tells which instant an ambiguous time means.',
          'Preview and send as usual with scheduleAt and timeZone in the payload; the answer has jobId, messageId, scheduleTime (UTC) and localScheduleTime.',
          'To cancel, rcs_batch_cancel with the jobId (a single scheduled message is its own job). rcs_jobs with status=scheduled lists what is pending.',
        ],
      };
    case 'sms':
      return {
        title: 'Send a standalone SMS',
        tools: ['list_sendernames', 'sms_preview', 'sms_send'],
        steps: [
          'list_sendernames type=SMS for an APPROVED sender (id or name).',
          `sms_preview with phoneNumber, message (≤ ${SMS_MAX_LENGTH} chars after merge fields) and sendernameId. It reports smsSegments and smsEncoding: GSM-7 fits 160 (153 per part), Unicode 70 (67 per part) — one emoji switches the whole text to Unicode.`,
          'Have the user approve the share_url (SMS previews can only be approved or rejected), then sms_send with the preview_id.',
          'SMS_COUNTRY_NOT_SUPPORTED means no channel reaches that number: nothing was sent or charged.',
        ],
      };
    case 'template':
      return {
        title: 'Work with templates',
        tools: ['list_templates', 'get_template', 'create_template', 'update_template', 'list_template_groups', 'assign_templates_to_template_group', 'rcs_preview'],
        steps: [
          'list_templates (filter by type, templateGroupId, context, search) and get_template for the content.',
          'create_template: SMS content is a string; RCS content is an object plus rcsMessageType, validated like a send.',
          'Template groups are folders for templates (not contact groups): create_template_group, assign_templates_to_template_group (null ungroups).',
          'Send an RCS template with rcs_preview { templateId, sendernameId, phoneNumber } — no need to copy its content.',
        ],
      };
    case 'engagement':
      return {
        title: 'Replies, button taps and conversations',
        tools: ['list_rcs_interactions', 'rcs_conversation_status', 'rcs_message_log'],
        steps: [
          'list_rcs_interactions shows chip taps (button_click) and replies (reply_received), by campaign, phone and date range.',
          'rcs_conversation_status tells whether a conversation window is open for a number: messages inside an open 24-hour window of a conversation-billing sender are free.',
          'Incoming messages appear in rcs_message_log with direction INBOUND. A STOP reply opts the contact out; later sends to them are refused.',
        ],
      };
    case 'contacts':
      return {
        title: 'Manage contacts',
        tools: ['list_contacts', 'get_contact', 'create_contact', 'bulk_create_contacts', 'update_contact', 'list_custom_fields', 'create_custom_field', 'set_contact_custom_fields', 'create_group', 'add_contacts_to_group'],
        steps: [
          `Phones are stored with country code, without + (6–20 digits); a country outside the account's price list is refused (COUNTRY_NOT_SUPPORTED). Names ≤ ${ContactLimits.CONTACT_NAME_MAX_LENGTH} chars.`,
          `get_contact accepts an id or a phone number; list_contacts searches names, phone and email (≤ ${ContactLimits.CONTACT_LIST_LIMIT_MAX} per page).`,
          `bulk_create_contacts takes ≤ ${ContactLimits.BULK_CONTACTS_MAX} per call (upsert:true updates by phone).`,
          'Custom fields: create_custom_field (tag becomes {{tag}} in messages), then set_contact_custom_fields.',
          `Groups: create_group, add_contacts_to_group (≤ ${GroupLimits.GROUP_MEMBERSHIP_MAX_IDS} ids per call).`,
        ],
      };
  }
}

export const rcsWorkflowGuide = defineTool({
  name: 'rcs_workflow_guide',
  title: 'How to do a task',
  description: 'Step-by-step guidance for a task, naming the tools in order, with the current limits. Start here when unsure.',
  toolset: 'guides',
  permissions: [],
  input: z.strictObject({ task: z.enum(TASKS).default('all').describe('Which workflow.') }),
  output: z.object({ rules: z.array(z.string()), tasks: z.array(z.object({ task: z.string(), title: z.string(), steps: z.array(z.string()), tools: z.array(z.string()) })) }),
  annotations: READ,
  uses: [],
  run: async (_ctx, input) => {
    const names = new Set(registry().map((t) => t.name));
    const chosen = input.task === 'all' ? TASKS.filter((t) => t !== 'all') : [input.task];
    return {
      rules: [
        'Every send goes validate → preview → (the user approves the share_url when approval_required) → send with preview_id.',
        'The send sends the previewed payload; a payload passed along must equal it, and a changed message needs a new preview.',
        'A preview sends once; repeating the send call returns the first result.',
        'Only APPROVED senders can send; a test sender only reaches its test phones.',
      ],
      tasks: chosen.map((t) => {
        const s = steps(t);
        return { task: t, ...s, tools: s.tools.filter((n) => names.has(n)) };
      }),
    };
  },
});

export const rcsApiReference = defineTool({
  name: 'rcs_api_reference',
  title: 'Tool reference',
  description: 'Every tool on this server: toolset, summary, required and optional arguments, permissions, read-only or not.',
  toolset: 'guides',
  permissions: [],
  input: z.strictObject({ toolset: z.enum(TOOLSETS).optional().describe('Only this toolset.'), tool: z.string().max(64).optional().describe('Only this tool, by name.') }),
  output: z.object({
    count: z.number().int(),
    tools: z.array(z.object({ name: z.string(), title: z.string(), toolset: z.string(), summary: z.string(), required: z.array(z.string()), optional: z.array(z.string()), permissions: z.array(z.string()), readOnly: z.boolean() })),
  }),
  annotations: READ,
  uses: [],
  run: async (_ctx, input) => {
    const tools = registry().filter((t) => (!input.toolset || t.toolset === input.toolset) && (!input.tool || t.name === input.tool));
    return {
      count: tools.length,
      tools: tools.map((t) => {
        const shape = t.input.shape as Record<string, { isOptional?: () => boolean }>;
        const keys = Object.keys(shape);
        const required = keys.filter((k) => !(shape[k]?.isOptional?.() ?? false));
        return {
          name: t.name,
          title: t.title,
          toolset: t.toolset,
          summary: t.description.split('. ')[0]!.replace(/\.$/, '') + '.',
          required,
          optional: keys.filter((k) => !required.includes(k)),
          permissions: [...t.permissions],
          readOnly: t.annotations.readOnlyHint,
        };
      }),
    };
  },
});

export const guideTools = [rcsWorkflowGuide, rcsApiReference];
