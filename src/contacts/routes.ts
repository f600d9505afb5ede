import { z } from 'zod';
import type { ContactsService } from './service.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { cursorListSchema, dataResponseSchema, ok } from '../platform/pagination.js';
import { actorOf } from '../platform/permissions.js';
import {
  BulkContactsSchema,
  BulkDisableResultSchema,
  BulkDisableSchema,
  BulkEnableResultSchema,
  BulkEnableSchema,
  BulkResultSchema,
  ContactSchema,
  CountContactsQuerySchema,
  CreateContactSchema,
  GetContactQuerySchema,
  ListContactsQuerySchema,
  UpdateContactSchema,
} from './schemas.js';

const IdParams = z.object({ id: z.string() });
const TAGS = ['Contacts'];
const ContactResponse = dataResponseSchema(ContactSchema);
const DeleteResponse = dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true), cancelledMessages: z.number().int() }));

/** REST adapter of spec §4.4 (contacts); the custom-field routes are in src/fields/routes.ts. */
export function contactsRoutes({ contacts }: { contacts: ContactsService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/',
      operationId: 'listContacts',
      summary: 'List contacts (cursor pagination, search, filters, exact phone lookup)',
      tags: TAGS,
      auth: 'contacts:read',
      query: ListContactsQuerySchema,
      responses: { 200: { description: '{data, pagination}', schema: cursorListSchema(ContactSchema) }, 400: { description: 'Invalid query, cursor or phone' }, 404: { description: 'Unknown group' } },
      handler: ({ query, principal }) =>
        contacts.list(principal.accountId, {
          limit: query.limit,
          cursor: query.cursor,
          search: query.search,
          phone: query.phone,
          disabled: query.disabled,
          group: query.group,
          sort: query.sort,
          order: query.order,
          includeCustomFields: query.include === 'customFields',
        }),
    }),
    defineRoute({
      method: 'get',
      path: '/count',
      operationId: 'countContacts',
      summary: 'Count contacts matching disabled, group and search',
      tags: TAGS,
      auth: 'contacts:read',
      query: CountContactsQuerySchema,
      responses: { 200: { description: '{success, count}', schema: z.object({ success: z.literal(true), count: z.number().int() }) }, 404: { description: 'Unknown group' } },
      handler: async ({ query, principal }) => ({ success: true, ...(await contacts.count(principal.accountId, query)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/bulk',
      operationId: 'upsertContacts',
      idempotent: true,
      summary: 'Create or upsert up to 1000 contacts',
      tags: TAGS,
      auth: 'contacts:write',
      body: BulkContactsSchema,
      responses: { 200: { description: 'Per-row outcome', schema: BulkResultSchema }, 400: { description: 'Invalid request' }, 404: { description: 'Unknown group' } },
      handler: ({ body, principal }) => contacts.bulkUpsert(principal.accountId, body, actorOf(principal)),
    }),
    defineRoute({
      method: 'patch',
      path: '/bulk/disable',
      operationId: 'disableContacts',
      summary: 'Disable contacts and cancel their scheduled messages',
      tags: TAGS,
      auth: 'contacts:write',
      body: BulkDisableSchema,
      responses: { 200: { description: 'Counts', schema: BulkDisableResultSchema }, 400: { description: 'Invalid request or NO_VALID_CONTACTS' } },
      handler: ({ body, principal }) => contacts.bulkDisable(principal.accountId, body, actorOf(principal)),
    }),
    defineRoute({
      method: 'patch',
      path: '/bulk/enable',
      operationId: 'enableContacts',
      summary: 'Enable disabled contacts',
      tags: TAGS,
      auth: 'contacts:write',
      body: BulkEnableSchema,
      responses: { 200: { description: 'Counts', schema: BulkEnableResultSchema }, 400: { description: 'Invalid request or NO_VALID_CONTACTS' } },
      handler: ({ body, principal }) => contacts.bulkEnable(principal.accountId, body, actorOf(principal)),
    }),
    defineRoute({
      method: 'post',
      path: '/',
      operationId: 'createContact',
      idempotent: true,
      summary: 'Create a contact',
      tags: TAGS,
      auth: 'contacts:write',
      body: CreateContactSchema,
      status: 201,
      responses: {
        201: { description: 'Created', schema: ContactResponse },
        400: { description: 'VALIDATION_ERROR or COUNTRY_NOT_SUPPORTED' },
        404: { description: 'Unknown group or custom field' },
        409: { description: 'A contact with this phone exists' },
      },
      handler: async ({ body, principal }) => ok(await contacts.create(principal.accountId, body, actorOf(principal))),
    }),
    defineRoute({
      method: 'get',
      path: '/:id',
      operationId: 'getContact',
      summary: 'Get a contact by id or by phone number',
      description: '{id} is a contact id (ct_…) or a phone number with country code (+ or 00 optional).',
      tags: TAGS,
      auth: 'contacts:read',
      params: IdParams,
      query: GetContactQuerySchema,
      responses: { 200: { description: 'The contact', schema: ContactResponse }, 400: { description: 'Neither an id nor a phone number' }, 404: { description: 'Not found' } },
      handler: async ({ params, query, principal }) => ok(await contacts.get(principal.accountId, params.id, { includeCustomFields: query.include === 'customFields' })),
    }),
    defineRoute({
      method: 'put',
      path: '/:id',
      operationId: 'updateContact',
      summary: 'Partially update a contact',
      tags: TAGS,
      auth: 'contacts:write',
      params: IdParams,
      body: UpdateContactSchema,
      responses: {
        200: { description: 'The updated contact (with customFields)', schema: ContactResponse },
        400: { description: 'VALIDATION_ERROR, INVALID_ID or COUNTRY_NOT_SUPPORTED' },
        404: { description: 'Unknown contact, group or custom field' },
        409: { description: 'Another contact has this phone' },
      },
      handler: async ({ params, body, principal }) => ok(await contacts.update(principal.accountId, params.id, body, actorOf(principal))),
    }),
    defineRoute({
      method: 'delete',
      path: '/:id',
      operationId: 'deleteContact',
      summary: 'Delete a contact permanently (cancels its scheduled messages, removes memberships and values)',
      tags: TAGS,
      auth: 'contacts:write',
      params: IdParams,
      responses: { 200: { description: 'Deleted', schema: DeleteResponse }, 400: { description: 'Malformed id' }, 404: { description: 'Not found' } },
      handler: async ({ params, principal }) => ok(await contacts.delete(principal.accountId, params.id)),
    }),
  ];
}
