import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as limits from '../../../src/content/limits.js';
import { buttonGuidelines, validationLimits } from '../../../src/content/limits.js';
import {
  ActionSchema,
  CONTENT_SCHEMAS,
  ContentSchema,
  SmsFallbackSchema,
  SuggestionSchema,
} from '../../../src/content/schemas.js';
import { ACTION_TYPES, MESSAGE_TYPES } from '../../../src/content/vocabulary.js';
import { actionOf, carousel, richCard } from './fixtures.js';

describe('zod schemas', () => {
  it('content is one object schema with only optional fields, no top-level union', () => {
    const json = z.toJSONSchema(ContentSchema) as Record<string, unknown>;
    expect(json.type).toBe('object');
    expect(json).not.toHaveProperty('oneOf');
    expect(json).not.toHaveProperty('anyOf');
    expect(json.required ?? []).toEqual([]);
    expect(json.additionalProperties).toBe(false);
    expect(typeof json.description).toBe('string');
  });

  it('every schema converts to JSON Schema with descriptions and limits', () => {
    for (const schema of [ContentSchema, ActionSchema, SuggestionSchema, SmsFallbackSchema, ...Object.values(CONTENT_SCHEMAS)]) {
      expect(() => z.toJSONSchema(schema)).not.toThrow();
    }
    const action = z.toJSONSchema(ActionSchema) as { properties: Record<string, { maxLength?: number; enum?: string[] }> };
    expect(action.properties.text?.maxLength).toBe(25);
    expect(action.properties.type?.enum).toEqual([...ACTION_TYPES]);
  });

  it('has a schema per message type', () => {
    expect(Object.keys(CONTENT_SCHEMAS).sort()).toEqual([...MESSAGE_TYPES].sort());
  });

  it('accepts content the validator accepts', () => {
    expect(ContentSchema.safeParse(richCard({ cardActions: [actionOf('openUrl'), actionOf('dial'), actionOf('addToCalendar')] })).success).toBe(true);
    expect(ContentSchema.safeParse(carousel(3)).success).toBe(true);
    expect(CONTENT_SCHEMAS.carousel.safeParse(carousel(1)).success).toBe(false);
    expect(CONTENT_SCHEMAS.textBasic.safeParse({ text: 'x'.repeat(161) }).success).toBe(false);
  });
});

describe('limits', () => {
  it('uses the field-definition numbers where §8 quotes two', () => {
    expect(limits.TEXT_MAX_LENGTH).toBe(3072);
    expect(limits.CARD_ACTIONS_MAX).toBe(4);
    expect(limits.SUGGESTIONS_MAX).toBe(11);
    expect(limits.MEDIA_MAX_FILE_SIZE_BYTES).toBe(104857600);
    expect(limits.SMS_MAX_LENGTH).toBe(1530);
  });

  it('validationLimits has exactly the /status shape', () => {
    expect(validationLimits()).toEqual({
      cardActions: { maxPerCard: 4, textMaxLength: 25 },
      chipSuggestions: { total: 11, textMaxLength: 25 },
      postbackData: { maxLength: 2048 },
      text: { maxLength: 3072 },
      richCard: { titleMaxLength: 200, descriptionMaxLength: 2000 },
      carousel: { minCards: 2, maxCards: 10 },
      media: {
        maxFileSizeBytes: 104857600,
        supportedFormats: ['image/jpeg', 'image/jpg', 'image/png', 'image/gif', 'video/h263', 'video/mp4', 'video/mpeg', 'video/webm'],
      },
    });
  });

  it('buttonGuidelines encodes the placement rules', () => {
    const g = buttonGuidelines();
    expect(g.placement.cardButtonOnly).toEqual(['postback', 'addToCalendar']);
    expect(g.placement.chipOnly).toEqual(['createCalendarEvent', 'unsubscribe']);
    expect(g.placement.both.sort()).toEqual(
      ['openUrl', 'openUrlInWebview', 'dial', 'viewLocation', 'shareLocation', 'unsubscribeLink'].sort(),
    );
    expect(g.actionTypes).toHaveLength(10);
    expect(g.actionTypes.find((a) => a.type === 'dial')).toMatchObject({ onChip: true, onCardButton: true, payloadField: 'dialAction' });
    expect(g.limits).toEqual({ cardActionsPerCard: 4, chipSuggestionsTotal: 11, textMaxLength: 25, postbackDataMaxLength: 2048, urlMaxLength: 2000 });
    expect(g.rules.join(' ')).toContain('At most 4 card buttons');
  });
});
