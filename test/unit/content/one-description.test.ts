import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ContentSchema,
  RcsMessageSchema,
  SmsFallbackDraftSchema,
  SmsFallbackSchema,
  contentWarnings,
  validateContent,
} from '../../../src/content/index.js';
import { parseSendBody } from '../../../src/messaging/prepare.js';
import { SendBatchRequestSchema, SendMessageRequestSchema } from '../../../src/messaging/schemas.js';
import { AppError } from '../../../src/platform/errors.js';
import { actionOf, card, carousel, chipAction, media, reply, richCard, type Json } from './fixtures.js';

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; items?: JsonSchema; additionalProperties?: unknown; description?: string; $ref?: string; $defs?: Record<string, JsonSchema>; anyOf?: JsonSchema[] };

/** Every object in a JSON Schema tree, with its path. */
function objects(s: JsonSchema, path: string, out: Array<[string, JsonSchema]> = []): Array<[string, JsonSchema]> {
  if (s.type === 'object') out.push([path, s]);
  for (const [k, v] of Object.entries(s.properties ?? {})) objects(v, `${path}.${k}`, out);
  if (s.items) objects(s.items, `${path}[]`, out);
  for (const [k, v] of Object.entries(s.$defs ?? {})) objects(v, `$defs.${k}`, out);
  for (const v of s.anyOf ?? []) objects(v, path, out);
  return out;
}

const toolInput = z.strictObject({ messageType: RcsMessageSchema.shape.messageType, content: ContentSchema, smsFallback: SmsFallbackSchema.optional() });

describe('content JSON Schema (tools and OpenAPI)', () => {
  const json = z.toJSONSchema(toolInput, { io: 'input' }) as JsonSchema;

  it('names the reusable parts once, under $defs', () => {
    expect(Object.keys(json.$defs ?? {}).sort()).toEqual(
      expect.arrayContaining(['Action', 'CalendarAction', 'CarouselCard', 'ContentInfo', 'DialAction', 'Media', 'OpenUrlAction', 'SmsFallback', 'SuggestedReply', 'Suggestion']),
    );
    const text = JSON.stringify(json);
    // The action's properties appear once although card buttons, carousel cards and chips use it.
    expect(text.split('"openUrlInWebviewAction"').length - 1).toBe(1);
  });

  it('every content object rejects unknown keys and every property is described', () => {
    const found = objects(json, '$');
    expect(found.length).toBeGreaterThan(15);
    for (const [path, o] of found) {
      expect(o.additionalProperties, path).toBe(false);
      for (const [key, prop] of Object.entries(o.properties ?? {})) {
        // A $ref'd part carries its description in $defs.
        const described = typeof prop.description === 'string' && prop.description.length > 5;
        const ref = prop.$ref ?? prop.items?.$ref;
        const def = ref ? json.$defs?.[ref.replace('#/$defs/', '')] : undefined;
        expect(described || (typeof def?.description === 'string' && def.description.length > 5), `${path}.${key}`).toBe(true);
      }
    }
  });

  it('stays small enough to repeat on the tools that need it', () => {
    expect(JSON.stringify(json).length).toBeLessThan(20_000);
  });
});

describe('unknown keys are refused in every content object, at the key', () => {
  const withExtra = (o: Json): Json => ({ ...o, extra: 1 });
  it.each([
    ['content.extra', 'text', { text: 'hi', extra: 1 }],
    ['content.media.extra', 'richCard', richCard({ media: withExtra(media()) })],
    ['content.media.contentInfo.extra', 'richCard', richCard({ media: media({ contentInfo: { fileUrl: 'https://cdn.example.com/a.jpg', extra: 1 } }) })],
    ['content.cardActions[0].extra', 'richCard', richCard({ cardActions: [withExtra(actionOf('dial'))] })],
    ['content.cardActions[0].dialAction.extra', 'richCard', richCard({ cardActions: [actionOf('dial', { dialAction: { phoneNumber: '+4930123456', extra: 1 } })] })],
    ['content.cardActions[0].viewLocationAction.latLong.extra', 'richCard', richCard({ cardActions: [actionOf('viewLocation', { viewLocationAction: { latLong: { latitude: 1, longitude: 2, extra: 1 } } })] })],
    ['content.suggestions[0].extra', 'text', { text: 'hi', suggestions: [withExtra(reply())] }],
    ['content.suggestions[0].reply.extra', 'text', { text: 'hi', suggestions: [{ reply: { text: 'a', extra: 1 } }] }],
    ['content.cardContents[1].extra', 'carousel', { cardContents: [card(), withExtra(card())] }],
  ] as const)('%s', (path, type, content) => {
    expect(validateContent(type, content).errors).toContainEqual(expect.objectContaining({ path, code: 'unknown_field' }));
  });
  it('smsFallback too', () => {
    expect(validateContent('text', { text: 'hi' }, { smsFallback: { message: 'x', extra: 1 } }).errors).toEqual([
      expect.objectContaining({ path: 'smsFallback.extra', code: 'unknown_field' }),
    ]);
  });
});

describe('one description: /validate and the send door report the same content problems', () => {
  const send = (messageType: string, content: unknown, more: Json = {}): AppError => {
    try {
      parseSendBody(SendMessageRequestSchema, { phoneNumber: '+4915112345678', sendernameId: 'snd_x', messageType, content, ...more });
    } catch (err) {
      if (err instanceof AppError) return err;
      throw err;
    }
    throw new Error('parsed');
  };
  const pairs = (issues: ReadonlyArray<{ path: string; code: string }>) => issues.map((i) => `${i.path} ${i.code}`).sort();

  it.each([
    ['text', { text: '' }],
    ['text', { text: 'x'.repeat(3073), suggestions: Array.from({ length: 12 }, () => reply()) }],
    ['textBasic', { text: 'x'.repeat(161), suggestions: [reply()] }],
    ['richCard', { cardActions: [{ text: 'x'.repeat(26), type: 'createCalendarEvent' }], media: { contentInfo: { fileUrl: 'http://x.example/a.jpg' } } }],
    ['carousel', { cardContents: [card()] }],
    ['image', { url: 'https://cdn.example.com/a.png', media: media() }],
    ['file', { media: { height: 'TALL' } }],
    ['text', { text: 'hi', suggestions: [chipAction('postback'), { reply: { text: 'a' }, action: actionOf('dial') }] }],
    ['richCard', richCard({ cardActions: [actionOf('openUrl', { openUrlAction: { url: '{{unsubscribe_link}}' } })] })],
    ['nope', { text: 'x' }],
  ] as const)('%s #%#', (type, content) => {
    const result = validateContent(type, content);
    expect(result.valid).toBe(false);
    const err = send(type, content);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(pairs(err.details ?? [])).toEqual(pairs(result.errors));
  });

  it('a send needs the fallback sender that /validate does not', () => {
    expect(validateContent('text', { text: 'hi' }, { smsFallback: { message: 'x' } }).valid).toBe(true);
    expect(pairs(send('text', { text: 'hi' }, { smsFallback: { message: 'x' } }).details ?? [])).toEqual(['smsFallback.sendernameId required']);
    expect(SmsFallbackDraftSchema.safeParse({ message: 'x' }).success).toBe(true);
  });

  it('non-content fields keep the platform codes, content fields the content codes', () => {
    const err = send('text', { text: 'hi', suggestions: Array.from({ length: 12 }, () => reply()) }, { campaignName: 'c'.repeat(101) });
    expect(pairs(err.details ?? [])).toEqual(['campaignName too_long', 'content.suggestions too_many']);
  });

  it('returns the typed body with defaults, which the services take as it is', () => {
    const body = parseSendBody(SendBatchRequestSchema, { phoneNumbers: ['+4915112345678'], sendernameId: 'snd_x', messageType: 'carousel', content: carousel(2) });
    expect(body).toMatchObject({ batchSize: 100, delayMs: 50, skipDisabled: true, skipContactCreation: false, messageType: 'carousel' });
    expect(body.content.cardContents).toHaveLength(2);
  });

  it('refuses a body that is not an object', () => {
    expect(() => parseSendBody(SendMessageRequestSchema, [])).toThrow(AppError);
  });
});

describe('warnings come from the content, beside the schema', () => {
  it('are the same whether or not the content is valid elsewhere', () => {
    const content = richCard({ title: 'Hi {{nope}}', media: { contentInfo: { fileUrl: 'https://cdn.example.com/a.jpg' } } });
    const alone = contentWarnings({ messageType: 'richCard', content });
    expect(validateContent('richCard', content).warnings).toEqual(alone);
    expect(alone.map((w) => `${w.path} ${w.code}`)).toEqual(['content.title unknown_merge_field', 'content.media.height media_height_missing']);
  });
  it('know the account fields they are given', () => {
    expect(contentWarnings({ messageType: 'text', content: { text: 'Hi {{tier}}' }, knownMergeFields: new Set(['tier']) })).toEqual([]);
  });
});
