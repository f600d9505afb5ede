import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SchemaComponents } from '../../src/platform/openapi-components.js';

describe('SchemaComponents: named zod schemas become components.schemas', () => {
  const Media = z.object({ url: z.string() }).meta({ id: 'Media' });
  const Card = z.object({ media: Media, extra: Media.optional() }).meta({ id: 'Card' });

  it('moves $defs to the components and points the refs there', () => {
    const c = new SchemaComponents();
    const js = c.of(z.object({ card: Card }), 'input');
    expect(js).toEqual({ type: 'object', properties: { card: { $ref: '#/components/schemas/Card' } }, required: ['card'] });
    expect(c.schemas.Card).toMatchObject({ properties: { media: { $ref: '#/components/schemas/Media' }, extra: { $ref: '#/components/schemas/Media' } } });
    expect(c.schemas.Media).toMatchObject({ properties: { url: { type: 'string' } } });
    expect(JSON.stringify([js, c.schemas])).not.toMatch(/\$defs|\$schema/);
  });

  it('shares one component between schemas that use the same definition', () => {
    const c = new SchemaComponents();
    c.of(z.object({ a: Media }), 'input');
    c.of(z.object({ b: z.array(Media) }), 'input');
    expect(Object.keys(c.schemas)).toEqual(['Media']);
  });

  it('gives a different schema under the same id a suffix, refs inside the set renamed with it', () => {
    const c = new SchemaComponents();
    c.of(Card, 'input');
    // Output schemas of z.object forbid extra properties: another schema under the same ids.
    const out = c.of(Card, 'output');
    expect(out).toEqual({ $ref: '#/components/schemas/CardOutput' });
    expect(c.schemas.CardOutput).toMatchObject({ additionalProperties: false, properties: { media: { $ref: '#/components/schemas/MediaOutput' } } });
    expect(c.schemas.Card).not.toHaveProperty('additionalProperties');
    // Other schemas under a taken id: the io's name, then a number.
    const other = (type: z.ZodType) => c.of(z.object({ m: z.object({ url: type }).meta({ id: 'Media' }) }), 'input');
    expect(other(z.number())).toMatchObject({ properties: { m: { $ref: '#/components/schemas/MediaInput' } } });
    expect(other(z.boolean())).toMatchObject({ properties: { m: { $ref: '#/components/schemas/MediaInput2' } } });
    expect(other(z.number())).toMatchObject({ properties: { m: { $ref: '#/components/schemas/MediaInput' } } });
    expect(c.schemas.MediaInput2).toMatchObject({ properties: { url: { type: 'boolean' } } });
  });
});
