import type { ErrorCode } from '../src/platform/errors.js';
import type { NextSteps, Toolset } from './types.js';

/**
 * Per toolset: the error codes its tools can return (beyond the ones every tool can: see
 * EVERY_TOOL_CODES in src/mcp/tool-errors.ts) and what the assistant should do next for each, in
 * the toolset's own terms (a contact that is not found is looked up with list_contacts, a job with
 * rcs_jobs). A tool adds its own codes and sentences in its definition (`errors`, `nextSteps`).
 * Sentences that name a tool come with a fallback that names none, for connections that do not
 * serve that tool.
 */
export interface ToolsetErrors {
  codes: readonly ErrorCode[];
  nextSteps: NextSteps;
}

const PREVIEW_CODES: readonly ErrorCode[] = ['NOT_FOUND', 'INVALID_ID', 'PREVIEW_MISMATCH', 'PREVIEW_NOT_APPROVED', 'PREVIEW_REJECTED', 'PREVIEW_EXPIRED', 'PREVIEW_STALE', 'CONFLICT'];
/** What refuses a send or its preview's dry run (recipients, sender, credits, schedule). */
export const SEND_CODES: readonly ErrorCode[] = [
  'SENDER_NOT_APPROVED',
  'SENDER_NOT_ALLOWED',
  'COUNTRY_NOT_SUPPORTED',
  'SMS_COUNTRY_NOT_SUPPORTED',
  'INSUFFICIENT_CREDITS',
  'BUDGET_EXCEEDED',
  'CONTACT_DISABLED',
  'CONTACT_OPTED_OUT',
  'CONSENT_UNDER_REVIEW',
  'INVALID_SCHEDULE_TIME',
];
export const SEND_TOOL_CODES: readonly ErrorCode[] = [...PREVIEW_CODES, ...SEND_CODES];

const previewSteps = (preview: string): NextSteps => ({
  PREVIEW_EXPIRED: [`Call ${preview} again with the same payload and ask the user to approve the new share_url; then send with the new preview_id.`, 'Preview the same payload again and ask the user to approve the new share_url; then send with the new preview_id.'],
  PREVIEW_REJECTED: [`The user rejected this message: ask what to change, then call ${preview} with the changed payload.`, 'The user rejected this message: ask what to change, then preview the changed payload.'],
  PREVIEW_MISMATCH: [`Call again with only the preview_id (the previewed payload is sent), or call ${preview} with the new payload and have it approved.`, 'Call again with only the preview_id (the previewed payload is sent), or preview the new payload and have it approved.'],
  CONFLICT: 'This preview is being sent right now (or a send of it did not finish, as the message says): call again in a moment with the same preview_id to get its result; do not preview it again.',
});

const contactIds = 'list_contacts (search by name, or phone for one number)';

export const TOOLSET_ERRORS: Record<Toolset, ToolsetErrors> = {
  messaging: {
    codes: [],
    nextSteps: {
      ...previewSteps('rcs_preview'),
      INVALID_ID: ['Use ids exactly as tools returned them (a preview_id as rcs_preview returned it, a templateId as list_templates did); do not build ids.', 'Use ids exactly as tools returned them; do not build ids.'],
    },
  },
  sms: {
    codes: [],
    nextSteps: {
      ...previewSteps('sms_preview'),
      NOT_FOUND: ['No preview with this preview_id in this account: call sms_preview and send with the preview_id it returns.', 'No preview with this preview_id in this account: preview the message first and send with the preview_id it returns.'],
      INVALID_ID: 'Use the preview_id (prv_…) exactly as sms_preview returned it.',
    },
  },
  status: { codes: [], nextSteps: {} },
  conversations: { codes: [], nextSteps: {} },
  jobs: {
    codes: ['NOT_FOUND', 'INVALID_ID', 'INVALID_CURSOR'],
    nextSteps: {
      NOT_FOUND: ['No job with this jobId in this account: rcs_jobs lists the jobs (newest first) with their ids.', 'No job with this jobId in this account: use a jobId exactly as a send returned it.'],
      INVALID_ID: ['Use a jobId (job_…) exactly as rcs_send_batch, a scheduled send or rcs_jobs returned it.', 'Use a jobId (job_…) exactly as a send returned it.'],
    },
  },
  analytics: {
    codes: ['NOT_FOUND', 'INVALID_ID', 'INVALID_CURSOR'],
    nextSteps: {
      NOT_FOUND: ['No message with this id in this account: rcs_message_log lists messages (last 7 days by default, or a date range) with their ids.', 'No message with this id in this account: use a message id exactly as a send or the message log returned it.'],
      INVALID_ID: 'Use a message id (msg_…) exactly as a send or rcs_message_log returned it.',
      VALIDATION_ERROR: 'Fix the fields named in details and call again: dates are ISO 8601, a range spans at most 31 days, limits are as the schema says.',
    },
  },
  contacts: {
    codes: ['NOT_FOUND', 'INVALID_ID', 'INVALID_CURSOR', 'CONFLICT', 'COUNTRY_NOT_SUPPORTED'],
    nextSteps: {
      NOT_FOUND: [`No contact with this id or phone in this account: find it with ${contactIds} and use its id.`, 'No contact with this id or phone in this account: use an id exactly as a contact tool returned it.'],
      INVALID_ID: ['Use a contact id (ct_…) exactly as list_contacts, get_contact or create_contact returned it, or the phone number with its country code.', 'Use a contact id (ct_…) exactly as a contact tool returned it.'],
      CONFLICT: ['A contact with this phone number already exists: get_contact with the phone number gives its id; change it with update_contact instead of creating it again.', 'A contact with this phone number already exists: change that contact instead of creating it again.'],
      COUNTRY_NOT_SUPPORTED: "The number's country is not in the account's price list, so the contact cannot be stored; nothing was saved. Check the number and its country code with the user; only the server's operator can add a country.",
    },
  },
  groups: {
    codes: ['NOT_FOUND', 'INVALID_ID', 'INVALID_CURSOR', 'CONFLICT'],
    nextSteps: {
      NOT_FOUND: ['No group with this id in this account: list_groups shows the groups and their ids.', 'No group with this id in this account: use a group id (grp_…) exactly as a group tool returned it.'],
      INVALID_ID: ['Use a group id (grp_…) exactly as list_groups or create_group returned it.', 'Use a group id (grp_…) exactly as a group tool returned it.'],
      CONFLICT: ['A group with this name already exists: list_groups shows it; use that group or choose another name.', 'A group with this name already exists: use that group or choose another name.'],
    },
  },
  custom_fields: {
    codes: ['NOT_FOUND', 'INVALID_ID', 'INVALID_CURSOR', 'CONFLICT', 'FIELD_IN_USE'],
    nextSteps: {
      NOT_FOUND: ['No custom field with this id or tag in this account: list_custom_fields shows the fields with their ids and tags.', 'No custom field with this id or tag in this account: use an id (fld_…) or tag exactly as a custom-field tool returned it.'],
      INVALID_ID: ['Use a custom field id (fld_…) exactly as list_custom_fields or create_custom_field returned it.', 'Use a custom field id (fld_…) exactly as a custom-field tool returned it.'],
      CONFLICT: ['A custom field with this tag already exists (tags ignore case): list_custom_fields shows it; use it or choose another tag.', 'A custom field with this tag already exists (tags ignore case): use it or choose another tag.'],
    },
  },
  templates: {
    codes: ['NOT_FOUND', 'INVALID_ID', 'CONFLICT'],
    nextSteps: {
      NOT_FOUND: ['No template with this id in this account: list_templates shows the templates and their ids.', 'No template with this id in this account: use a template id (tpl_…) exactly as a template tool returned it.'],
      INVALID_ID: ['Use a template id (tpl_…) exactly as list_templates or create_template returned it.', 'Use a template id (tpl_…) exactly as a template tool returned it.'],
      CONFLICT: ['A template with this name already exists: list_templates (search by name) shows it; update that one or choose another name.', 'A template with this name already exists: update that one or choose another name.'],
    },
  },
  template_groups: {
    codes: ['NOT_FOUND', 'INVALID_ID', 'CONFLICT'],
    nextSteps: {
      NOT_FOUND: ['No template group with this id in this account: list_template_groups shows the groups and their ids.', 'No template group with this id in this account: use an id (tg_…) exactly as a template-group tool returned it.'],
      INVALID_ID: ['Use a template group id (tg_…) exactly as list_template_groups or create_template_group returned it.', 'Use a template group id (tg_…) exactly as a template-group tool returned it.'],
      CONFLICT: ['A template group with this name already exists (names ignore case): list_template_groups shows it; use it or choose another name.', 'A template group with this name already exists (names ignore case): use it or choose another name.'],
    },
  },
  guides: { codes: [], nextSteps: {} },
};
