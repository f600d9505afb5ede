import { z } from 'zod';
import type { ToolDef } from '../../tools/types.js';

/**
 * The JSON Schemas a tool is listed with (tools/list, and whatever validates against them: the
 * output check here, the SDK on the client side). Built from the tool's zod schemas, then made
 * portable and small:
 *
 * - `type: [T, "null"]` (zod's nullable) becomes `anyOf` of single-type branches: clients that map
 *   tool schemas onto a one-type dialect (Gemini's OpenAPI subset) reject type arrays.
 * - A schema with no keyword at all (zod's `unknown` as `additionalProperties: {}`) becomes `true`
 *   there, and an explicit "any JSON value" elsewhere: an empty object reads as a forgotten type.
 * - `pattern` beside a standard `format` goes: zod spells `date-time` as a 330-character regex
 *   that says nothing the format does not, and the server checks the value with zod anyway.
 * - A subschema that occurs more than once (the content's button object appears three times,
 *   its media twice, …) is listed once under `$defs` and referenced (`$ref`), with the place's
 *   own description kept beside the reference.
 *
 * None of this changes what the schema accepts, except the dropped patterns (looser only).
 */

type Json = Record<string, unknown>;

/** Keywords that only annotate: they stay on the outer node when a type array is split. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment']);
/** Keywords that apply to one JSON type only. */
const TYPE_KEYWORDS: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format', 'contentEncoding', 'contentMediaType'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'unevaluatedItems'],
  object: ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties'],
};
const STANDARD_FORMATS = new Set(['date-time', 'date', 'time', 'duration', 'email', 'uuid', 'uri', 'ipv4', 'ipv6', 'hostname']);
/** Where a subschema sits: maps of schemas, arrays of schemas, single schemas. */
const MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas', '$defs'] as const;
const ARRAY_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SINGLE_KEYWORDS = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems'] as const;
const ANY_JSON_VALUE: readonly Json[] = ['string', 'number', 'boolean', 'object', 'array', 'null'].map((type) => ({ type }));

/** A subschema extracted into $defs pays off only above this size (a `$ref` costs ~25 bytes). */
const MIN_EXTRACT_BYTES = 100;

const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Calls `visit` on every direct subschema of `node` with a way to replace it and a name hint. */
function eachChild(node: Json, visit: (child: unknown, replace: (v: unknown) => void, hint: string) => void): void {
  for (const key of MAP_KEYWORDS) {
    const map = node[key];
    if (!isJson(map)) continue;
    for (const name of Object.keys(map)) visit(map[name], (v) => (map[name] = v), name);
  }
  for (const key of ARRAY_KEYWORDS) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    list.forEach((item, i) => visit(item, (v) => (list[i] = v), ''));
  }
  for (const key of SINGLE_KEYWORDS) {
    if (key in node) visit(node[key], (v) => (node[key] = v), key === 'items' ? 'item' : '');
  }
}

const hasConstraint = (node: Json) => Object.keys(node).some((k) => !ANNOTATIONS.has(k));

/** The portability rewrites of one node, then its children. */
function portable(node: Json): Json {
  delete node.$schema;
  if (typeof node.format === 'string' && STANDARD_FORMATS.has(node.format)) delete node.pattern;
  // zod bounds every int by the safe-integer range: 50 bytes that tell nobody anything.
  if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
  if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  // Every JSON key is a string: zod's records say so at length.
  if (isJson(node.propertyNames) && canonical(node.propertyNames) === '{"type":"string"}') delete node.propertyNames;
  eachChild(node, (child, replace, hint) => {
    if (!isJson(child)) return;
    if (!hasConstraint(child)) {
      // additionalProperties: {} is "anything": say so with the boolean the keyword takes.
      if (hint === '' && 'additionalProperties' in node && node.additionalProperties === child) return replace(true);
      return replace({ ...child, anyOf: ANY_JSON_VALUE.map((b) => ({ ...b })) });
    }
    replace(portable(child));
  });
  if (Array.isArray(node.type)) return splitTypes(node, node.type as string[]);
  // zod's nullable() of a described schema describes the branch and again the whole.
  if (typeof node.description === 'string' && Array.isArray(node.anyOf)) for (const b of node.anyOf) if (isJson(b)) delete b.description;
  return node;
}

/** `{type: ["string","null"], maxLength: 5, description}` → `{anyOf: [{type:"string",maxLength:5},{type:"null"}], description}`. */
function splitTypes(node: Json, types: string[]): Json {
  const outer: Json = {};
  const shared: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type') continue;
    if (ANNOTATIONS.has(k)) outer[k] = v;
    else shared[k] = v;
  }
  outer.anyOf = types.map((type) => {
    const branch: Json = { type };
    for (const [k, v] of Object.entries(shared)) {
      if (k === 'enum' && Array.isArray(v)) {
        const fit = v.filter((x) => jsonTypeOf(x) === type || (type === 'number' && typeof x === 'number'));
        if (type !== 'null' && fit.length > 0) branch.enum = fit;
        continue;
      }
      const owner = Object.entries(TYPE_KEYWORDS).find(([, keys]) => keys.includes(k))?.[0];
      if (owner === undefined || owner === type || (owner === 'number' && type === 'integer')) branch[k] = v;
    }
    return branch;
  });
  return outer;
}

function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** JSON with sorted keys: two equal subschemas get the same text whatever order zod wrote them in. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isJson(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

interface Occurrence {
  node: Json;
  replace: (v: unknown) => void;
  hint: string;
}

/** A subschema without its own description: the part places can share. */
function body(node: Json): Json {
  const { description: _d, ...rest } = node;
  void _d;
  return rest;
}

/**
 * Moves subschemas that occur more than once into `$defs`, biggest saving first, until none pays.
 * Deterministic: ties go to the first occurrence in document order.
 */
function extractRepeats(root: Json): Json {
  const defs: Json = isJson(root.$defs) ? root.$defs : {};
  // Walked like any other part, so a repeat inside an extracted subschema (the two calendar
  // payloads inside the button object) is found too.
  root.$defs = defs;
  const names = new Set(Object.keys(defs));
  for (;;) {
    const groups = new Map<string, Occurrence[]>();
    const walk = (node: Json, nodeName: string) =>
      eachChild(node, (child, replace, hint) => {
        if (!isJson(child)) return;
        // Named for where it first sits: a property's name, an array's items by the array's name in the singular.
        const name = hint === 'item' ? singular(nodeName) : hint || nodeName;
        if (!('$ref' in child)) {
          const key = canonical(body(child));
          let list = groups.get(key);
          if (!list) groups.set(key, (list = []));
          list.push({ node: child, replace, hint: name });
        }
        walk(child, name);
      });
    walk(root, '');
    let best: { key: string; list: Occurrence[]; saving: number } | undefined;
    for (const [key, list] of groups) {
      if (list.length < 2 || key.length < MIN_EXTRACT_BYTES) continue;
      // Nested occurrences (a repeat inside a repeat) are counted once their parent is shared.
      const saving = (list.length - 1) * key.length - list.length * 25;
      if (saving > 0 && (!best || saving > best.saving)) best = { key, list, saving };
    }
    if (!best) break;
    // The shortest place name reads best: "action" rather than "cardAction" for the button/chip object.
    const hints = best.list.map((o) => o.hint).filter((h) => h !== '');
    const name = uniqueName(names, hints.reduce((a, b) => (b.length < a.length ? b : a), hints[0] ?? 'shared'));
    const descriptions = new Set(best.list.map((o) => o.node.description));
    const sameDescription = descriptions.size === 1;
    defs[name] = sameDescription ? best.list[0]!.node : body(best.list[0]!.node);
    for (const o of best.list) {
      const ref: Json = { $ref: `#/$defs/${name}` };
      if (!sameDescription && typeof o.node.description === 'string') ref.description = o.node.description;
      o.replace(ref);
    }
  }
  delete root.$defs;
  if (Object.keys(defs).length > 0) root.$defs = defs;
  return root;
}

const singular = (name: string) => (name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : name ? `${name}Item` : '');

function uniqueName(taken: Set<string>, hint: string): string {
  const base = hint.replace(/[^A-Za-z0-9_]/g, '_') || 'shared';
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}${i}`;
  taken.add(name);
  return name;
}

/** A zod schema as a listed tool schema (JSON Schema 2020-12): portable, repeats under $defs. */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12', reused: 'inline' }) as Json;
  return extractRepeats(portable(json));
}

function cached(cache: WeakMap<ToolDef, Json>, tool: ToolDef, build: (t: ToolDef) => Json): Json {
  let schema = cache.get(tool);
  if (!schema) cache.set(tool, (schema = build(tool)));
  return schema;
}

const inputs = new WeakMap<ToolDef, Json>();
const fullOutputs = new WeakMap<ToolDef, Json>();
const listedOutputs = new WeakMap<ToolDef, Json>();

/** A tool's inputSchema as listed, built once per tool: complete, every constraint the server checks. */
export function inputJsonSchema(tool: ToolDef): Json {
  return cached(inputs, tool, (t) => toolJsonSchema(t.input, 'input'));
}

/**
 * A tool's complete output schema: what the server checks every result against before it leaves
 * (output-check.ts), so a stray or missing field is our bug, caught here and not by a client.
 */
export function fullOutputJsonSchema(tool: ToolDef): Json {
  return cached(fullOutputs, tool, (t) => toolJsonSchema(t.output, 'output'));
}

/**
 * A tool's outputSchema as listed: the complete schema's top-level fields with their types; nested
 * objects and arrays typed but not spelt out; no `required`, no enums, no constant fields, no descriptions (what the fields mean
 * is in the tool's description, which is what a model reads). Every result the complete schema
 * accepts, this accepts. Listing the complete output schemas cost ~45 KB of tools/list (contact,
 * job and message records spelt out per tool) for something clients use only to check results,
 * which the server already does against the complete schema.
 */
export function listedOutputJsonSchema(tool: ToolDef): Json {
  return cached(listedOutputs, tool, (t) => outline(fullOutputJsonSchema(t)));
}

function outline(full: Json): Json {
  const defs = isJson(full.$defs) ? full.$defs : {};
  const out: Json = {};
  for (const [k, v] of Object.entries(full)) {
    // A field with one possible value (`success: true`) tells nothing: the complete schema checks it.
    if (k === 'properties' && isJson(v)) out[k] = Object.fromEntries(Object.entries(v).filter(([, p]) => !isConstant(p)).map(([name, p]) => [name, typeOnly(p, defs)]));
    else if (k === 'type') out[k] = v;
  }
  return out;
}

const isConstant = (node: unknown) => isJson(node) && 'const' in node;

/** A field's type without its insides, description, enum or const: `{type: "object"}` for an object. */
function typeOnly(node: unknown, defs: Json): Json {
  if (!isJson(node)) return { type: 'object' };
  const target = typeof node.$ref === 'string' ? defs[node.$ref.replace('#/$defs/', '')] : node;
  const res: Json = {};
  if (isJson(target)) {
    if (Array.isArray(target.anyOf)) res.anyOf = target.anyOf.map((b) => typeOnly(b, defs));
    else if (target.type !== undefined) res.type = target.type;
    if (res.anyOf === undefined && res.type === undefined) res.anyOf = ANY_JSON_VALUE.map((b) => ({ ...b }));
  }
  return res;
}
