import { z } from 'zod';
import type { FormsService } from './service.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { cursorListSchema, dataResponseSchema, ok } from '../platform/pagination.js';
import { CreateFormSchema, FormSchema, ListFormsQuerySchema, ListSubmissionsQuerySchema, SubmissionSchema, UpdateFormSchema } from './schemas.js';

const TAGS = ['Forms'];
const IdParams = z.object({ id: z.string() });
const notFound = { description: 'Unknown form (or another account’s)' };

/**
 * REST adapter of opt-in forms (spec §3.6) at /api/v1/forms. Reading takes contacts:read (forms
 * hold contact data); creating, changing and deleting take forms:manage, since a form publishes a
 * public page that sends confirmation SMS and can forward submissions to a webhook URL.
 */
export function formsRoutes({ forms }: { forms: FormsService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/',
      operationId: 'listForms',
      summary: 'List opt-in forms, newest first',
      tags: TAGS,
      auth: 'contacts:read',
      query: ListFormsQuerySchema,
      responses: { 200: { description: '{data, pagination}', schema: cursorListSchema(FormSchema) } },
      handler: ({ query, principal }) => forms.list(principal.accountId, query),
    }),
    defineRoute({
      method: 'post',
      path: '/',
      operationId: 'createForm',
      idempotent: true,
      summary: 'Create an opt-in form (public page /f/<slug>)',
      tags: TAGS,
      auth: 'forms:manage',
      approvalBound: 'automated-send',
      body: CreateFormSchema,
      status: 201,
      responses: {
        201: { description: 'Created', schema: dataResponseSchema(FormSchema) },
        400: { description: 'Invalid (e.g. double opt-in without confirmation sender, unusable webhookUrl)' },
        404: { description: 'Unknown custom field or group' },
        409: { description: 'Slug taken' },
      },
      handler: async ({ body, principal }) => ok(await forms.create(principal.accountId, body)),
    }),
    defineRoute({
      method: 'get',
      path: '/:id',
      operationId: 'getForm',
      summary: 'Get a form',
      tags: TAGS,
      auth: 'contacts:read',
      params: IdParams,
      responses: { 200: { description: 'The form', schema: dataResponseSchema(FormSchema) }, 400: { description: 'Malformed id' }, 404: notFound },
      handler: async ({ params, principal }) => ok(await forms.get(principal.accountId, params.id)),
    }),
    defineRoute({
      method: 'put',
      path: '/:id',
      operationId: 'updateForm',
      summary: 'Update a form (partial)',
      tags: TAGS,
      auth: 'forms:manage',
      approvalBound: 'automated-send',
      params: IdParams,
      body: UpdateFormSchema,
      responses: { 200: { description: 'Updated', schema: dataResponseSchema(FormSchema) }, 400: { description: 'Invalid' }, 404: notFound, 409: { description: 'Slug taken' } },
      handler: async ({ params, body, principal }) => ok(await forms.update(principal.accountId, params.id, body)),
    }),
    defineRoute({
      method: 'delete',
      path: '/:id',
      operationId: 'deleteForm',
      summary: 'Delete a form and its submissions (contacts stay)',
      tags: TAGS,
      auth: 'forms:manage',
      params: IdParams,
      responses: { 200: { description: 'Deleted', schema: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true) })) }, 400: { description: 'Malformed id' }, 404: notFound },
      handler: async ({ params, principal }) => ok(await forms.delete(principal.accountId, params.id)),
    }),
    defineRoute({
      method: 'get',
      path: '/:id/submissions',
      operationId: 'listFormSubmissions',
      summary: 'Submissions of a form, newest first',
      tags: TAGS,
      auth: 'contacts:read',
      params: IdParams,
      query: ListSubmissionsQuerySchema,
      responses: { 200: { description: '{data, pagination}', schema: cursorListSchema(SubmissionSchema) }, 400: { description: 'Bad query' }, 404: notFound },
      handler: ({ params, query, principal }) => forms.submissions(principal.accountId, params.id, query),
    }),
  ];
}
