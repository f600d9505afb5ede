import { z } from 'zod';
import { MESSAGE_TYPES } from '../content/vocabulary.js';
import { idSchema } from '../platform/id-schema.js';
import { cursorQueryFields, pageQueryFields } from '../platform/pagination.js';
import { TEMPLATE_GROUP_NAME_MAX_LENGTH } from './limits.js';

export { TEMPLATE_GROUP_NAME_MAX_LENGTH };
export const TEMPLATE_NAME_MAX_LENGTH = 100;
export const TEMPLATE_LIST_DEFAULT_LIMIT = 20;
export const TEMPLATE_LIST_MAX_LIMIT = 100;
export const TEMPLATE_SEARCH_MAX_LENGTH = 100;
/** Template ids per assign call (the spec gives none). */
export const TEMPLATE_ASSIGN_MAX_IDS = 1000;

export const TEMPLATE_TYPES = ['SMS', 'RCS'] as const;
export const TEMPLATE_CONTEXTS = ['event', 'flow', 'general'] as const;
export const TEMPLATE_SORTS = ['createdAt', 'updatedAt', 'name'] as const;

export const TemplateIdSchema = idSchema('tpl', 'a template');
export const TemplateGroupIdSchema = idSchema('tg', 'a template group');
export const TemplateTypeSchema = z.enum(TEMPLATE_TYPES).describe('Channel of the template.');
export const TemplateContextSchema = z.enum(TEMPLATE_CONTEXTS).describe('Where it is used (default general).');
export const RcsMessageTypeSchema = z.enum(MESSAGE_TYPES).describe('Required for RCS, not for SMS.');

const TemplateName = z.string().trim().min(1).max(TEMPLATE_NAME_MAX_LENGTH).describe('Name.');

/**
 * Typed loosely here (string or object) so that RCS content reaches the content validator, which
 * reports every problem with its path; the object is the same content as a send (ContentSchema).
 */
export const TemplateContentInputSchema = z
  .union([z.string(), z.record(z.string(), z.unknown())])
  .describe("SMS text, or rcs_preview's content object.");

export const CreateTemplateSchema = z.strictObject({
  name: TemplateName,
  type: TemplateTypeSchema,
  content: TemplateContentInputSchema,
  rcsMessageType: RcsMessageTypeSchema.nullable().optional().describe('Required for RCS; null or absent for SMS.'),
  context: TemplateContextSchema.default('general'),
  isDefault: z.boolean().default(false).describe('Default of its type and context.'),
  templateGroupId: TemplateGroupIdSchema.nullable().optional().describe('Template group (tg_…).'),
});
export type CreateTemplateInput = z.input<typeof CreateTemplateSchema>;

export const UpdateTemplateSchema = z
  .strictObject({
    name: TemplateName.optional(),
    type: TemplateTypeSchema.optional(),
    content: TemplateContentInputSchema.optional(),
    rcsMessageType: RcsMessageTypeSchema.nullable().optional().describe('Re-validates the content.'),
    context: TemplateContextSchema.optional(),
    isDefault: z.boolean().optional().describe('Default of its type and context.'),
    templateGroupId: TemplateGroupIdSchema.nullable().optional().describe('null ungroups it.'),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Give at least one field to change' });
export type UpdateTemplateInput = z.input<typeof UpdateTemplateSchema>;

export const ListTemplatesQuerySchema = z.object({
  ...pageQueryFields({ defaultLimit: TEMPLATE_LIST_DEFAULT_LIMIT, maxLimit: TEMPLATE_LIST_MAX_LIMIT }),
  type: TemplateTypeSchema.optional(),
  rcsMessageType: RcsMessageTypeSchema.optional(),
  templateGroupId: z.string().optional().describe('tg_… id, or none for ungrouped.'),
  context: TemplateContextSchema.optional(),
  search: z.string().trim().max(TEMPLATE_SEARCH_MAX_LENGTH).optional().describe('Part of the name.'),
  sort: z.enum(TEMPLATE_SORTS).default('createdAt').describe('Sort key.'),
  order: z.enum(['asc', 'desc']).optional().describe('Default desc for dates, asc for name.'),
});
export type ListTemplatesQuery = z.output<typeof ListTemplatesQuerySchema>;

/** Typed list options for TemplatesService.list. */
export type ListTemplatesOptions = Partial<Omit<ListTemplatesQuery, 'sort'>> & { sort?: ListTemplatesQuery['sort'] };

export const TemplateSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: TemplateTypeSchema,
  content: z.string().describe('SMS: the text. RCS: the content object as JSON text (parsedContent holds the object).'),
  parsedContent: z.record(z.string(), z.unknown()).nullable().describe('RCS: the content object; null for SMS.'),
  rcsMessageType: RcsMessageTypeSchema.nullable(),
  context: TemplateContextSchema,
  isDefault: z.boolean(),
  templateGroupId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Template = z.infer<typeof TemplateSchema>;

export const ContentIssueSchema = z.object({ path: z.string(), code: z.string(), message: z.string() });

export const TemplateWriteResponseSchema = z.object({
  success: z.literal(true),
  data: TemplateSchema,
  warnings: z.array(ContentIssueSchema).describe('Legal but probably unintended content (unknown merge field, ignored field, …).'),
});

// ---- template groups -------------------------------------------------------------------------

const TemplateGroupName = z
  .string()
  .trim()
  .min(1)
  .max(TEMPLATE_GROUP_NAME_MAX_LENGTH)
  .describe('Unique ignoring case.');

export const CreateTemplateGroupSchema = z.strictObject({ name: TemplateGroupName });
export type CreateTemplateGroupInput = z.input<typeof CreateTemplateGroupSchema>;
export const RenameTemplateGroupSchema = z.strictObject({ name: TemplateGroupName });
export type RenameTemplateGroupInput = z.input<typeof RenameTemplateGroupSchema>;

export const AssignTemplatesSchema = z.strictObject({
  templateIds: z.array(TemplateIdSchema).min(1).max(TEMPLATE_ASSIGN_MAX_IDS).describe('Template ids (tpl_…).'),
  templateGroupId: TemplateGroupIdSchema.nullable().describe('Target group; null ungroups.'),
});
export type AssignTemplatesInput = z.input<typeof AssignTemplatesSchema>;

export const ListTemplateGroupsQuerySchema = z.object({ ...cursorQueryFields({ defaultLimit: 200, maxLimit: 200 }) });
export type ListTemplateGroupsOptions = z.input<typeof ListTemplateGroupsQuerySchema>;

export const TemplateGroupSchema = z.object({
  id: z.string(),
  templateGroupId: z.string().describe('Same as id (the spec names it templateGroupId).'),
  name: z.string(),
  templateCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TemplateGroup = z.infer<typeof TemplateGroupSchema>;

export const AssignResultSchema = z.object({
  templateGroupId: z.string().nullable(),
  requestedCount: z.number().int(),
  assignedCount: z.number().int(),
  notFoundIds: z.array(z.string()).describe('Ids that are not templates of this account; nothing was done for them.'),
});
export type AssignResult = z.infer<typeof AssignResultSchema>;
