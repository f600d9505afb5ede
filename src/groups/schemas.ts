import { z } from 'zod';
import { GROUP_MEMBERSHIP_MAX_IDS } from './limits.js';
import { idSchema } from '../platform/id-schema.js';
import { cursorQueryFields } from '../platform/pagination.js';

export const GROUP_NAME_MAX_LENGTH = 100;
export const GROUP_DESCRIPTION_MAX_LENGTH = 500;
/** Spec §8: group membership calls take at most 10,000 contact ids. */
export { GROUP_MEMBERSHIP_MAX_IDS };
export const GROUP_MEMBERS_PAGE_MAX = 200;

export const GroupIdSchema = idSchema('grp', 'a group');
export const ContactIdSchema = idSchema('ct', 'a contact');

const GroupName = z.string().trim().min(1).max(GROUP_NAME_MAX_LENGTH).describe('Name.');
const GroupDescription = z
  .string()
  .trim()
  .max(GROUP_DESCRIPTION_MAX_LENGTH)
  .nullable()
  .describe('null or empty clears it.');

export const CreateGroupSchema = z.strictObject({ name: GroupName, description: GroupDescription.optional() });
export type CreateGroupInput = z.input<typeof CreateGroupSchema>;

export const UpdateGroupSchema = z
  .strictObject({ name: GroupName.optional(), description: GroupDescription.optional() })
  .refine((v) => v.name !== undefined || v.description !== undefined, { message: 'Give name and/or description' });
export type UpdateGroupInput = z.input<typeof UpdateGroupSchema>;

export const GroupMembershipSchema = z.strictObject({
  contactIds: z
    .array(ContactIdSchema)
    .min(1)
    .max(GROUP_MEMBERSHIP_MAX_IDS)
    .describe('Contact ids (ct_…).'),
});
export type GroupMembershipInput = z.input<typeof GroupMembershipSchema>;

const boolQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

export const ListGroupsQuerySchema = z.object({ ...cursorQueryFields({ defaultLimit: 100, maxLimit: 200 }) });
export type ListGroupsQuery = z.output<typeof ListGroupsQuerySchema>;
export type ListGroupsOptions = z.input<typeof ListGroupsQuerySchema>;

export const GetGroupQuerySchema = z.object({
  includeContacts: boolQuery.default(false).describe('Embed a page of members.'),
  limit: z.coerce.number().int().min(1).max(GROUP_MEMBERS_PAGE_MAX).default(50).describe('Members per page.'),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0).describe('Members to skip.'),
});
export type GetGroupQuery = z.output<typeof GetGroupQuerySchema>;

/** The same options as typed values, for GroupsService.get (REST query or MCP arguments). */
export const GetGroupOptionsSchema = z.strictObject({
  includeContacts: z.boolean().default(false),
  limit: z.number().int().min(1).max(GROUP_MEMBERS_PAGE_MAX).default(50),
  offset: z.number().int().min(0).max(1_000_000).default(0),
});
export type GetGroupOptions = z.input<typeof GetGroupOptionsSchema>;

export const GroupSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  contactCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Group = z.infer<typeof GroupSchema>;

export const GroupMemberSchema = z.object({
  id: z.string(),
  name: z.string().describe('First and last name joined; empty when neither is set.'),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  phone: z.string(),
  email: z.string().nullable(),
});
export type GroupMember = z.infer<typeof GroupMemberSchema>;

export const GroupDetailSchema = GroupSchema.extend({
  contacts: z.array(GroupMemberSchema).optional().describe('With includeContacts=true: one page of members, in the order they were added.'),
  contactsPagination: z
    .object({ limit: z.number().int(), offset: z.number().int(), count: z.number().int(), total: z.number().int(), hasMore: z.boolean() })
    .optional(),
});
export type GroupDetail = z.infer<typeof GroupDetailSchema>;

export const MembershipAddResultSchema = z.object({
  groupId: z.string(),
  requestedCount: z.number().int().describe('Distinct ids in the request.'),
  addedCount: z.number().int(),
  alreadyMemberCount: z.number().int(),
  notFoundIds: z.array(z.string()).describe('Ids that are not contacts of this account; nothing was done for them.'),
  contactCount: z.number().int().describe('Members of the group after the call.'),
});
export type MembershipAddResult = z.infer<typeof MembershipAddResultSchema>;

export const MembershipRemoveResultSchema = z.object({
  groupId: z.string(),
  requestedCount: z.number().int(),
  removedCount: z.number().int(),
  notMemberCount: z.number().int(),
  notFoundIds: z.array(z.string()),
  contactCount: z.number().int(),
});
export type MembershipRemoveResult = z.infer<typeof MembershipRemoveResultSchema>;

/** A group reference as embedded in a contact. */
export const GroupRefSchema = z.object({ id: z.string(), name: z.string() });
export type GroupRef = z.infer<typeof GroupRefSchema>;
