import { z } from 'zod';
import {
  ContactFieldValuesSchema,
  CreateFieldSchema,
  CustomFieldSchema,
  ListFieldsQuerySchema,
  SetFieldValuesSchema,
} from '../src/fields/schemas.js';
import { cursorListSchema, dataResponseSchema, ok } from '../src/platform/pagination.js';
import { actorOf } from '../src/platform/permissions.js';
import { idArg } from './contacts.js';
import { DELETE, READ, WRITE, WRITE_IDEMPOTENT, cursorPaging, defineTool } from './types.js';

/*
 * Custom fields (spec §2.9, §4.4): definitions and per-contact values, under custom-fields:read/write
 * like their REST routes (src/fields/routes.ts), with the same schemas and response bodies.
 */

export const listCustomFields = defineTool({
  name: 'list_custom_fields',
  title: 'List custom fields',
  description: 'Custom fields of the account, oldest first, with tag, placeholder {{tag}} and usageCount. Check here before create_custom_field.',
  toolset: 'custom_fields',
  permissions: ['custom-fields:read'],
  input: z.strictObject(ListFieldsQuerySchema.shape),
  output: cursorListSchema(CustomFieldSchema),
  annotations: READ,
  paging: () => cursorPaging(),
  uses: ['fields'],
  run: ({ fields, principal }, input) => fields.list(principal.accountId, input),
});

export const createCustomField = defineTool({
  name: 'create_custom_field',
  title: 'Create a custom field',
  description: 'Defines a per-contact field; its tag is the placeholder {{tag}} in messages (a used tag is CONFLICT). Values: set_contact_custom_fields.',
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
  description: 'Deletes a custom field. While contacts have values it is FIELD_IN_USE; force:true only after the user agrees to lose them.',
  toolset: 'custom_fields',
  permissions: ['custom-fields:write'],
  input: z.strictObject({
    id: idArg('custom field', 'fld'),
    force: z.boolean().default(false).describe('Also delete the values.'),
  }),
  output: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true), deletedValues: z.number().int() })),
  annotations: DELETE,
  uses: ['fields'],
  run: async ({ fields, principal }, input) => ok(await fields.delete(principal.accountId, input.id, { force: input.force })),
});

export const setContactCustomFields = defineTool({
  name: 'set_contact_custom_fields',
  title: "Set a contact's custom field values",
  description: 'Sets custom field values of one contact (null deletes one; others are kept); an unknown field writes nothing.',
  toolset: 'custom_fields',
  permissions: ['custom-fields:write'],
  input: z.strictObject({ contactId: idArg('contact', 'ct'), ...SetFieldValuesSchema.shape }),
  output: dataResponseSchema(ContactFieldValuesSchema),
  annotations: WRITE_IDEMPOTENT,
  nextSteps: { NOT_FOUND: ['The contact or a custom field is not in this account: list_contacts and list_custom_fields show their ids and tags.', 'The contact or a custom field is not in this account: use ids and tags exactly as the account lists them.'] },
  uses: ['fields'],
  run: async ({ fields, principal }, { contactId, ...body }) => ok(await fields.setValues(principal.accountId, contactId, body, actorOf(principal))),
});

export const customFieldsTools = [listCustomFields, createCustomField, deleteCustomField, setContactCustomFields];
