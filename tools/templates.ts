import { z } from 'zod';
import { dataResponseSchema, ok, pageListSchema } from '../src/platform/pagination.js';
import type { TemplateWriteResult } from '../src/templates/service.js';
import {
  CreateTemplateSchema,
  ListTemplatesQuerySchema,
  TemplateSchema,
  TemplateWriteResponseSchema,
  UpdateTemplateSchema,
} from '../src/templates/schemas.js';
import { idArg } from './contacts.js';
import { DELETE, READ, WRITE, WRITE_IDEMPOTENT, defineTool, pagePaging } from './types.js';

/* Templates (spec §2.11, §4.6): the REST routes of src/templates/routes.ts as tools, same schemas and bodies. */

const TemplateIdArg = idArg('template', 'tpl');

/** The body REST answers on create and update: the template plus the content warnings. */
const written = ({ template, warnings }: TemplateWriteResult) => ({ success: true as const, data: template, warnings });

export const listTemplates = defineTool({
  name: 'list_templates',
  title: 'List templates',
  description: 'Saved message templates, page-based, with filters. Send one with rcs_preview { templateId, sendernameId, phoneNumber }.',
  toolset: 'templates',
  permissions: ['templates:read'],
  input: z.strictObject(ListTemplatesQuerySchema.shape),
  output: pageListSchema(TemplateSchema),
  annotations: READ,
  paging: () => pagePaging(),
  uses: ['templates'],
  run: ({ templates, principal }, input) => templates.list(principal.accountId, input),
});

export const getTemplate = defineTool({
  name: 'get_template',
  title: 'Get a template',
  description: 'One template by id (tpl_…), with its content (RCS: parsedContent holds the object).',
  toolset: 'templates',
  permissions: ['templates:read'],
  input: z.strictObject({ id: TemplateIdArg }),
  output: dataResponseSchema(TemplateSchema),
  annotations: READ,
  uses: ['templates'],
  run: async ({ templates, principal }, input) => ok(await templates.get(principal.accountId, input.id)),
});

export const createTemplate = defineTool({
  name: 'create_template',
  title: 'Create a template',
  description: 'Saves a reusable SMS or RCS message; RCS content is checked as rcs_validate does. Unknown merge placeholders come back in warnings.',
  toolset: 'templates',
  permissions: ['templates:write'],
  input: CreateTemplateSchema,
  output: TemplateWriteResponseSchema,
  annotations: WRITE,
  nextSteps: {
    VALIDATION_ERROR: ['Fix the fields named in details (each has a path and a reason), then call again; for RCS content, rcs_validate names every problem in it at once.', 'Fix the fields named in details (each has a path and a reason), then call again.'],
    NOT_FOUND: ['templateGroupId is not in this account: list_template_groups shows the template groups and their ids.', 'templateGroupId is not in this account: use an id (tg_…) exactly as the account lists it, or leave it out.'],
  },
  uses: ['templates'],
  run: async ({ templates, principal }, input) => written(await templates.create(principal.accountId, input)),
});

export const updateTemplate = defineTool({
  name: 'update_template',
  title: 'Update a template',
  description: 'Changes only the fields given; content, type and rcsMessageType are validated as in create_template.',
  toolset: 'templates',
  permissions: ['templates:write'],
  // The service checks the patch with UpdateTemplateSchema again, including "at least one field".
  input: z.strictObject({ id: TemplateIdArg, ...UpdateTemplateSchema.shape }),
  output: TemplateWriteResponseSchema,
  annotations: WRITE_IDEMPOTENT,
  nextSteps: {
    VALIDATION_ERROR: ['Fix the fields named in details (each has a path and a reason), then call again; for RCS content, rcs_validate names every problem in it at once.', 'Fix the fields named in details (each has a path and a reason), then call again.'],
    NOT_FOUND: ['The template or templateGroupId is not in this account: list_templates and list_template_groups show their ids.', 'The template or templateGroupId is not in this account: use ids exactly as the account lists them.'],
  },
  uses: ['templates'],
  run: async ({ templates, principal }, { id, ...patch }) => written(await templates.update(principal.accountId, id, patch)),
});

export const deleteTemplate = defineTool({
  name: 'delete_template',
  title: 'Delete a template',
  description: 'Deletes a template; sent messages are not affected. Cannot be undone: confirm with the user.',
  toolset: 'templates',
  permissions: ['templates:write'],
  input: z.strictObject({ id: TemplateIdArg }),
  output: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true) })),
  annotations: DELETE,
  uses: ['templates'],
  run: async ({ templates, principal }, input) => ok(await templates.delete(principal.accountId, input.id)),
});

export const templatesTools = [listTemplates, getTemplate, createTemplate, updateTemplate, deleteTemplate];
