import { z } from 'zod';
import { CursorPaginationSchema, dataResponseSchema, ok } from '../src/platform/pagination.js';
import {
  AssignResultSchema,
  AssignTemplatesSchema,
  CreateTemplateGroupSchema,
  ListTemplateGroupsQuerySchema,
  RenameTemplateGroupSchema,
  TEMPLATE_ASSIGN_MAX_IDS,
  TemplateGroupSchema,
} from '../src/templates/schemas.js';
import { idArg } from './contacts.js';
import { DELETE, READ, WRITE, WRITE_IDEMPOTENT, cursorPaging, defineTool } from './types.js';
import { TEMPLATE_GROUP_NAME_MAX_LENGTH } from '../src/templates/limits.js';

/*
 * Template groups (spec §2.11, §4.6): folders for templates, under templates:read/write like their
 * REST routes (src/templates/routes.ts), with the same schemas and response bodies.
 */

const TemplateGroupResponse = dataResponseSchema(TemplateGroupSchema);
const TemplateGroupIdArg = idArg('template group', 'tg');

export const listTemplateGroups = defineTool({
  name: 'list_template_groups',
  title: 'List template groups',
  description: 'Template groups (folders for templates) by name with templateCount.',
  toolset: 'template_groups',
  permissions: ['templates:read'],
  input: z.strictObject(ListTemplateGroupsQuerySchema.shape),
  output: z.object({ data: z.array(TemplateGroupSchema), ungroupedTemplateCount: z.number().int(), pagination: CursorPaginationSchema }),
  annotations: READ,
  paging: () => cursorPaging(),
  uses: ['templates'],
  run: ({ templates, principal }, input) => templates.listGroups(principal.accountId, input),
});

export const createTemplateGroup = defineTool({
  name: 'create_template_group',
  title: 'Create a template group',
  description: `Creates a folder for templates (name ≤ ${TEMPLATE_GROUP_NAME_MAX_LENGTH} characters, unique). Fill it with assign_templates_to_template_group.`,
  toolset: 'template_groups',
  permissions: ['templates:write'],
  input: CreateTemplateGroupSchema,
  output: TemplateGroupResponse,
  annotations: WRITE,
  uses: ['templates'],
  run: async ({ templates, principal }, input) => ok(await templates.createGroup(principal.accountId, input)),
});

export const updateTemplateGroup = defineTool({
  name: 'update_template_group',
  title: 'Rename a template group',
  description: 'Renames a template group (unique ignoring case); its templates are unchanged.',
  toolset: 'template_groups',
  permissions: ['templates:write'],
  input: z.strictObject({ id: TemplateGroupIdArg, ...RenameTemplateGroupSchema.shape }),
  output: TemplateGroupResponse,
  annotations: WRITE_IDEMPOTENT,
  uses: ['templates'],
  run: async ({ templates, principal }, { id, ...body }) => ok(await templates.renameGroup(principal.accountId, id, body)),
});

export const deleteTemplateGroup = defineTool({
  name: 'delete_template_group',
  title: 'Delete a template group',
  description: 'Deletes a template group; its templates are kept, ungrouped. To delete templates, delete_template.',
  toolset: 'template_groups',
  permissions: ['templates:write'],
  input: z.strictObject({ id: TemplateGroupIdArg }),
  output: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true), ungroupedTemplates: z.number().int() })),
  annotations: DELETE,
  uses: ['templates'],
  run: async ({ templates, principal }, input) => ok(await templates.deleteGroup(principal.accountId, input.id)),
});

export const assignTemplatesToTemplateGroup = defineTool({
  name: 'assign_templates_to_template_group',
  title: 'Move templates into a template group',
  description: `Moves up to ${TEMPLATE_ASSIGN_MAX_IDS} templates into templateGroupId (null: out of any group), replacing their previous group.`,
  toolset: 'template_groups',
  permissions: ['templates:write'],
  input: AssignTemplatesSchema,
  output: dataResponseSchema(AssignResultSchema),
  annotations: WRITE_IDEMPOTENT,
  nextSteps: { NOT_FOUND: ['A template or the template group is not in this account: list_templates and list_template_groups show their ids.', 'A template or the template group is not in this account: use ids exactly as the account lists them.'] },
  uses: ['templates'],
  run: async ({ templates, principal }, input) => ok(await templates.assign(principal.accountId, input)),
});

export const templateGroupsTools = [listTemplateGroups, createTemplateGroup, updateTemplateGroup, deleteTemplateGroup, assignTemplatesToTemplateGroup];
