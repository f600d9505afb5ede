import { z } from 'zod';
import { FieldIdSchema } from '../fields/schemas.js';
import { GroupIdSchema } from '../groups/schemas.js';
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
export const DEFAULT_CONFIRMATION_MESSAGE = `Please confirm your subscription to ${FORM_NAME_PLACEHOLDER}: ${CONFIRM_LINK_PLACEHOLDER} (ignore this message if you did not sign up)`;
/** Slugs the public routes use themselves. */
export const RESERVED_SLUGS = new Set(['confirm', 'assets', 'new']);
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,62}[a-z0-9])$/;

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
      .optional()
      .describe(`SMS text with ${CONFIRM_LINK_PLACEHOLDER} (required) and optionally ${FORM_NAME_PLACEHOLDER}. Default: "${DEFAULT_CONFIRMATION_MESSAGE}".`),
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

// ---- view models of the public page (preview-pages/forms.tsx) ----------------------------------------------------

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
}

export interface ConfirmView {
  state: 'confirm' | 'confirmed' | 'already' | 'expired';
  formName: string;
  accountName: string;
  phoneEnding: string;
}
