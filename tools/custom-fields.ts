import { z } from 'zod';
import {
  ContactFieldValuesSchema,
  CreateFieldSchema,
  CustomFieldSchema,
  FIELD_TAG_MAX_LENGTH,
  FIELD_VALUE_MAX_LENGTH,
  FIELD_VALUES_PER_CALL_MAX,
  ListFieldsQuerySchema,
  SetFieldValuesSchema,
} from '../src/fields/schemas.js';
import { cursorListSchema, dataResponseSchema, ok } from '../src/platform/pagination.js';
import { idArg } from './contacts.js';
import { DELETE, READ, WRITE, WRITE_IDEMPOTENT, defineTool } from './types.js';

/*
 * Custom fields (spec §2.9, §4.4): definitions and per-contact values, under custom-fields:read/write
 * like their REST routes (src/fields/routes.ts), with the same schemas and response bodies.
 */

export const listCustomFields = defineTool({
  name: 'list_custom_fields',
  title: 'List custom fields',
  description: 'Custom field definitions of the account, oldest first: id (fld_…), name, tag, placeholder ({{tag}}, usable in messages and templates) and usageCount (contacts with a value). Check here before create_custom_field, and for the fieldId or tag to pass to set_contact_custom_fields.',
  toolset: 'custom_fields',
  permissions: ['custom-fields:read'],
  input: z.strictObject(ListFieldsQuerySchema.shape),
  output: cursorListSchema(CustomFieldSchema),
  annotations: READ,
  uses: ['fields'],
  run: ({ fields, principal }, input) => fields.list(principal.accountId, input),
});

export const createCustomField = defineTool({
  name: 'create_custom_field',
  title: 'Create a custom field',
  description: `Defines a per-contact field: name and tag (letters, digits, underscores, ≤ ${FIELD_TAG_MAX_LENGTH} characters; unique ignoring case; not a built-in merge field name such as contact_first_name). The tag becomes the placeholder {{tag}} in messages and templates. Then set values with set_contact_custom_fields, create_contact or bulk_create_contacts. A used tag is CONFLICT naming existingFieldId.`,
  toolset: 'custom_fields',
  permissions: ['custom-fields:write'],
  input: CreateFieldSchema,
  output: dataResponseSchema(CustomFieldSchema),
  annotations: WRITE,
  uses: ['fields'],
  run: async ({ fields, principal }, input) => ok(await fields.create(principal.accountId, input)),
});

export const deleteCustomField = defineTool({
  name: 'delete_custom_field',
  title: 'Delete a custom field',
  description: 'Deletes a custom field definition. While contacts have values for it the call fails with FIELD_IN_USE (naming usageCount); call again with force:true only after the user agrees to lose those values. Afterwards its {{tag}} is an unknown placeholder: SMS text drops it, RCS text keeps it as written.',
  toolset: 'custom_fields',
  permissions: ['custom-fields:write'],
  input: z.strictObject({
    id: idArg('custom field', 'fld'),
    force: z.boolean().default(false).describe('true also deletes the values contacts have for this field; default false (refused with FIELD_IN_USE while in use).'),
  }),
  output: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true), deletedValues: z.number().int() })),
  annotations: DELETE,
  uses: ['fields'],
  run: async ({ fields, principal }, input) => ok(await fields.delete(principal.accountId, input.id, { force: input.force })),
});

export const setContactCustomFields = defineTool({
  name: 'set_contact_custom_fields',
  title: "Set a contact's custom field values",
  description: `Sets up to ${FIELD_VALUES_PER_CALL_MAX} custom field values of one contact: customFields [{fieldId or tag, value}] (value ≤ ${FIELD_VALUE_MAX_LENGTH} characters; null deletes that value). Fields not listed keep their value. The fields must exist (list_custom_fields / create_custom_field); an unknown one is NOT_FOUND and nothing is written. Returns all values of the contact after the change.`,
  toolset: 'custom_fields',
  permissions: ['custom-fields:write'],
  input: z.strictObject({ contactId: idArg('contact', 'ct'), ...SetFieldValuesSchema.shape }),
  output: dataResponseSchema(ContactFieldValuesSchema),
  annotations: WRITE_IDEMPOTENT,
  nextSteps: { NOT_FOUND: ['The contact or a custom field is not in this account: list_contacts and list_custom_fields show their ids and tags.', 'The contact or a custom field is not in this account: use ids and tags exactly as the account lists them.'] },
  uses: ['fields'],
  run: async ({ fields, principal }, { contactId, ...body }) => ok(await fields.setValues(principal.accountId, contactId, body)),
});

export const customFieldsTools = [listCustomFields, createCustomField, deleteCustomField, setContactCustomFields];
