import type { CallToolResult } from '@modelcontextprotocol/server';
import { ALL_TOOLS } from '../../tools/index.js';
import { TOOLSET_ERRORS } from '../../tools/next-steps.js';
import type { NextStep, NextSteps, ToolDef } from '../../tools/types.js';
import { AppError, type ErrorCode } from '../platform/errors.js';

/**
 * What the assistant should do next, per error code, when neither the tool nor its toolset says
 * more (tools/next-steps.ts, `nextSteps` on a tool): a sentence it can act on. Sentences naming a
 * tool list a fallback that names none (see nextStepFor).
 */
const NEXT_STEP: NextSteps = {
  VALIDATION_ERROR: 'Fix the fields named in details (each has a path and a reason), then call the tool again.',
  INVALID_ID: 'Use an id exactly as a list, get or create tool returned it; ids start with their type prefix (ct_, grp_, tpl_, msg_, job_, prv_ …).',
  INVALID_CURSOR: 'Call the list tool again without cursor, or pass pagination.nextCursor from the previous page unchanged.',
  INVALID_SCHEDULE_TIME: ['Choose a future time; rcs_validate_schedule_time checks a time and zone (including DST gaps) before you preview.', 'Choose a future time that exists in the time zone (not inside a DST gap), then preview again.'],
  NOT_FOUND: 'The id does not exist in this account; use an id exactly as a list or get tool returned it.',
  CONFLICT: 'It already exists or is changing right now; look it up and work with the existing one.',
  FORBIDDEN: 'This connection lacks the named permission. Ask the user to grant it (a new API key or OAuth consent with that scope).',
  UNAUTHORIZED: 'The API key or token is invalid or expired. Ask the user to reconnect the server.',
  COUNTRY_NOT_SUPPORTED: "The number's country is not in the account's RCS price list. Preview again with an smsFallback so the message can go as SMS, or ask the user to have the server's operator add the country.",
  SMS_COUNTRY_NOT_SUPPORTED: 'Neither RCS nor SMS can reach this number from this account; nothing was sent or charged. Tell the user; do not retry.',
  INSUFFICIENT_CREDITS: ['The account does not have enough credits; nothing was sent. rcs_limits shows the balance: tell the user the cost and ask them to top up; do not retry until then.', 'The account does not have enough credits; nothing was sent. Tell the user the cost and ask them to top up; do not retry until then.'],
  SENDER_NOT_APPROVED: ['Use an APPROVED sender from list_sendernames; a PENDING, REJECTED or DRAFT sender cannot send.', 'Use an APPROVED sender (ask the user which); a PENDING, REJECTED or DRAFT sender cannot send.'],
  SENDER_NOT_ALLOWED: ['A test sender only sends to its test phones (list_sendernames shows them). Use a production sender for other numbers.', 'A test sender only sends to its test phones. Use a production sender for other numbers.'],
  CONTACT_DISABLED: 'The contact is disabled. Do not message them unless the user confirms it is lawful; then preview again with skipDisabled:false.',
  CONTACT_OPTED_OUT: 'The contact opted out of messages. Do not message them; tell the user.',
  CONSENT_UNDER_REVIEW:
    'The recipient replied something that may be a request to stop, so marketing to them is paused until a person of the account reviews it in the console (Consent). Do not try to work around it; tell the user. Only a send that is truly transactional (a one-time code, an answer they asked for) may be marked transactional.',
  FIELD_IN_USE: 'Contacts have values for this field. Call delete_custom_field again with force:true only if the user confirms losing those values.',
  NO_VALID_CONTACTS: ['None of the given contact ids is a contact of this account; list_contacts shows valid ids and their disabled state.', 'None of the given contact ids is a contact of this account; use ids exactly as a contact tool returned them.'],
  PREVIEW_MISMATCH: 'Call the send tool again with only the preview_id (the previewed payload is sent), or preview the new payload and have it approved.',
  PREVIEW_EXPIRED: 'Preview the same payload again and ask the user to approve the new share_url.',
  PREVIEW_STALE: 'Merged values (contact or custom fields, company profile, today) changed since the preview, so the user did not approve what would be sent. Preview the same payload again, ask the user to approve the new share_url, then send with the new preview_id.',
  PREVIEW_REJECTED: 'The user rejected this message. Ask what to change, then preview again.',
  PREVIEW_NOT_APPROVED: 'Ask the user to open the share_url of the preview and approve it, then call this tool again with the same preview_id.',
  RATE_LIMITED: 'Wait a little and try again.',
  BUDGET_EXCEEDED: 'A limit the user set on this connection refuses it (credits per UTC day or recipients per send; the error names which, what is left and when it resets). Tell the user; send to fewer recipients, wait for the reset, or ask the user to raise the limit in the console. Do not retry unchanged.',
  INTERNAL: 'This is a server bug, reported in its log. Tell the user; do not repeat the call blindly.',
};

/** Codes every tool can return: its arguments, the connection's permissions, the rate limit, our bugs. */
export const EVERY_TOOL_CODES: readonly ErrorCode[] = ['VALIDATION_ERROR', 'FORBIDDEN', 'RATE_LIMITED', 'INTERNAL'];

/**
 * By the code of an error's first detail: the service knows what went wrong better than the
 * error code says (a VALIDATION_ERROR about an unknown sender is fixed with list_sendernames).
 */
const BY_DETAIL_CODE: Readonly<Record<string, NextStep>> = {
  unknown_sender: ['No sender with this id on this account: use the id of an APPROVED sender of the right type (RCS for sendernameId, SMS for smsFallback.sendernameId) from list_sendernames.', 'No sender with this id on this account: use the id of an APPROVED sender of the right type; ask the user which.'],
};

/** By the path of an error's first detail: which id was malformed (INVALID_ID of a send names preview_id, of a preview templateId). */
const BY_DETAIL_PATH: Readonly<Record<string, NextStep>> = {
  preview_id: ['Use the preview_id (prv_…) exactly as rcs_preview or sms_preview returned it; do not build ids.', 'Use the preview_id (prv_…) exactly as the preview returned it; do not build ids.'],
  templateId: ['Use a templateId (tpl_…) exactly as list_templates or create_template returned it, or give messageType + content instead.', 'Use a templateId (tpl_…) exactly as a template tool returned it, or give messageType + content instead.'],
};

/** An argument an assistant reaches for that the tool does not take, and how to do what it meant. */
const BY_UNKNOWN_ARGUMENT: Readonly<Record<string, NextStep>> = {
  groupId: [
    'Sends take phone numbers, not a group: get_group with {"groupId": "grp_…", "includeContacts": true, "limit": 200, "offset": 0} pages through its members; pass their phone numbers as phoneNumbers (up to 10,000) to rcs_preview.',
    'Sends take phone numbers, not a group: list the group\'s members\' phone numbers and pass them as phoneNumbers (up to 10,000).',
  ],
};

/** The situational sentence an error's details call for, if any (see BY_DETAIL_PATH, BY_UNKNOWN_ARGUMENT). */
function detailSteps(err: AppError): NextStep[] {
  const out: NextStep[] = [];
  for (const d of err.details ?? []) {
    if (d.code === 'unknown_field') {
      for (const [arg, step] of Object.entries(BY_UNKNOWN_ARGUMENT)) if (d.message.includes(`"${arg}"`) || d.path === arg || d.path.endsWith(`.${arg}`)) out.push(step);
    }
  }
  const first = err.details?.[0];
  if (err.code === 'INVALID_ID' && first && BY_DETAIL_PATH[first.path] !== undefined) out.push(BY_DETAIL_PATH[first.path]!);
  return out;
}

/** Every code a tool can return, as declared: the common ones, its toolset's, its own. */
export function codesOf(tool: ToolDef): ErrorCode[] {
  return [...new Set([...EVERY_TOOL_CODES, ...TOOLSET_ERRORS[tool.toolset].codes, ...(tool.errors ?? [])])];
}

const TOOL_NAMES = ALL_TOOLS.map((t) => t.name);
const mentionPatterns = new Map(TOOL_NAMES.map((n) => [n, new RegExp(`(?<![A-Za-z0-9_])${n}(?![A-Za-z0-9_])`)]));
/** A REST route in a sentence meant for an assistant on MCP. */
const REST_ROUTE = /\/api\/|\b(GET|POST|PUT|PATCH|DELETE) \//;

/** The tools a sentence names. */
export function toolsNamedIn(text: string): string[] {
  return TOOL_NAMES.filter((n) => mentionPatterns.get(n)!.test(text));
}

const asList = (step: NextStep | undefined): readonly string[] => (step === undefined ? [] : typeof step === 'string' ? [step] : step);

/**
 * The nextStep for `code` from `tool` on a connection serving `served`: the most specific sentence
 * (the error's own, then by its detail code, the tool's, its toolset's, the default) that names
 * only tools this connection serves and no REST route.
 */
export function nextStepFor(code: ErrorCode, tool: ToolDef | undefined, served: ReadonlyMap<string, unknown> | undefined, specific?: NextStep, detailCode?: string): string {
  const candidates = [
    ...asList(specific),
    ...asList(detailCode !== undefined ? BY_DETAIL_CODE[detailCode] : undefined),
    ...asList(tool?.nextSteps?.[code]),
    ...asList(tool ? TOOLSET_ERRORS[tool.toolset].nextSteps[code] : undefined),
    ...asList(NEXT_STEP[code]),
  ];
  for (const text of candidates) {
    if (REST_ROUTE.test(text)) continue;
    if (served && toolsNamedIn(text).some((n) => !served.has(n))) continue;
    return text;
  }
  return 'Check the arguments against the tool schema and try again; if it keeps failing, tell the user what the error says.';
}

/** Where a tool error comes from: the tool and the tools this connection serves. */
export interface ToolErrorContext {
  tool?: ToolDef;
  served?: ReadonlyMap<string, unknown>;
  /** A sentence for this very case (or alternatives), over the error's own. */
  nextStep?: NextStep;
}

export interface ToolErrorBody {
  error: { code: ErrorCode; message: string; nextStep: string; details?: unknown; [key: string]: unknown };
}

/** A mistake the caller can fix, as a tool result with isError (DESIGN §4: never a stack trace). */
export function toolError(err: AppError, ctx: ToolErrorContext = {}): CallToolResult {
  const own = err.extra?.nextStep as NextStep | undefined;
  const body: ToolErrorBody = {
    error: {
      ...(err.extra ?? {}),
      code: err.code,
      message: err.message,
      nextStep: nextStepFor(err.code, ctx.tool, ctx.served, [...asList(ctx.nextStep), ...asList(own), ...detailSteps(err).flatMap(asList)], err.details?.[0]?.code),
      ...(err.details?.length ? { details: err.details } : {}),
    },
  };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

export function isCallerError(err: unknown): err is AppError {
  return err instanceof AppError && err.status < 500;
}
