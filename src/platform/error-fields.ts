import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from './errors.js';

/**
 * The machine-readable fields an error carries beside `code`, `message` and `details` (issue #42).
 * One source for three things: the type of `AppError`'s `extra` (a call site cannot put a field
 * here that is not listed for its code), the `ErrorResponse` schema of /openapi.json (so a generated
 * client reads every field, typed) and the check of real answers against that document
 * (test/api/openapi-answers.test.ts).
 */

/** One recipient refused at accept time (also a field of batch answers, in src/messaging/schemas.ts). */
export const RejectedRecipientSchema = z.object({
  phoneNumber: z.string(),
  code: z.string(),
  reason: z.string(),
  retryAfterSeconds: z.number().int().optional().describe('RATE_LIMITED only: when this number may get a message again'),
  details: z
    .array(z.object({ path: z.string(), code: z.string(), message: z.string() }))
    .optional()
    .describe('INVALID_MERGED_CONTENT only: which fields of this recipient\'s merged message break which rule'),
});

const ScheduleInstantSchema = z.object({
  utc: z.string().describe('The instant in UTC, ISO 8601'),
  localTime: z.string().describe('The same instant in the effective time zone, with its offset'),
});

const FIELDS = {
  nextStep: z.string().describe('A sentence saying what to do next (for an assistant or an integrator)'),
  share_url: z.string().describe('The preview\'s share page, where a person of the account logs in and approves'),
  previewRoutes: z.array(z.string()).describe('The preview routes through which a credential whose sends need approval sends'),
  requiredPermission: z.string().describe('The permission the credential lacks'),
  requiredPermissions: z.array(z.string()).describe('Every permission the credential lacks'),
  differingFields: z.array(z.string()).describe('Paths where the payload differs from the previewed one'),
  staleRecipients: z.number().int().describe('Recipients whose merged message changed since the preview'),
  previewRecipients: z.number().int().describe('Recipients of the preview'),
  changedFields: z.array(z.string()).describe('Merge fields whose values changed since the preview'),
  committedAt: z.string().describe('When the earlier request with this Idempotency-Key was carried out (ISO 8601)'),
  existingContactId: z.string().describe('The contact that already has this phone'),
  existingFieldId: z.string().describe('The custom field that already has this tag'),
  existingTemplateGroupId: z.string().describe('The template group that already has this name'),
  existingWebhookId: z.string().describe('The webhook that already has this URL'),
  country: z.string().describe('The ISO 3166-1 alpha-2 country of the number'),
  gap: z.object({ before: ScheduleInstantSchema, after: ScheduleInstantSchema }).describe('A wall time skipped by a DST change: the last valid time before the gap and the first after it'),
  rejected: z.array(RejectedRecipientSchema).describe('Every recipient refused, with the reason'),
  retryAfterSeconds: z.number().int().describe('Seconds to wait before trying again (also the Retry-After header)'),
  limit: z
    .union([z.number().int(), z.enum(['dailyCredits', 'maxRecipients'])])
    .describe('SANDBOX_RATE_LIMITED: the number of requests allowed per window; BUDGET_EXCEEDED: which limit of the credential was hit'),
  window: z.enum(['minute', 'day']).describe('The sandbox rate-limit window that is full'),
  maxBytes: z.number().int().describe('The largest accepted size in bytes'),
  actualBytes: z.number().int().describe('The size that was sent, in bytes'),
  credential: z.string().describe('The API key or OAuth app whose limit was hit, by its name'),
  maxRecipients: z.number().int().describe('Recipients the credential may reach per send'),
  recipients: z.number().int().describe('Recipients of this send'),
  dailyCredits: z.number().describe('Credits the credential may spend per day'),
  creditsUsedToday: z.number().describe('Credits the credential spent today'),
  creditsLeftToday: z.number().describe('Credits the credential may still spend today'),
  creditsHeld: z.number().describe('Credits held today by approved previews of the credential that were not sent yet'),
  creditsRequired: z.number().describe('Credits this send costs'),
  creditsAvailable: z.number().describe('Credits the account has'),
  resetsAt: z.string().describe('When the daily budget starts again (ISO 8601)'),
  usageCount: z.number().int().describe('Contacts that have a value for this custom field'),
} as const;

type FieldName = keyof typeof FIELDS;

/** Which fields each code may carry; a code not listed carries none. */
export const ERROR_FIELDS = {
  VALIDATION_ERROR: ['rejected'],
  INVALID_SCHEDULE_TIME: ['gap'],
  COUNTRY_NOT_SUPPORTED: ['country'],
  INSUFFICIENT_CREDITS: ['creditsRequired', 'creditsAvailable'],
  FIELD_IN_USE: ['usageCount'],
  PREVIEW_MISMATCH: ['nextStep', 'differingFields'],
  PREVIEW_NOT_APPROVED: ['share_url', 'nextStep'],
  APPROVAL_REQUIRED: ['previewRoutes'],
  BUDGET_EXCEEDED: ['limit', 'credential', 'maxRecipients', 'recipients', 'dailyCredits', 'creditsUsedToday', 'creditsLeftToday', 'creditsHeld', 'creditsRequired', 'resetsAt', 'nextStep'],
  FORBIDDEN: ['requiredPermission', 'requiredPermissions'],
  NOT_FOUND: ['nextStep'],
  CONFLICT: ['existingContactId', 'existingFieldId', 'existingTemplateGroupId', 'existingWebhookId'],
  PREVIEW_STALE: ['nextStep', 'staleRecipients', 'previewRecipients', 'changedFields'],
  IDEMPOTENCY_RESPONSE_LOST: ['committedAt'],
  PAYLOAD_TOO_LARGE: ['maxBytes', 'actualBytes'],
  RATE_LIMITED: ['retryAfterSeconds'],
  SANDBOX_RATE_LIMITED: ['limit', 'window', 'retryAfterSeconds'],
} as const satisfies Partial<Record<ErrorCode, readonly FieldName[]>>;

type ErrorFieldValues = { [K in FieldName]: z.output<(typeof FIELDS)[K]> };

type FieldsOf<C extends ErrorCode> = C extends keyof typeof ERROR_FIELDS ? Partial<Pick<ErrorFieldValues, (typeof ERROR_FIELDS)[C][number]>> : Record<string, never>;

/** The extra fields an error of code C may carry (what a call site may give). */
export type ErrorExtraOf<C extends ErrorCode> = FieldsOf<C>;

/** Every extra field, each optional (what a reader of an error of any code may find). */
export type ErrorExtra = Partial<ErrorFieldValues>;

/** The codes that carry a field, for its description in the document. */
export function codesCarrying(field: string): ErrorCode[] {
  return (Object.entries(ERROR_FIELDS) as Array<[ErrorCode, readonly string[]]>).filter(([, fields]) => fields.includes(field)).map(([code]) => code);
}

const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export const ErrorDetailSchema = z.object({
  path: z.string().describe('JSON path of the offending value, e.g. content.suggestions[3].reply.text'),
  code: z.string(),
  message: z.string(),
});

const documentedFields = Object.fromEntries(
  (Object.entries(FIELDS) as Array<[FieldName, z.ZodType]>).map(([name, schema]) => [name, schema.optional().describe(`${schema.description ?? ''}. Carried by ${codesCarrying(name).join(', ')}.`)]),
) as { [K in FieldName]: z.ZodOptional<(typeof FIELDS)[K]> };

/** The one JSON shape of every REST error (DESIGN §4), as the document names it. */
export const ErrorResponseSchema = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(ERROR_CODES).describe('One of the closed set of error codes; the HTTP status follows from it'),
      message: z.string(),
      details: z.array(ErrorDetailSchema).optional(),
      ...documentedFields,
    }),
  })
  .meta({ id: 'ErrorResponse' });
