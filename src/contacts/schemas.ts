import { z } from 'zod';
import { BULK_CONTACTS_MAX, BULK_DISABLE_REASON_MAX_LENGTH, CONTACT_LIST_LIMIT_MAX, CONTACT_NAME_MAX_LENGTH } from './limits.js';
import { GROUP_MEMBERSHIP_MAX_IDS } from '../groups/limits.js';
import { printable } from '../content/characters.js';
import { ContactFieldValueSchema, FieldValueInputSchema, FIELD_VALUES_PER_CALL_MAX } from '../fields/schemas.js';
import { GroupIdSchema, GroupRefSchema } from '../groups/schemas.js';
import { cursorQueryFields } from '../platform/pagination.js';
import { idSchema } from '../platform/id-schema.js';
import { ConsentSourceInputSchema } from '../suppression/schemas.js';

export { BULK_CONTACTS_MAX, CONTACT_NAME_MAX_LENGTH };
export const DISABLE_REASON_MAX_LENGTH = BULK_DISABLE_REASON_MAX_LENGTH;
export const CONTACT_EMAIL_MAX_LENGTH = 254;
/** Ids per bulk disable/enable call (the spec gives none; the group-membership limit is used). */
export const BULK_STATUS_MAX_IDS = GROUP_MEMBERSHIP_MAX_IDS;
/** Groups named in one create/update/bulk call. */
export const CONTACT_GROUPS_PER_CALL_MAX = 1000;
export const CONTACT_SEARCH_MAX_LENGTH = 100;
export const CONTACT_LIST_MAX_LIMIT = CONTACT_LIST_LIMIT_MAX;
export const CONTACT_LIST_DEFAULT_LIMIT = 50;

export const ContactIdSchema = idSchema('ct', 'a contact');

/** Trims strings and turns an empty string into null ("not set"); other values pass to `inner`. */
const blankToNull = <T extends z.ZodType>(inner: T) =>
  z.preprocess((v) => (typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v), inner);

const NameSchema = (what: string) =>
  blankToNull(printable(z.string()).max(CONTACT_NAME_MAX_LENGTH).nullable()).describe(`${what}; empty or null: not set.`);
const EmailSchema = blankToNull(z.email().max(CONTACT_EMAIL_MAX_LENGTH).nullable()).describe('Email; empty or null: not set.');
export const PhoneInputSchema = z
  .string()
  .min(1)
  .max(40)
  .describe('With country code, e.g. +4915112345678.');

const GroupIdList = z
  .array(GroupIdSchema)
  .max(CONTACT_GROUPS_PER_CALL_MAX)
  .describe('Group ids (grp_…) of the account.');
const CustomFieldValueList = z
  .array(FieldValueInputSchema)
  .max(FIELD_VALUES_PER_CALL_MAX)
  .describe('Custom field values; null deletes one.');

export const CreateContactSchema = z.strictObject({
  phone: PhoneInputSchema,
  firstName: NameSchema('First name').optional(),
  lastName: NameSchema('Last name').optional(),
  email: EmailSchema.optional(),
  groups: GroupIdList.optional(),
  customFields: CustomFieldValueList.optional(),
  consentSource: ConsentSourceInputSchema.optional(),
});
export type CreateContactInput = z.input<typeof CreateContactSchema>;

export const UpdateContactSchema = z
  .strictObject({
    phone: PhoneInputSchema.optional(),
    firstName: NameSchema('First name').optional(),
    lastName: NameSchema('Last name').optional(),
    email: EmailSchema.optional(),
    disabled: z.boolean().optional().describe('true also cancels its scheduled messages.'),
    groups: GroupIdList.optional().describe('Replaces its groups; [] removes it from all.'),
    customFields: CustomFieldValueList.optional().describe('null deletes a value; others are kept.'),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Give at least one field to change' });
export type UpdateContactInput = z.input<typeof UpdateContactSchema>;

// ---- bulk ------------------------------------------------------------------------------------

/** Row as typed in the request body; value limits are checked per row (failures are reported, not fatal). */
export const BulkContactRowSchema = z.strictObject({
  phone: z.string().describe('With country code.'),
  firstName: z.string().nullable().optional().describe(`First name, ≤ ${CONTACT_NAME_MAX_LENGTH} characters.`),
  lastName: z.string().nullable().optional().describe(`Last name, ≤ ${CONTACT_NAME_MAX_LENGTH} characters.`),
  email: z.string().nullable().optional().describe('Email.'),
  customFields: z
    .array(
      z.strictObject({
        fieldId: z.string().optional().describe('Field id (fld_…), or give tag.'),
        tag: z.string().optional().describe('Field tag, instead of fieldId.'),
        value: z.string().nullable().describe('null deletes it.'),
      }),
    )
    .optional()
    .describe('An unknown field fails the row.'),
});

/** The same row with every value rule, applied by the service to each row. */
export const BulkContactRowStrictSchema = z.strictObject({
  phone: PhoneInputSchema,
  firstName: NameSchema('First name').optional(),
  lastName: NameSchema('Last name').optional(),
  email: EmailSchema.optional(),
  customFields: CustomFieldValueList.optional(),
});

export const BulkContactsSchema = z.strictObject({
  contacts: z
    .array(BulkContactRowSchema)
    .min(1)
    .max(BULK_CONTACTS_MAX)
    .describe('A failed row is reported in errors.'),
  upsert: z
    .boolean()
    .default(false)
    .describe('true updates existing phones; false skips them.'),
  groups: GroupIdList.optional().describe('Added to every saved contact.'),
  consentSource: ConsentSourceInputSchema.optional().describe('How these people consented; recorded as an opt-in for every created or updated contact.'),
});
export type BulkContactsInput = z.input<typeof BulkContactsSchema>;

export const BulkErrorSchema = z.object({
  index: z.number().int().describe('Position of the row in contacts.'),
  phone: z.string().describe('The phone as given in the row.'),
  code: z.enum(['VALIDATION_ERROR', 'COUNTRY_NOT_SUPPORTED', 'DUPLICATE', 'NOT_FOUND']),
  error: z.string(),
});
export type BulkError = z.infer<typeof BulkErrorSchema>;

export const BulkResultSchema = z.object({
  success: z.literal(true),
  created: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int().describe('Rows refused: invalid values, unsupported country, unknown custom field.'),
  skipped: z.number().int().describe('Duplicates: phones that already exist (create mode) or repeat an earlier row.'),
  errors: z.array(BulkErrorSchema).describe('One entry per failed or skipped row.'),
});
export type BulkResult = z.infer<typeof BulkResultSchema>;

export const BulkDisableSchema = z.strictObject({
  contactIds: z.array(ContactIdSchema).min(1).max(BULK_STATUS_MAX_IDS).describe('Contact ids (ct_…).'),
  reason: z.string().trim().max(DISABLE_REASON_MAX_LENGTH).optional().describe('Why; kept on the contact.'),
});
export type BulkDisableInput = z.input<typeof BulkDisableSchema>;

export const BulkEnableSchema = z.strictObject({
  contactIds: z.array(ContactIdSchema).min(1).max(BULK_STATUS_MAX_IDS).describe('Contact ids (ct_…).'),
});
export type BulkEnableInput = z.input<typeof BulkEnableSchema>;

export const BulkDisableResultSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  disabledCount: z.number().int().describe('Contacts disabled by this call.'),
  requestedCount: z.number().int().describe('Distinct ids in the request.'),
  cancelledMessages: z.number().int().describe('Scheduled messages to these contacts that were cancelled.'),
  alreadyDisabledCount: z.number().int(),
  notFoundIds: z.array(z.string()).describe('Ids that are not contacts of this account.'),
});
export type BulkDisableResult = z.infer<typeof BulkDisableResultSchema>;

export const BulkEnableResultSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  enabledCount: z.number().int(),
  requestedCount: z.number().int(),
  notDisabledCount: z.number().int().describe('Contacts that were not disabled (left unchanged).'),
  notFoundIds: z.array(z.string()),
});
export type BulkEnableResult = z.infer<typeof BulkEnableResultSchema>;

// ---- list ------------------------------------------------------------------------------------

export const CONTACT_SORTS = ['createdAt', 'updatedAt', 'firstName', 'lastName', 'email', 'phone'] as const;
export type ContactSort = (typeof CONTACT_SORTS)[number];
export const SORT_ORDERS = ['asc', 'desc'] as const;

const boolQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

const filterFields = {
  search: z
    .string()
    .trim()
    .max(CONTACT_SEARCH_MAX_LENGTH)
    .optional()
    .describe('Part of name, phone or email.'),
  disabled: boolQuery.optional().describe('true: only disabled; false: only enabled.'),
  group: z.string().optional().describe('Only members of this group (grp_…).'),
};

export const ListContactsQuerySchema = z.object({
  ...cursorQueryFields({ defaultLimit: CONTACT_LIST_DEFAULT_LIMIT, maxLimit: CONTACT_LIST_MAX_LIMIT }),
  ...filterFields,
  phone: z
    .string()
    .max(40)
    .optional()
    .describe('Exact number; other filters ignored.'),
  sort: z.enum(CONTACT_SORTS).default('createdAt').describe('Sort key.'),
  order: z.enum(SORT_ORDERS).optional().describe('Default desc for dates, asc otherwise.'),
  include: z.enum(['customFields']).optional().describe('Embed custom field values.'),
});
export type ListContactsQuery = z.output<typeof ListContactsQuerySchema>;

export const CountContactsQuerySchema = z.object(filterFields);
export type CountContactsQuery = z.output<typeof CountContactsQuerySchema>;

export const GetContactQuerySchema = z.object({
  include: z.enum(['customFields']).optional().describe('Embed custom field values.'),
});

/** Typed list options for ContactsService.list (from the REST query or MCP arguments). */
export interface ListContactsOptions {
  limit: number;
  cursor?: string | undefined;
  search?: string | undefined;
  phone?: string | undefined;
  disabled?: boolean | undefined;
  group?: string | undefined;
  sort?: ContactSort | undefined;
  order?: 'asc' | 'desc' | undefined;
  includeCustomFields?: boolean | undefined;
}

export interface ContactFilter {
  search?: string | undefined;
  disabled?: boolean | undefined;
  group?: string | undefined;
}

// ---- responses -------------------------------------------------------------------------------

export const ContactSchema = z.object({
  id: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  phone: z.string().describe('Digits with country code, no + or 00 (e.g. 4915112345678).'),
  country: z.string().describe('ISO 3166-1 alpha-2 country of the number.'),
  email: z.string().nullable(),
  disabled: z.boolean(),
  disabledReason: z.string().nullable(),
  disabledAt: z.string().nullable(),
  groups: z.array(GroupRefSchema),
  customFields: z.array(ContactFieldValueSchema).optional().describe('Present with include=customFields and on create/update responses.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Contact = z.infer<typeof ContactSchema>;
