import { z } from 'zod';
import type { TemplatesService } from './service.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { CursorPaginationSchema, dataResponseSchema, ok, pageListSchema } from '../platform/pagination.js';
import {
  AssignResultSchema,
  AssignTemplatesSchema,
  CreateTemplateGroupSchema,
  CreateTemplateSchema,
  ListTemplateGroupsQuerySchema,
  ListTemplatesQuerySchema,
  RenameTemplateGroupSchema,
  TemplateGroupSchema,
  TemplateSchema,
  TemplateWriteResponseSchema,
  UpdateTemplateSchema,
} from './schemas.js';

const TAGS = ['Templates'];
const GROUP_TAGS = ['Template groups'];
const IdParams = z.object({ id: z.string() });
const GroupResponse = dataResponseSchema(TemplateGroupSchema);

/** REST adapter of spec §4.6. The /groups routes come first so that "groups" is not taken for a template id. */
export function templatesRoutes({ templates }: { templates: TemplatesService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/groups',
      operationId: 'listTemplateGroups',
      summary: 'List template groups with templateCount, plus ungroupedTemplateCount',
      tags: GROUP_TAGS,
      auth: 'templates:read',
      query: ListTemplateGroupsQuerySchema,
      responses: {
        200: {
          description: '{data, ungroupedTemplateCount, pagination}; groups by name',
          schema: z.object({ data: z.array(TemplateGroupSchema), ungroupedTemplateCount: z.number().int(), pagination: CursorPaginationSchema }),
        },
      },
      handler: ({ query, principal }) => templates.listGroups(principal.accountId, query),
    }),
    defineRoute({
      method: 'post',
      path: '/groups',
      operationId: 'createTemplateGroup',
      idempotent: true,
      summary: 'Create a template group',
      tags: GROUP_TAGS,
      auth: 'templates:write',
      body: CreateTemplateGroupSchema,
      status: 201,
      responses: { 201: { description: 'Created', schema: GroupResponse }, 400: { description: 'Invalid' }, 409: { description: 'Name already used' } },
      handler: async ({ body, principal }) => ok(await templates.createGroup(principal.accountId, body)),
    }),
    defineRoute({
      method: 'post',
      path: '/groups/assign',
      operationId: 'assignTemplatesToGroup',
      summary: 'Move templates into a group (templateGroupId null ungroups them)',
      tags: GROUP_TAGS,
      auth: 'templates:write',
      body: AssignTemplatesSchema,
      responses: { 200: { description: 'Counts; unknown ids in notFoundIds', schema: dataResponseSchema(AssignResultSchema) }, 400: { description: 'Invalid' }, 404: { description: 'Unknown template group' } },
      handler: async ({ body, principal }) => ok(await templates.assign(principal.accountId, body)),
    }),
    defineRoute({
      method: 'get',
      path: '/groups/:id',
      operationId: 'getTemplateGroup',
      summary: 'Get a template group',
      tags: GROUP_TAGS,
      auth: 'templates:read',
      params: IdParams,
      responses: { 200: { description: 'The group', schema: GroupResponse }, 400: { description: 'Malformed id' }, 404: { description: 'Not found' } },
      handler: async ({ params, principal }) => ok(await templates.getGroup(principal.accountId, params.id)),
    }),
    defineRoute({
      method: 'put',
      path: '/groups/:id',
      operationId: 'updateTemplateGroup',
      summary: 'Rename a template group',
      tags: GROUP_TAGS,
      auth: 'templates:write',
      params: IdParams,
      body: RenameTemplateGroupSchema,
      responses: { 200: { description: 'Renamed', schema: GroupResponse }, 400: { description: 'Invalid' }, 404: { description: 'Not found' }, 409: { description: 'Name already used' } },
      handler: async ({ params, body, principal }) => ok(await templates.renameGroup(principal.accountId, params.id, body)),
    }),
    defineRoute({
      method: 'delete',
      path: '/groups/:id',
      operationId: 'deleteTemplateGroup',
      summary: 'Delete a template group (its templates become ungrouped)',
      tags: GROUP_TAGS,
      auth: 'templates:write',
      params: IdParams,
      responses: {
        200: { description: 'Deleted', schema: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true), ungroupedTemplates: z.number().int() })) },
        400: { description: 'Malformed id' },
        404: { description: 'Not found' },
      },
      handler: async ({ params, principal }) => ok(await templates.deleteGroup(principal.accountId, params.id)),
    }),
    defineRoute({
      method: 'get',
      path: '/',
      operationId: 'listTemplates',
      summary: 'List templates (page-based)',
      tags: TAGS,
      auth: 'templates:read',
      query: ListTemplatesQuerySchema,
      responses: { 200: { description: '{data, pagination: {page, limit, total, totalPages}}', schema: pageListSchema(TemplateSchema) }, 400: { description: 'Invalid query' }, 404: { description: 'Unknown template group' } },
      handler: ({ query, principal }) => templates.list(principal.accountId, query),
    }),
    defineRoute({
      method: 'post',
      path: '/',
      operationId: 'createTemplate',
      idempotent: true,
      summary: 'Create a template (SMS text or RCS content + rcsMessageType)',
      tags: TAGS,
      auth: 'templates:write',
      body: CreateTemplateSchema,
      status: 201,
      responses: { 201: { description: 'Created, with content warnings', schema: TemplateWriteResponseSchema }, 400: { description: 'Invalid (validator details)' }, 404: { description: 'Unknown template group' } },
      handler: async ({ body, principal }) => {
        const { template, warnings } = await templates.create(principal.accountId, body);
        return { success: true, data: template, warnings };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:id',
      operationId: 'getTemplate',
      summary: 'Get a template (RCS with parsedContent)',
      tags: TAGS,
      auth: 'templates:read',
      params: IdParams,
      responses: { 200: { description: 'The template', schema: dataResponseSchema(TemplateSchema) }, 400: { description: 'Malformed id' }, 404: { description: 'Not found' } },
      handler: async ({ params, principal }) => ok(await templates.get(principal.accountId, params.id)),
    }),
    defineRoute({
      method: 'put',
      path: '/:id',
      operationId: 'updateTemplate',
      summary: 'Partially update a template',
      tags: TAGS,
      auth: 'templates:write',
      params: IdParams,
      body: UpdateTemplateSchema,
      responses: { 200: { description: 'Updated, with content warnings', schema: TemplateWriteResponseSchema }, 400: { description: 'Invalid' }, 404: { description: 'Unknown template or group' } },
      handler: async ({ params, body, principal }) => {
        const { template, warnings } = await templates.update(principal.accountId, params.id, body);
        return { success: true, data: template, warnings };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/:id',
      operationId: 'deleteTemplate',
      summary: 'Delete a template permanently',
      tags: TAGS,
      auth: 'templates:write',
      params: IdParams,
      responses: { 200: { description: 'Deleted', schema: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true) })) }, 400: { description: 'Malformed id' }, 404: { description: 'Not found' } },
      handler: async ({ params, principal }) => ok(await templates.delete(principal.accountId, params.id)),
    }),
  ];
}
