import { z } from 'zod';
import { SMS_MAX_LENGTH, TEMPLATE_GROUP_NAME_MAX_LENGTH } from '../content/limits.js';
import { MESSAGE_TYPES } from '../content/vocabulary.js';
import { idSchema } from '../platform/id-schema.js';
import { cursorQueryFields, pageQueryFields } from '../platform/pagination.js';

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
export const TemplateTypeSchema = z.enum(TEMPLATE_TYPES).describe('SMS (content is a string) or RCS (content is an object plus rcsMessageType).');
export const TemplateContextSchema = z.enum(TEMPLATE_CONTEXTS).describe('Where the template is used: event, flow or general (default general).');
export const RcsMessageTypeSchema = z.enum(MESSAGE_TYPES).describe('RCS message type of the content; required for RCS templates, not allowed for SMS.');

const TemplateName = z.string().trim().min(1).max(TEMPLATE_NAME_MAX_LENGTH).describe(`1 to ${TEMPLATE_NAME_MAX_LENGTH} characters.`);

/**
 * Typed loosely here (string or object) so that RCS content reaches the content validator, which
 * reports every problem with its path; the object is the same content as a send (ContentSchema).
 */
export const TemplateContentInputSchema = z
  .union([z.string(), z.record(z.string(), z.unknown())])
  .describe(`SMS: the text, 1 to ${SMS_MAX_LENGTH} characters. RCS: the content object of a send (validated for rcsMessageType). Merge placeholders allowed.`);

export const CreateTemplateSchema = z.strictObject({
  name: TemplateName,
  type: TemplateTypeSchema,
  content: TemplateContentInputSchema,
  rcsMessageType: RcsMessageTypeSchema.nullable().optional().describe('RCS message type of the content; required for RCS templates, not allowed (or null) for SMS.'),
  context: TemplateContextSchema.default('general'),
  isDefault: z.boolean().default(false).describe('true makes this the default template of its type and context; the previous default loses the flag.'),
  templateGroupId: TemplateGroupIdSchema.nullable().optional().describe('A template group (tg_…) to file it in; omit or null for none.'),
});
export type CreateTemplateInput = z.input<typeof CreateTemplateSchema>;

export const UpdateTemplateSchema = z
  .strictObject({
    name: TemplateName.optional(),
    type: TemplateTypeSchema.optional(),
    content: TemplateContentInputSchema.optional(),
    rcsMessageType: RcsMessageTypeSchema.nullable().optional().describe('Changing it re-validates the (new or stored) content for the new type.'),
    context: TemplateContextSchema.optional(),
    isDefault: z.boolean().optional().describe('true makes this the default template of its type and context; the previous default loses the flag.'),
    templateGroupId: TemplateGroupIdSchema.nullable().optional().describe('null removes the template from its group.'),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Give at least one field to change' });
export type UpdateTemplateInput = z.input<typeof UpdateTemplateSchema>;

export const ListTemplatesQuerySchema = z.object({
  ...pageQueryFields({ defaultLimit: TEMPLATE_LIST_DEFAULT_LIMIT, maxLimit: TEMPLATE_LIST_MAX_LIMIT }),
  type: TemplateTypeSchema.optional(),
  rcsMessageType: RcsMessageTypeSchema.optional(),
  templateGroupId: z.string().optional().describe('A template group id, or none for templates in no group.'),
  context: TemplateContextSchema.optional(),
  search: z.string().trim().max(TEMPLATE_SEARCH_MAX_LENGTH).optional().describe('Case-insensitive substring of the name.'),
  sort: z.enum(TEMPLATE_SORTS).default('createdAt').describe('createdAt (default), updatedAt or name.'),
  order: z.enum(['asc', 'desc']).optional().describe('Default desc for createdAt/updatedAt, asc for name.'),
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
  .describe(`1 to ${TEMPLATE_GROUP_NAME_MAX_LENGTH} characters, unique per account ignoring case.`);

export const CreateTemplateGroupSchema = z.strictObject({ name: TemplateGroupName });
export type CreateTemplateGroupInput = z.input<typeof CreateTemplateGroupSchema>;
export const RenameTemplateGroupSchema = z.strictObject({ name: TemplateGroupName });
export type RenameTemplateGroupInput = z.input<typeof RenameTemplateGroupSchema>;

export const AssignTemplatesSchema = z.strictObject({
  templateIds: z.array(TemplateIdSchema).min(1).max(TEMPLATE_ASSIGN_MAX_IDS).describe(`1 to ${TEMPLATE_ASSIGN_MAX_IDS} template ids.`),
  templateGroupId: TemplateGroupIdSchema.nullable().describe('The group to move the templates into; null ungroups them.'),
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
