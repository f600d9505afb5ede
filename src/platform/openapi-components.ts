import { z } from 'zod';

type Json = Record<string, unknown>;

const DEFS_REF = '#/$defs/';
const COMPONENTS_REF = '#/components/schemas/';

/**
 * JSON Schemas of one OpenAPI document, with the named zod schemas (`.meta({ id })`) shared
 * under `components.schemas`.
 *
 * `z.toJSONSchema` puts named and recursive schemas into a `$defs` section of each schema it
 * returns and points at them with `#/$defs/Name`. Inside an OpenAPI document a `#…` reference is
 * resolved against the document's root, where no `$defs` exists: swagger-parser and Redocly
 * refused the document and generators could not follow the refs (issue #30). So every `$defs`
 * entry moves to `components.schemas` and its refs are rewritten to point there.
 *
 * The same id can give two different schemas (input and output differ in `additionalProperties`
 * and defaults): a set of definitions is kept under its own names when they are new or identical
 * to what is there, otherwise the whole set takes a suffix (`Output`, then a number) so the refs
 * inside it stay consistent.
 */
export class SchemaComponents {
  readonly schemas: Record<string, unknown> = {};

  /** The JSON Schema of a zod schema, its named parts moved to the components. */
  of(schema: z.ZodType, io: 'input' | 'output'): Json {
    let js: Json;
    try {
      js = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
    } catch {
      return {};
    }
    // Every schema of an OpenAPI 3.1 document is already in its (2020-12 based) dialect.
    delete js.$schema;
    const defs = js.$defs as Record<string, unknown> | undefined;
    delete js.$defs;
    if (!defs) return js;
    const suffix = this.suffixFor(defs, io);
    for (const [name, def] of Object.entries(defs)) this.schemas[`${name}${suffix}`] ??= retarget(def, suffix);
    return retarget(js, suffix) as Json;
  }

  private suffixFor(defs: Record<string, unknown>, io: 'input' | 'output'): string {
    const fits = (suffix: string): boolean =>
      Object.entries(defs).every(([name, def]) => {
        const existing = this.schemas[`${name}${suffix}`];
        return existing === undefined || JSON.stringify(existing) === JSON.stringify(retarget(def, suffix));
      });
    const first = io === 'output' ? ['', 'Output'] : ['', 'Input'];
    for (const suffix of first) if (fits(suffix)) return suffix;
    for (let n = 2; ; n++) if (fits(`${first[1]}${n}`)) return `${first[1]}${n}`;
  }
}

/** A copy of `value` whose `#/$defs/X` refs point at `#/components/schemas/X<suffix>`. */
function retarget(value: unknown, suffix: string): unknown {
  if (Array.isArray(value)) return value.map((v) => retarget(v, suffix));
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith(DEFS_REF) ? `${COMPONENTS_REF}${v.slice(DEFS_REF.length)}${suffix}` : retarget(v, suffix);
  }
  return out;
}
