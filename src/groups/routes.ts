import { z } from 'zod';
import type { GroupsService } from './service.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { cursorListSchema, dataResponseSchema, ok } from '../platform/pagination.js';
import {
  CreateGroupSchema,
  GetGroupQuerySchema,
  GroupDetailSchema,
  GroupMembershipSchema,
  GroupSchema,
  ListGroupsQuerySchema,
  MembershipAddResultSchema,
  MembershipRemoveResultSchema,
  UpdateGroupSchema,
} from './schemas.js';

const TAGS = ['Groups'];
const IdParams = z.object({ id: z.string() });
const GroupResponse = dataResponseSchema(GroupSchema);

/** REST adapter of spec §4.5. */
export function groupsRoutes({ groups }: { groups: GroupsService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/',
      operationId: 'listGroups',
      summary: 'List groups with contact counts, newest first',
      tags: TAGS,
      auth: 'groups:read',
      query: ListGroupsQuerySchema,
      responses: { 200: { description: '{data, pagination}', schema: cursorListSchema(GroupSchema) } },
      handler: ({ query, principal }) => groups.list(principal.accountId, query),
    }),
    defineRoute({
      method: 'post',
      path: '/',
      operationId: 'createGroup',
      idempotent: true,
      summary: 'Create a group',
      tags: TAGS,
      auth: 'groups:write',
      body: CreateGroupSchema,
      status: 201,
      responses: { 201: { description: 'Created', schema: GroupResponse }, 400: { description: 'Invalid' } },
      handler: async ({ body, principal }) => ok(await groups.create(principal.accountId, body)),
    }),
    defineRoute({
      method: 'get',
      path: '/:id',
      operationId: 'getGroup',
      summary: 'Get a group, optionally with a page of its contacts',
      tags: TAGS,
      auth: 'groups:read',
      params: IdParams,
      query: GetGroupQuerySchema,
      responses: { 200: { description: 'The group', schema: dataResponseSchema(GroupDetailSchema) }, 400: { description: 'Malformed id or query' }, 404: { description: 'Not found' } },
      handler: async ({ params, query, principal }) => ok(await groups.get(principal.accountId, params.id, query)),
    }),
    defineRoute({
      method: 'put',
      path: '/:id',
      operationId: 'updateGroup',
      summary: 'Update name and/or description (membership unchanged)',
      tags: TAGS,
      auth: 'groups:write',
      params: IdParams,
      body: UpdateGroupSchema,
      responses: { 200: { description: 'Updated', schema: GroupResponse }, 400: { description: 'Invalid' }, 404: { description: 'Not found' } },
      handler: async ({ params, body, principal }) => ok(await groups.update(principal.accountId, params.id, body)),
    }),
    defineRoute({
      method: 'delete',
      path: '/:id',
      operationId: 'deleteGroup',
      summary: 'Delete a group (its contacts remain)',
      tags: TAGS,
      auth: 'groups:write',
      params: IdParams,
      responses: {
        200: { description: 'Deleted', schema: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true), removedMemberships: z.number().int() })) },
        400: { description: 'Malformed id' },
        404: { description: 'Not found' },
      },
      handler: async ({ params, principal }) => ok(await groups.delete(principal.accountId, params.id)),
    }),
    defineRoute({
      method: 'post',
      path: '/:id/contacts',
      operationId: 'addGroupContacts',
      summary: 'Add up to 10,000 contacts to a group',
      tags: TAGS,
      auth: 'groups:write',
      params: IdParams,
      body: GroupMembershipSchema,
      responses: { 200: { description: 'Counts; unknown ids in notFoundIds', schema: dataResponseSchema(MembershipAddResultSchema) }, 400: { description: 'Invalid' }, 404: { description: 'Unknown group' } },
      handler: async ({ params, body, principal }) => ok(await groups.addContacts(principal.accountId, params.id, body)),
    }),
    defineRoute({
      method: 'delete',
      path: '/:id/contacts',
      operationId: 'removeGroupContacts',
      summary: 'Remove up to 10,000 contacts from a group (contacts are not deleted)',
      tags: TAGS,
      auth: 'groups:write',
      params: IdParams,
      body: GroupMembershipSchema,
      responses: { 200: { description: 'Counts; unknown ids in notFoundIds', schema: dataResponseSchema(MembershipRemoveResultSchema) }, 400: { description: 'Invalid' }, 404: { description: 'Unknown group' } },
      handler: async ({ params, body, principal }) => ok(await groups.removeContacts(principal.accountId, params.id, body)),
    }),
  ];
}
