import { z } from 'zod';
import type { ButtonGuidelines, ValidationLimits } from './limits.js';
import { ACTION_PAYLOAD_FIELDS, ACTION_TYPES, MEDIA_CONTENT_TYPES } from './vocabulary.js';

/**
 * Response schemas of the limits answers (GET /status's validationLimits, GET /button-guidelines)
 * for /openapi.json. Typed against the interfaces in limits.ts, so the two cannot drift apart.
 */
const ActionTypeSchema = z.enum(ACTION_TYPES);

export const ValidationLimitsSchema: z.ZodType<ValidationLimits> = z.object({
  cardActions: z.object({ maxPerCard: z.number().int(), textMaxLength: z.number().int() }),
  chipSuggestions: z.object({ total: z.number().int(), textMaxLength: z.number().int() }),
  postbackData: z.object({ maxLength: z.number().int() }),
  text: z.object({ maxLength: z.number().int() }),
  richCard: z.object({ titleMaxLength: z.number().int(), descriptionMaxLength: z.number().int() }),
  carousel: z.object({ minCards: z.number().int(), maxCards: z.number().int() }),
  media: z.object({ maxFileSizeBytes: z.number().int(), supportedFormats: z.array(z.enum(MEDIA_CONTENT_TYPES)) }),
});

export const ButtonGuidelinesSchema: z.ZodType<ButtonGuidelines> = z.object({
  limits: z.object({
    cardActionsPerCard: z.number().int(),
    chipSuggestionsTotal: z.number().int(),
    textMaxLength: z.number().int(),
    postbackDataMaxLength: z.number().int(),
    urlMaxLength: z.number().int(),
  }),
  placement: z.object({ chipOnly: z.array(ActionTypeSchema), cardButtonOnly: z.array(ActionTypeSchema), both: z.array(ActionTypeSchema) }),
  actionTypes: z.array(
    z.object({
      type: ActionTypeSchema,
      onChip: z.boolean(),
      onCardButton: z.boolean(),
      payloadField: z.enum(ACTION_PAYLOAD_FIELDS).nullable().describe('The payload object this type carries, or null when it needs none'),
      requiredFields: z.array(z.string()).describe('Dotted paths inside the action that must be present'),
      description: z.string(),
    }),
  ),
  rules: z.array(z.string()),
});
