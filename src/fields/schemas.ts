import { z } from 'zod';
import { printable } from '../content/characters.js';
import { idSchema } from '../platform/id-schema.js';
import { cursorQueryFields } from '../platform/pagination.js';

/** §2.9: letters, numbers and underscores; becomes the placeholder {{tag}}. */
export const FIELD_TAG_PATTERN = /^[A-Za-z0-9_]+$/;
export const FIELD_TAG_MAX_LENGTH = 50;
export const FIELD_NAME_MAX_LENGTH = 100;
export const FIELD_VALUE_MAX_LENGTH = 1000;
/** Values set in one call (PUT /{id}/fields, a contact's customFields). */
export const FIELD_VALUES_PER_CALL_MAX = 200;

export const FieldIdSchema = idSchema('fld', 'a custom field');

export const ListFieldsQuerySchema = z.object({ ...cursorQueryFields({ defaultLimit: 200, maxLimit: 200 }) });
export type ListFieldsOptions = z.input<typeof ListFieldsQuerySchema>;

export const FieldTagSchema = z
  .string()
  .trim()
  .min(1)
  .max(FIELD_TAG_MAX_LENGTH)
  .regex(FIELD_TAG_PATTERN, 'must contain only letters, digits and underscores')
  .describe('Used as {{tag}}; unique ignoring case.');

const FieldName = z.string().trim().min(1).max(FIELD_NAME_MAX_LENGTH).describe('Display name.');

export const CreateFieldSchema = z.strictObject({ name: FieldName, tag: FieldTagSchema });
export type CreateFieldInput = z.input<typeof CreateFieldSchema>;

export const UpdateFieldSchema = z
  .strictObject({ name: FieldName.optional(), tag: FieldTagSchema.optional() })
  .refine((v) => v.name !== undefined || v.tag !== undefined, { message: 'Give name and/or tag' })
  .describe('Changing a tag does not touch stored values; templates that use the old {{tag}} stop resolving it.');
export type UpdateFieldInput = z.input<typeof UpdateFieldSchema>;

export const FieldValueSchema = printable(z.string())
  .max(FIELD_VALUE_MAX_LENGTH)
  .nullable()
  .describe('null deletes the value.');

/** One value to set, naming the field by id or by tag (exactly one of them). */
export const FieldValueInputSchema = z
  .strictObject({
    fieldId: FieldIdSchema.optional(),
    tag: z.string().min(1).max(FIELD_TAG_MAX_LENGTH).optional().describe('Field tag, instead of fieldId.'),
    value: FieldValueSchema,
  })
  .refine((v) => (v.fieldId === undefined) !== (v.tag === undefined), { message: 'Give exactly one of fieldId or tag' });
export type FieldValueInput = z.input<typeof FieldValueInputSchema>;

export const FieldValueInputListSchema = z.array(FieldValueInputSchema).max(FIELD_VALUES_PER_CALL_MAX);

export const SetFieldValuesSchema = z.strictObject({
  customFields: FieldValueInputListSchema.min(1).describe('[{fieldId or tag, value}]'),
});
export type SetFieldValuesInput = z.input<typeof SetFieldValuesSchema>;

export const SetOneFieldValueSchema = z.strictObject({ value: FieldValueSchema });

export const CustomFieldSchema = z.object({
  id: z.string(),
  name: z.string(),
  tag: z.string(),
  placeholder: z.string().describe('The tag as written in messages: {{tag}}.'),
  usageCount: z.number().int().describe('Contacts that have a value for this field.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CustomField = z.infer<typeof CustomFieldSchema>;

export const ContactFieldValueSchema = z.object({ fieldId: z.string(), tag: z.string(), name: z.string(), value: z.string() });
export type ContactFieldValue = z.infer<typeof ContactFieldValueSchema>;

export const ContactFieldValuesSchema = z.object({ contactId: z.string(), customFields: z.array(ContactFieldValueSchema) });
export type ContactFieldValues = z.infer<typeof ContactFieldValuesSchema>;

export const OneFieldValueSchema = z.object({
  contactId: z.string(),
  fieldId: z.string(),
  tag: z.string(),
  name: z.string(),
  value: z.string().nullable().describe('null when the value was deleted'),
});
export type OneFieldValue = z.infer<typeof OneFieldValueSchema>;
