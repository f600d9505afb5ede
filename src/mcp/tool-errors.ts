import type { CallToolResult } from '@modelcontextprotocol/server';
import { AppError, type ErrorCode } from '../platform/errors.js';

/**
 * What the assistant should do next, per error code: a sentence it can act on. The preview codes
 * get a specific sentence from the caller (with the share URL); these are the defaults.
 */
const NEXT_STEP: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: 'Fix the fields named in details (each has a path and a reason), then call the tool again. rcs_validate checks content without sending.',
  INVALID_ID: 'Use an id exactly as returned by a list or get tool; ids start with their type prefix (ct_, grp_, tpl_, msg_, job_, prv_ …).',
  INVALID_CURSOR: 'Call the list tool again without cursor, or pass pagination.nextCursor from the previous page unchanged.',
  INVALID_SCHEDULE_TIME: 'Choose a future time; rcs_validate_schedule_time checks a time and zone (including DST gaps) before you send.',
  NOT_FOUND: 'The id does not exist in this account. List the resources first (e.g. list_contacts, rcs_jobs) and use an id from there.',
  CONFLICT: 'The resource already exists; look it up (e.g. get_contact with the phone number) and update it instead.',
  FORBIDDEN: 'This connection lacks the named permission. Ask the user to grant it (a new API key or OAuth consent with that scope).',
  UNAUTHORIZED: 'The API key or token is invalid or expired. Ask the user to reconnect the server.',
  COUNTRY_NOT_SUPPORTED: "The number's country is not in the account's price list for this channel. Add an smsFallback, or ask the user to have the operator add the country.",
  SMS_COUNTRY_NOT_SUPPORTED: 'Neither RCS nor SMS can reach this number from this account; nothing was sent or charged. Tell the user; do not retry.',
  INSUFFICIENT_CREDITS: 'The account does not have enough credits. Tell the user the cost and ask them to top up; do not retry until then.',
  SENDER_NOT_APPROVED: 'Use an APPROVED sender from list_sendernames; a PENDING, REJECTED or DRAFT sender cannot send.',
  SENDER_NOT_ALLOWED: 'A test sender only sends to its test phones (see list_sendernames). Use a production sender for other numbers.',
  CONTACT_DISABLED: 'The contact is disabled or opted out. Do not message them unless the user confirms it is lawful (skipDisabled:false).',
  FIELD_IN_USE: 'Contacts have values for this field. Call delete_custom_field again with force:true only if the user confirms losing those values.',
  NO_VALID_CONTACTS: 'None of the given contact ids qualified; list_contacts shows valid ids and their disabled state.',
  PREVIEW_MISMATCH: 'Send exactly the payload you previewed, or call rcs_preview / sms_preview again with the new payload and have it approved.',
  PREVIEW_EXPIRED: 'Create a new preview with the same payload and ask the user to approve it.',
  PREVIEW_STALE: 'Merged values (contact or custom fields, company profile, today) changed since the preview, so the user did not approve what would be sent. Call rcs_preview or sms_preview again with the same payload, ask the user to approve the new share_url, then send with the new preview_id.',
  PREVIEW_REJECTED: 'The user rejected this message. Ask what to change, then preview again.',
  PREVIEW_NOT_APPROVED: 'Ask the user to open the share_url of the preview and approve it, then call this tool again with the same payload.',
  APPROVAL_REQUIRED: 'This connection sends only through a preview a person approved: call rcs_preview or sms_preview, give the user the share_url, then call the send tool with the preview_id.',
  RATE_LIMITED: 'Wait a little and try again.',
  IDEMPOTENCY_IN_PROGRESS: 'The first request with this Idempotency-Key is still running. Wait a second and repeat the same request with the same key.',
  IDEMPOTENCY_RESPONSE_LOST: 'The request with this Idempotency-Key was carried out but its response was lost. Do not send again: look the result up in the message log (rcs_message_log) or the jobs (rcs_jobs).',
  IDEMPOTENCY_MISMATCH: 'This Idempotency-Key was used for a different request. Use a new key for a new request.',
};

export interface ToolErrorBody {
  error: { code: ErrorCode; message: string; nextStep: string; details?: unknown; [key: string]: unknown };
}

/** A mistake the caller can fix, as a tool result with isError (DESIGN §4: never a stack trace). */
export function toolError(err: AppError, nextStep?: string): CallToolResult {
  const body: ToolErrorBody = {
    error: {
      ...(err.extra ?? {}),
      code: err.code,
      message: err.message,
      nextStep: nextStep ?? (err.extra?.nextStep as string | undefined) ?? NEXT_STEP[err.code] ?? 'Check the arguments and try again.',
      ...(err.details?.length ? { details: err.details } : {}),
    },
  };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

export function isCallerError(err: unknown): err is AppError {
  return err instanceof AppError && err.status < 500;
}
