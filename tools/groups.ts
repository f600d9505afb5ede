import { z } from 'zod';
import { GROUP_MEMBERSHIP_MAX_IDS } from '../src/groups/limits.js';
import {
  CreateGroupSchema,
  GetGroupOptionsSchema,
  GetGroupQuerySchema,
  GroupDetailSchema,
  GroupMembershipSchema,
  GroupSchema,
  ListGroupsQuerySchema,
  MembershipAddResultSchema,
  MembershipRemoveResultSchema,
  UpdateGroupSchema,
} from '../src/groups/schemas.js';
import { cursorListSchema, dataResponseSchema, ok } from '../src/platform/pagination.js';
import { idArg } from './contacts.js';
import { DELETE, READ, WRITE, WRITE_IDEMPOTENT, cursorPaging, defineTool } from './types.js';

/* Contact groups (spec §2.10, §4.5): the REST routes of src/groups/routes.ts as tools, same schemas and bodies. */

interface MembersPage {
  data: { contacts?: readonly unknown[]; contactsPagination?: { hasMore: boolean } };
}

const GroupResponse = dataResponseSchema(GroupSchema);
const GroupIdArg = idArg('group', 'grp');
const MembershipInput = z.strictObject({ groupId: GroupIdArg, ...GroupMembershipSchema.shape });

/** GetGroupOptionsSchema is the typed form of the REST query; its descriptions live on the query schema. */
const described = <T extends z.ZodType>(schema: T, from: z.ZodType): T => (from.description ? schema.describe(from.description) : schema);
const q = GetGroupQuerySchema.shape;
const o = GetGroupOptionsSchema.shape;

export const listGroups = defineTool({
  name: 'list_groups',
  title: 'List contact groups',
  description: 'Contact groups (not template groups) with their contactCount, newest first.',
  toolset: 'groups',
  permissions: ['groups:read'],
  input: z.strictObject(ListGroupsQuerySchema.shape),
  output: cursorListSchema(GroupSchema),
  annotations: READ,
  paging: () => cursorPaging(),
  uses: ['groups'],
  run: ({ groups, principal }, input) => groups.list(principal.accountId, input),
});

export const getGroup = defineTool({
  name: 'get_group',
  title: 'Get a contact group',
  description: 'One group with its contactCount; includeContacts:true adds a page of members (limit, offset).',
  toolset: 'groups',
  permissions: ['groups:read'],
  input: z.strictObject({
    id: GroupIdArg,
    includeContacts: described(o.includeContacts, q.includeContacts),
    limit: described(o.limit, q.limit),
    offset: described(o.offset, q.offset),
  }),
  output: dataResponseSchema(GroupDetailSchema),
  annotations: READ,
  // The members' page is what can grow past the result budget.
  paging: (input) =>
    input.includeContacts === true
      ? { by: 'offset', items: (r) => (r as unknown as MembersPage).data.contacts ?? [], hasMore: (r) => (r as unknown as MembersPage).data.contactsPagination?.hasMore ?? false }
      : undefined,
  uses: ['groups'],
  run: async ({ groups, principal }, { id, ...options }) => ok(await groups.get(principal.accountId, id, options)),
});

export const createGroup = defineTool({
  name: 'create_group',
  title: 'Create a contact group',
  description: 'Creates an empty contact group (names need not be unique: check list_groups first). Then add members with add_contacts_to_group.',
  toolset: 'groups',
  permissions: ['groups:write'],
  input: CreateGroupSchema,
  output: GroupResponse,
  annotations: WRITE,
  uses: ['groups'],
  run: async ({ groups, principal }, input) => ok(await groups.create(principal.accountId, input)),
});

export const updateGroup = defineTool({
  name: 'update_group',
  title: 'Update a contact group',
  description: 'Renames a group or changes its description; membership is unchanged (add_contacts_to_group, remove_contacts_from_group).',
  toolset: 'groups',
  permissions: ['groups:write'],
  // The service checks the patch with UpdateGroupSchema again, including "name and/or description".
  input: z.strictObject({ id: GroupIdArg, ...UpdateGroupSchema.shape }),
  output: GroupResponse,
  annotations: WRITE_IDEMPOTENT,
  uses: ['groups'],
  run: async ({ groups, principal }, { id, ...patch }) => ok(await groups.update(principal.accountId, id, patch)),
});

export const deleteGroup = defineTool({
  name: 'delete_group',
  title: 'Delete a contact group',
  description: 'Deletes the group only; its contacts stay. Cannot be undone: confirm with the user.',
  toolset: 'groups',
  permissions: ['groups:write'],
  input: z.strictObject({ id: GroupIdArg }),
  output: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true), removedMemberships: z.number().int() })),
  annotations: DELETE,
  uses: ['groups'],
  run: async ({ groups, principal }, input) => ok(await groups.delete(principal.accountId, input.id)),
});

export const addContactsToGroup = defineTool({
  name: 'add_contacts_to_group',
  title: 'Add contacts to a group',
  description: `Adds up to ${GROUP_MEMBERSHIP_MAX_IDS.toLocaleString('en-US')} contacts per call to a group; members are ignored, unknown ids returned in notFoundIds.`,
  toolset: 'groups',
  permissions: ['groups:write'],
  input: MembershipInput,
  output: dataResponseSchema(MembershipAddResultSchema),
  annotations: WRITE_IDEMPOTENT,
  uses: ['groups'],
  run: async ({ groups, principal }, { groupId, ...body }) => ok(await groups.addContacts(principal.accountId, groupId, body)),
});

export const removeContactsFromGroup = defineTool({
  name: 'remove_contacts_from_group',
  title: 'Remove contacts from a group',
  description: `Removes up to ${GROUP_MEMBERSHIP_MAX_IDS.toLocaleString('en-US')} contacts from a group (they are kept); audiences built from the group shrink: confirm with the user.`,
  toolset: 'groups',
  permissions: ['groups:write'],
  input: MembershipInput,
  output: dataResponseSchema(MembershipRemoveResultSchema),
  // Destructive although no contact is deleted: MCP defines destructiveHint:false as "performs only
  // additive updates", and this takes memberships away; spec §4.5 also lets the removal cascade to
  // whatever is linked to the group (campaigns, flows), which re-adding would not undo. Re-adding
  // restores the membership itself (with a new position in get_group's member order), so clients
  // should confirm it like a delete. Idempotent: a second call removes nothing more.
  annotations: DELETE,
  uses: ['groups'],
  run: async ({ groups, principal }, { groupId, ...body }) => ok(await groups.removeContacts(principal.accountId, groupId, body)),
});

export const groupsTools = [listGroups, getGroup, createGroup, updateGroup, deleteGroup, addContactsToGroup, removeContactsFromGroup];
