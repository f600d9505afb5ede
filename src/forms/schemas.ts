import { z } from 'zod';
import { FieldIdSchema } from '../fields/schemas.js';
import { GroupIdSchema } from '../groups/schemas.js';
import { COMPANY_MERGE_FIELDS, TODAY_MERGE_FIELD } from '../merge/fields.js';
import { findMalformedPlaceholders, findPlaceholders } from '../merge/placeholders.js';
import { OUTBOUND_URL_MAX_LENGTH } from '../platform/net/outbound.js';
import { cursorQueryFields } from '../platform/pagination.js';

export const FORM_NAME_MAX_LENGTH = 100;
export const FORM_TITLE_MAX_LENGTH = 200;
export const FORM_DESCRIPTION_MAX_LENGTH = 1000;
export const FORM_CONSENT_MAX_LENGTH = 500;
export const FORM_CUSTOM_FIELDS_MAX = 10;
export const FORM_GROUPS_MAX = 20;
/** Confirmation SMS: at most 3 segments of GSM-7 before the link is filled in. */
export const CONFIRMATION_MESSAGE_MAX_LENGTH = 400;
export const CONFIRM_LINK_PLACEHOLDER = '{{confirm_link}}';
export const FORM_NAME_PLACEHOLDER = '{{form_name}}';
/** The first name the visitor typed into this submission (never the stored contact's); see confirmationText. */
export const SUBMITTED_FIRST_NAME_PLACEHOLDER = '{{submitted_first_name}}';
export const DEFAULT_CONFIRMATION_MESSAGE = `Please confirm your subscription to ${FORM_NAME_PLACEHOLDER}: ${CONFIRM_LINK_PLACEHOLDER} (ignore this message if you did not sign up)`;
/** Slugs the public routes use themselves. */
export const RESERVED_SLUGS = new Set(['confirm', 'assets', 'new']);
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,62}[a-z0-9])$/;

/**
 * What a confirmation message may merge (issue #27). The SMS goes to any number typed into the public page and no
 * person approves it, so it may carry only what a person of the account wrote (the company fields, set in the
 * console's settings), the date, the form's own placeholders and the visitor's own first name from this submission.
 * Contact fields, custom-field tags and the unsubscribe link would put data an assistant may have written into a
 * contact into a message nobody approved; unknown names would merge as contact data once a field of that tag exists.
 */
export const CONFIRMATION_FORM_PLACEHOLDERS = ['confirm_link', 'form_name', 'submitted_first_name'] as const;
/** Left for the send path's merge, which fills them from the account (company profile, today in its zone). */
export const CONFIRMATION_ACCOUNT_PLACEHOLDERS: ReadonlySet<string> = new Set<string>([...COMPANY_MERGE_FIELDS, TODAY_MERGE_FIELD]);
const CONFIRMATION_ALLOWED: ReadonlySet<string> = new Set<string>([...CONFIRMATION_FORM_PLACEHOLDERS, ...CONFIRMATION_ACCOUNT_PLACEHOLDERS]);
export const CONFIRMATION_ALLOWED_TEXT = `Allowed: ${CONFIRMATION_FORM_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')} (the first name typed into this submission), {{${TODAY_MERGE_FIELD}}} and the company fields ${COMPANY_MERGE_FIELDS.map((p) => `{{${p}}}`).join(', ')}`;

/** Why a confirmation message may not be saved: its placeholders outside the allowed set, and brace runs that are none. */
export function confirmationMessageProblems(message: string): string[] {
  const problems = findPlaceholders(message)
    .filter((name) => !CONFIRMATION_ALLOWED.has(name))
    .map((name) => `{{${name}}} cannot be used in a confirmation SMS: it goes to any number typed into the form and no person approves it. ${CONFIRMATION_ALLOWED_TEXT}.`);
  for (const bad of findMalformedPlaceholders(message)) problems.push(`"${bad}" is not a placeholder; write placeholders as {{name}}. ${CONFIRMATION_ALLOWED_TEXT}.`);
  return problems;
}

export const CONFIRMATION_LIMIT_NAMES = ['perFormPerHour', 'perFormPerDay', 'perAccountPerHour', 'perAccountPerDay'] as const;
export type ConfirmationLimitName = (typeof CONFIRMATION_LIMIT_NAMES)[number];
/** "30 confirmation SMS per hour per form": the cap in words, for the submission's note and the console's warning. */
export function describeConfirmationLimit(limit: ConfirmationLimitName, max: number): string {
  const per = limit.endsWith('PerHour') ? 'hour' : 'day';
  return `${max} confirmation SMS per ${per} ${limit.startsWith('perForm') ? 'per form' : 'for the whole account'}`;
}

export const FieldModeSchema = z.enum(['off', 'optional', 'required']);
export type FieldModeValue = z.infer<typeof FieldModeSchema>;

export const FormCustomFieldSchema = z.strictObject({
  fieldId: FieldIdSchema,
  label: z.string().trim().min(1).max(100).optional().describe('Label on the page; default: the field’s name.'),
  required: z.boolean().default(false),
});

export const FormFieldsSchema = z.strictObject({
  firstName: FieldModeSchema.default('optional').describe('off, optional or required.'),
  email: FieldModeSchema.default('optional').describe('off, optional or required.'),
  customFields: z.array(FormCustomFieldSchema).max(FORM_CUSTOM_FIELDS_MAX).default([]).describe(`Custom fields asked for, at most ${FORM_CUSTOM_FIELDS_MAX}.`),
});
export type FormFields = z.output<typeof FormFieldsSchema>;

const Slug = z
  .string()
  .trim()
  .toLowerCase()
  .regex(SLUG_PATTERN, 'must be 3 to 64 lower-case letters, digits and dashes, starting and ending with a letter or digit')
  .refine((s) => !RESERVED_SLUGS.has(s), { message: 'is reserved' })
  .describe('The page is {PUBLIC_URL}/f/<slug>; unique across the server. Default: made from the name.');
const Nullable = (max: number) => z.string().trim().max(max).nullable();
const Confirmation = z
  .strictObject({
    sendernameId: z.string().min(1).max(100).describe('An approved SMS sender of the account (id or name).'),
    message: z
      .string()
      .trim()
      .min(1)
      .max(CONFIRMATION_MESSAGE_MAX_LENGTH)
      .refine((m) => m.includes(CONFIRM_LINK_PLACEHOLDER), { message: `must contain ${CONFIRM_LINK_PLACEHOLDER}` })
      .superRefine((m, ctx) => {
        for (const message of confirmationMessageProblems(m)) ctx.addIssue({ code: 'custom', message, params: { code: 'placeholder_not_allowed' } });
      })
      .optional()
      .describe(
        `SMS text with ${CONFIRM_LINK_PLACEHOLDER} (required); optionally ${FORM_NAME_PLACEHOLDER}, ${SUBMITTED_FIRST_NAME_PLACEHOLDER} (the first name typed into this submission, left empty unless it is a plain name), {{today}} and the company fields. No other placeholder: the SMS goes to any number typed into the form without a person approving it. Default: "${DEFAULT_CONFIRMATION_MESSAGE}".`,
      ),
  })
  .describe('The double opt-in confirmation SMS.');
const WebhookUrl = z
  .string()
  .trim()
  .max(OUTBOUND_URL_MAX_LENGTH)
  .nullable()
  .describe('The form’s own webhook (form_submission, form_optin_confirmed). Null: the account’s webhooks subscribed to form events.');

export const CreateFormSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(FORM_NAME_MAX_LENGTH),
    slug: Slug.optional(),
    title: Nullable(FORM_TITLE_MAX_LENGTH).optional().describe('Heading of the page; default: the name.'),
    description: Nullable(FORM_DESCRIPTION_MAX_LENGTH).optional().describe('Text under the heading.'),
    fields: FormFieldsSchema.default({ firstName: 'optional', email: 'optional', customFields: [] }),
    groups: z.array(GroupIdSchema).max(FORM_GROUPS_MAX).default([]).describe('Groups the contact joins once confirmed.'),
    doubleOptIn: z.boolean().default(true).describe('Send a confirmation SMS and confirm only through its link (default true).'),
    confirmation: Confirmation.optional(),
    applyData: z.boolean().default(true).describe('Write the submitted name, email, custom fields and groups to the contact when the opt-in is confirmed (default true).'),
    consentText: Nullable(FORM_CONSENT_MAX_LENGTH).optional().describe('Consent statement shown above the button.'),
    webhookUrl: WebhookUrl.optional(),
    active: z.boolean().default(true).describe('false closes the public page.'),
  })
  .refine((f) => !f.doubleOptIn || f.confirmation !== undefined, { path: ['confirmation'], message: 'is required when doubleOptIn is true (sendernameId of an SMS sender)' });
export type CreateFormInput = z.input<typeof CreateFormSchema>;

export const UpdateFormSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(FORM_NAME_MAX_LENGTH).optional(),
    slug: Slug.optional(),
    title: Nullable(FORM_TITLE_MAX_LENGTH).optional(),
    description: Nullable(FORM_DESCRIPTION_MAX_LENGTH).optional(),
    fields: FormFieldsSchema.optional(),
    groups: z.array(GroupIdSchema).max(FORM_GROUPS_MAX).optional(),
    doubleOptIn: z.boolean().optional(),
    confirmation: Confirmation.nullable().optional(),
    applyData: z.boolean().optional(),
    consentText: Nullable(FORM_CONSENT_MAX_LENGTH).optional(),
    webhookUrl: WebhookUrl.optional(),
    active: z.boolean().optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Give at least one field to change' });
export type UpdateFormInput = z.input<typeof UpdateFormSchema>;

export const FormSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  url: z.string().describe('The public page.'),
  title: z.string().nullable(),
  description: z.string().nullable(),
  fields: z.object({
    firstName: FieldModeSchema,
    email: FieldModeSchema,
    customFields: z.array(z.object({ fieldId: z.string(), label: z.string(), required: z.boolean() })),
  }),
  groups: z.array(z.string()),
  doubleOptIn: z.boolean(),
  confirmation: z.object({ sendernameId: z.string(), message: z.string() }).nullable(),
  applyData: z.boolean(),
  consentText: z.string().nullable(),
  webhook: z.object({ id: z.string(), url: z.string() }).nullable(),
  active: z.boolean(),
  submissions: z.object({ pending: z.number().int(), confirmed: z.number().int() }),
  confirmationLimitHit: z
    .object({
      limit: z.enum(CONFIRMATION_LIMIT_NAMES).describe('The account setting that held it back.'),
      max: z.number().int().describe('Its value at the time.'),
      at: z.string().describe('When (the last such submission).'),
    })
    .nullable()
    .describe('A cap on confirmation SMS held back a submission of this form in the last 24 hours; null otherwise.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Form = z.infer<typeof FormSchema>;

export const SubmissionDataSchema = z.object({
  phone: z.string(),
  firstName: z.string().nullable(),
  email: z.string().nullable(),
  customFields: z.array(z.object({ id: z.string(), label: z.string(), value: z.string() })),
});
export type SubmissionData = z.infer<typeof SubmissionDataSchema>;

export const SubmissionSchema = z.object({
  id: z.string(),
  formId: z.string(),
  status: z.enum(['PENDING', 'CONFIRMED']),
  contact: z.object({ id: z.string(), phone: z.string(), action: z.enum(['created', 'updated']) }),
  data: SubmissionDataSchema,
  confirmationSent: z.boolean(),
  confirmationNote: z.string().nullable().describe('Why no confirmation SMS was sent for this submission.'),
  dataApplied: z.boolean(),
  submittedAt: z.string(),
  confirmedAt: z.string().nullable(),
});
export type Submission = z.infer<typeof SubmissionSchema>;

export const ListFormsQuerySchema = z.object({ ...cursorQueryFields({ defaultLimit: 50, maxLimit: 200 }) });
export const ListSubmissionsQuerySchema = z.object({
  status: z.enum(['PENDING', 'CONFIRMED']).optional(),
  ...cursorQueryFields({ defaultLimit: 50, maxLimit: 200 }),
});
export type ListSubmissionsQuery = z.input<typeof ListSubmissionsQuerySchema>;

// ---- view models of the public page (src/forms/form-pages.tsx) ----------------------------------------------------

/** What the public page needs to render a form. */
export interface PublicForm {
  id: string;
  accountId: string;
  accountName: string;
  name: string;
  slug: string;
  title: string;
  description: string | null;
  consentText: string;
  doubleOptIn: boolean;
  firstName: FieldModeValue;
  email: FieldModeValue;
  customFields: Array<{ fieldId: string; label: string; required: boolean }>;
}

/** What a visitor typed, as posted by the public page (field names of the HTML form). */
export interface PublicSubmission {
  phone: string;
  firstName?: string | undefined;
  email?: string | undefined;
  /** By fieldId. */
  custom?: Record<string, string | undefined>;
}

export interface SubmitResult {
  submissionId: string;
  status: 'PENDING' | 'CONFIRMED';
  confirmationSent: boolean;
  doubleOptIn: boolean;
  /** A cap on confirmation SMS held this one back: the visitor is asked to try again later. */
  confirmationLimited: boolean;
}

export interface ConfirmView {
  state: 'confirm' | 'confirmed' | 'already' | 'expired';
  formName: string;
  accountName: string;
  phoneEnding: string;
}
