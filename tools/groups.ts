import { z } from 'zod';
import { GROUP_MEMBERSHIP_MAX_IDS } from '../src/content/limits.js';
import {
  CreateGroupSchema,
  GROUP_MEMBERS_PAGE_MAX,
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
import { DELETE, READ, WRITE, WRITE_IDEMPOTENT, defineTool } from './types.js';

/* Contact groups (spec §2.10, §4.5): the REST routes of src/groups/routes.ts as tools, same schemas and bodies. */

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
  description: 'Contact groups of the account with their contactCount, newest first. Use a group id (grp_…) with get_group, add_contacts_to_group, list_contacts (group filter) or create_contact (groups). Pass pagination.nextCursor as cursor for more. Not to be confused with template groups (list_template_groups).',
  toolset: 'groups',
  permissions: ['groups:read'],
  input: z.strictObject(ListGroupsQuerySchema.shape),
  output: cursorListSchema(GroupSchema),
  annotations: READ,
  uses: ['groups'],
  run: ({ groups, principal }, input) => groups.list(principal.accountId, input),
});

export const getGroup = defineTool({
  name: 'get_group',
  title: 'Get a contact group',
  description: `One group with its contactCount. includeContacts:true adds a page of its members (id, name, phone, email) in the order they were added: limit ≤ ${GROUP_MEMBERS_PAGE_MAX}, offset to page on; contactsPagination.hasMore tells whether more follow. list_contacts with group gives the members with full details.`,
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
  uses: ['groups'],
  run: async ({ groups, principal }, { id, ...options }) => ok(await groups.get(principal.accountId, id, options)),
});

export const createGroup = defineTool({
  name: 'create_group',
  title: 'Create a contact group',
  description: 'Creates an empty contact group (name required, description optional; names need not be unique — check list_groups first to avoid duplicates). Then add members with add_contacts_to_group, or pass the id in create_contact / bulk_create_contacts groups.',
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
  description: 'Renames a group and/or changes its description (null or "" clears it). Membership is unchanged: use add_contacts_to_group / remove_contacts_from_group for that.',
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
  description: 'Deletes the group only: its contacts stay and just lose the membership (removedMemberships tells how many). Cannot be undone — confirm with the user. To delete contacts use delete_contact.',
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
  description: `Adds up to ${GROUP_MEMBERSHIP_MAX_IDS.toLocaleString('en-US')} contacts (ct_… ids, e.g. from list_contacts or bulk_create_contacts) to a group per call; split larger sets. Existing members and repeated ids are ignored, ids that are not contacts of the account are returned in notFoundIds. Returns addedCount and the new contactCount.`,
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
  description: `Removes up to ${GROUP_MEMBERSHIP_MAX_IDS.toLocaleString('en-US')} contacts (ct_… ids) from a group; the contacts themselves are kept. Non-members are counted in notMemberCount, unknown ids returned in notFoundIds. Anything that picks contacts by this group (list_contacts with group, an audience built from it) no longer includes them — confirm with the user. Undo with add_contacts_to_group.`,
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
