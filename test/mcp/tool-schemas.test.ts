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

  it('finds repeats inside an extracted subschema too (the two calendar payloads of the button object, once)', () => {
    const preview = listed.find((t) => t.name === 'rcs_preview')!.inputSchema;
    const defs = preview.$defs as Record<string, Json>;
    const action = defs.Action as { properties: Record<string, Json> };
    // The content schemas name both payloads (CalendarAction, CreateCalendarEventAction); their identical bodies
    // are listed once, and both names lead to it.
    const body = (ref: unknown): Json => {
      let at = defs[String(ref).replace('#/$defs/', '')]!;
      while (typeof at.$ref === 'string') at = defs[at.$ref.replace('#/$defs/', '')]!;
      return at;
    };
    expect(body(action.properties.calendarAction!.$ref)).toBe(body(action.properties.createCalendarEventAction!.$ref));
    // Each place keeps its own description beside the shared body.
    expect(action.properties.calendarAction!.description).not.toBe(action.properties.createCalendarEventAction!.description);
    expect(JSON.stringify(preview).split('"startTime":{').length - 1).toBe(1);
  });

  it('outlines list each informative top-level field with its type only: no enum, no const, no constant field', () => {
    for (const t of ALL_TOOLS) {
      const full = fullOutputJsonSchema(t) as { properties: Record<string, Json> };
      const props = (listed.find((x) => x.name === t.name)!.outputSchema.properties ?? {}) as Record<string, Json>;
      const text = JSON.stringify(props);
      expect(text, t.name).not.toMatch(/"(enum|const|description|properties|required)"/);
      for (const [k, v] of Object.entries(full.properties)) {
        if ('const' in v) expect(props, `${t.name}.${k}`).not.toHaveProperty(k);
        else expect(props, `${t.name}.${k}`).toHaveProperty(k);
      }
    }
    // A constant field is still checked by the server against the complete schema.
    expect((fullOutputJsonSchema(ALL_TOOLS.find((t) => t.name === 'count_contacts')!).properties as Json).success).toMatchObject({ const: true });
  });

  it('lists the annotations that differ from the MCP defaults, destructiveHint on every write; applying the defaults gives the tool\'s own', () => {
    const defaults = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
    for (const t of ALL_TOOLS) {
      const a = listed.find((x) => x.name === t.name)!.annotations as Record<string, boolean>;
      const applied = { ...defaults, ...a };
      expect(applied.readOnlyHint, t.name).toBe(t.annotations.readOnlyHint);
      expect(applied.openWorldHint, t.name).toBe(t.annotations.openWorldHint);
      if (t.annotations.readOnlyHint) {
        // MCP reads destructiveHint and idempotentHint only when readOnlyHint is false.
        expect(Object.keys(a).sort(), t.name).toEqual(['openWorldHint', 'readOnlyHint'].filter((k) => k === 'readOnlyHint' || !t.annotations.openWorldHint));
      } else {
        expect(a.destructiveHint, t.name).toBe(t.annotations.destructiveHint);
        expect(applied.idempotentHint, t.name).toBe(t.annotations.idempotentHint);
        for (const [k, v] of Object.entries(a)) if (k !== 'destructiveHint') expect(v, `${t.name}.${k}`).not.toBe(defaults[k as keyof typeof defaults]);
      }
    }
    expect(listed.find((x) => x.name === 'rcs_send')!.annotations).toEqual({ destructiveHint: true, idempotentHint: true });
  });

  it('lists _meta only where a tool declares one: the preview tools\' MCP Apps ui', () => {
    expect(listed.filter((t) => t._meta !== undefined).map((t) => t.name).sort()).toEqual(['rcs_preview', 'sms_preview']);
    expect(listed.find((t) => t.name === 'rcs_preview')!._meta).toMatchObject({ ui: { resourceUri: expect.stringMatching(/^ui:\/\//) } });
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
