import { z } from 'zod';
import type { FieldsService } from './service.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { cursorListSchema, dataResponseSchema, ok } from '../platform/pagination.js';
import { actorOf } from '../platform/permissions.js';
import {
  ContactFieldValuesSchema,
  CreateFieldSchema,
  CustomFieldSchema,
  ListFieldsQuerySchema,
  OneFieldValueSchema,
  SetFieldValuesSchema,
  SetOneFieldValueSchema,
  UpdateFieldSchema,
} from './schemas.js';

const TAGS = ['Custom fields'];
const FieldParams = z.object({ fieldId: z.string() });
const ContactParams = z.object({ id: z.string() });
const ContactFieldParams = z.object({ id: z.string(), fieldId: z.string() });
const DeleteQuery = z.object({
  force: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('true deletes the field even when contacts have values for it (the values are deleted too).'),
});
const FieldResponse = dataResponseSchema(CustomFieldSchema);

/**
 * Custom fields under the contacts base (spec §4.4): definitions and per-contact values, all
 * under custom-fields:read/write as §4.4 groups them (values embedded in a contact through the
 * contact endpoints follow the contact permissions; docs/decisions.md).
 * Mounted before the contact routes so that /fields is not taken for a contact id.
 */
export function fieldsRoutes({ fields }: { fields: FieldsService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/fields',
      operationId: 'listContactFields',
      summary: 'List custom field definitions (oldest first)',
      tags: TAGS,
      auth: 'custom-fields:read',
      query: ListFieldsQuerySchema,
      responses: { 200: { description: '{data, pagination}', schema: cursorListSchema(CustomFieldSchema) } },
      handler: ({ query, principal }) => fields.list(principal.accountId, query),
    }),
    defineRoute({
      method: 'post',
      path: '/fields',
      operationId: 'createContactField',
      idempotent: true,
      summary: 'Create a custom field definition',
      tags: TAGS,
      auth: 'custom-fields:write',
      body: CreateFieldSchema,
      status: 201,
      responses: { 201: { description: 'Created', schema: FieldResponse }, 400: { description: 'Invalid or reserved tag' }, 409: { description: 'Tag already used' } },
      handler: async ({ body, principal }) => ok(await fields.create(principal.accountId, body)),
    }),
    defineRoute({
      method: 'get',
      path: '/fields/:fieldId',
      operationId: 'getContactField',
      summary: 'Get a custom field definition',
      tags: TAGS,
      auth: 'custom-fields:read',
      params: FieldParams,
      responses: { 200: { description: 'The field', schema: FieldResponse }, 400: { description: 'Malformed id' }, 404: { description: 'Not found' } },
      handler: async ({ params, principal }) => ok(await fields.get(principal.accountId, params.fieldId)),
    }),
    defineRoute({
      method: 'put',
      path: '/fields/:fieldId',
      operationId: 'updateContactField',
      summary: 'Update a custom field definition (name and/or tag)',
      tags: TAGS,
      auth: 'custom-fields:write',
      params: FieldParams,
      body: UpdateFieldSchema,
      responses: { 200: { description: 'Updated', schema: FieldResponse }, 400: { description: 'Invalid' }, 404: { description: 'Not found' }, 409: { description: 'Tag already used' } },
      handler: async ({ params, body, principal }) => ok(await fields.update(principal.accountId, params.fieldId, body)),
    }),
    defineRoute({
      method: 'delete',
      path: '/fields/:fieldId',
      operationId: 'deleteContactField',
      summary: 'Delete a custom field definition (force=true also when in use)',
      tags: TAGS,
      auth: 'custom-fields:write',
      params: FieldParams,
      query: DeleteQuery,
      responses: {
        200: { description: 'Deleted', schema: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true), deletedValues: z.number().int() })) },
        400: { description: 'FIELD_IN_USE without force, or malformed id' },
        404: { description: 'Not found' },
      },
      handler: async ({ params, query, principal }) => ok(await fields.delete(principal.accountId, params.fieldId, { force: query.force })),
    }),
    defineRoute({
      method: 'get',
      path: '/:id/fields',
      operationId: 'getContactFieldValues',
      summary: "All custom field values of a contact",
      tags: TAGS,
      auth: 'custom-fields:read',
      params: ContactParams,
      responses: { 200: { description: 'Values', schema: dataResponseSchema(ContactFieldValuesSchema) }, 400: { description: 'Malformed id' }, 404: { description: 'Unknown contact' } },
      handler: async ({ params, principal }) => ok(await fields.getValues(principal.accountId, params.id)),
    }),
    defineRoute({
      method: 'put',
      path: '/:id/fields',
      operationId: 'setContactFieldValues',
      summary: 'Set several custom field values of a contact (by fieldId or tag; null deletes)',
      tags: TAGS,
      auth: 'custom-fields:write',
      params: ContactParams,
      body: SetFieldValuesSchema,
      responses: { 200: { description: 'All values after the change', schema: dataResponseSchema(ContactFieldValuesSchema) }, 400: { description: 'Invalid' }, 404: { description: 'Unknown contact or field' } },
      handler: async ({ params, body, principal }) => ok(await fields.setValues(principal.accountId, params.id, body, actorOf(principal))),
    }),
    defineRoute({
      method: 'put',
      path: '/:id/fields/:fieldId',
      operationId: 'setContactFieldValue',
      summary: 'Set one custom field value of a contact (null deletes)',
      tags: TAGS,
      auth: 'custom-fields:write',
      params: ContactFieldParams,
      body: SetOneFieldValueSchema,
      responses: { 200: { description: 'The value', schema: dataResponseSchema(OneFieldValueSchema) }, 400: { description: 'Invalid' }, 404: { description: 'Unknown contact or field' } },
      handler: async ({ params, body, principal }) => ok(await fields.setValue(principal.accountId, params.id, params.fieldId, body, actorOf(principal))),
    }),
    defineRoute({
      method: 'delete',
      path: '/:id/fields/:fieldId',
      operationId: 'deleteContactFieldValue',
      summary: 'Delete one custom field value of a contact',
      tags: TAGS,
      auth: 'custom-fields:write',
      params: ContactFieldParams,
      responses: {
        200: { description: 'deleted tells whether a value existed', schema: dataResponseSchema(z.object({ contactId: z.string(), fieldId: z.string(), deleted: z.boolean() })) },
        400: { description: 'Malformed id' },
        404: { description: 'Unknown contact or field' },
      },
      handler: async ({ params, principal }) => ok(await fields.deleteValue(principal.accountId, params.id, params.fieldId, actorOf(principal))),
    }),
  ];
}
