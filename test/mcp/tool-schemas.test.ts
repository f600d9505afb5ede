import { describe, expect, it } from 'vitest';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import { ALL_TOOLS } from '../../tools/index.js';
import { listedTools } from '../../src/mcp/catalog.js';
import { fullOutputJsonSchema, toolJsonSchema } from '../../src/mcp/tool-schemas.js';
import { lint } from './schema-lint.js';

type Json = Record<string, unknown>;

describe('listed tool schemas', () => {
  const listed = listedTools({ toolsets: null, readOnly: false });

  it.each(listed.map((t) => [t.name, t] as const))('%s: portable, closed inputs, every input property described', (name, t) => {
    expect(lint(t.inputSchema, name, true), 'inputSchema').toEqual([]);
    expect(lint(t.outputSchema, name, false), 'outputSchema').toEqual([]);
    expect(t.inputSchema.type).toBe('object');
    expect(t.outputSchema.type).toBe('object');
  });

  it('lists the content schema once in all (rcs_preview); the send tools carry a preview_id and a loose payload', () => {
    const withContent = listed.filter((t) => JSON.stringify(t.inputSchema).includes('"cardContents"')).map((t) => t.name);
    expect(withContent).toEqual(['rcs_preview']);
    for (const name of ['rcs_send', 'rcs_send_batch', 'sms_send']) {
      const s = listed.find((t) => t.name === name)!.inputSchema as { properties: Json; required: string[] };
      expect(Object.keys(s.properties).sort()).toEqual(['payload', 'preview_id']);
      expect(s.required).toEqual(['preview_id']);
    }
  });

  it('puts repeated parts under $defs (the content button object once, not three times)', () => {
    const preview = listed.find((t) => t.name === 'rcs_preview')!.inputSchema;
    const text = JSON.stringify(preview);
    expect(text.split('"openUrlInWebviewAction"').length - 1).toBe(1);
    expect(Object.keys(preview.$defs as Json)).toEqual(expect.arrayContaining(['Action', 'Media']));
  });

  it('the listed outputSchema accepts whatever the complete one accepts, and the complete one is the zod schema', () => {
    const ajv = new AjvJsonSchemaValidator();
    for (const t of ALL_TOOLS) {
      const full = fullOutputJsonSchema(t);
      const listedOut = listed.find((x) => x.name === t.name)!.outputSchema;
      // Every listed field is a field of the complete schema, with the same type.
      for (const [k, v] of Object.entries((listedOut.properties ?? {}) as Json)) {
        expect((full.properties as Json)[k], `${t.name}.${k}`).toBeDefined();
        expect(v, `${t.name}.${k}`).not.toHaveProperty('properties');
      }
      expect(() => ajv.getValidator(full), t.name).not.toThrow();
    }
  });
});

describe('toolJsonSchema', () => {
  it('splits nullable types into anyOf, keeps constraints on their branch, drops safe-integer bounds and format patterns', () => {
    const s = toolJsonSchema(z.strictObject({ a: z.string().max(5).nullable().describe('A'), n: z.number().int(), at: z.iso.datetime({ offset: true }) }), 'input');
    const props = s.properties as Record<string, Json>;
    expect(props.a).toEqual({ description: 'A', anyOf: [{ type: 'string', maxLength: 5 }, { type: 'null' }] });
    expect(props.n).toEqual({ type: 'integer' });
    expect(props.at).toEqual({ type: 'string', format: 'date-time' });
  });

  it('extracts a repeated object once and keeps each place its own description', () => {
    const Item = z.strictObject({ name: z.string().describe('The name of the thing, at most a few words'), size: z.number().describe('Its size in centimetres') });
    const s = toolJsonSchema(z.strictObject({ first: Item.describe('The first'), second: Item.describe('The second'), many: z.array(Item).describe('More') }), 'input');
    const props = s.properties as Record<string, Json>;
    expect(props.first).toEqual({ $ref: '#/$defs/first', description: 'The first' });
    expect(props.second).toEqual({ $ref: '#/$defs/first', description: 'The second' });
    expect((props.many as Json).items).toEqual({ $ref: '#/$defs/first' });
    expect((s.$defs as Json).first).toMatchObject({ type: 'object', additionalProperties: false });
    // Same validation as before the extraction.
    const check = new AjvJsonSchemaValidator().getValidator(s);
    expect(check({ first: { name: 'a', size: 1 }, second: { name: 'b', size: 2 }, many: [{ name: 'c', size: 3 }] }).valid).toBe(true);
    expect(check({ first: { name: 'a', size: 'x' } }).valid).toBe(false);
    expect(check({ many: [{ name: 'c', size: 3, extra: 1 }] }).valid).toBe(false);
  });
});
