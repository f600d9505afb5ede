/** The rules of issue #16 (and the MCP Inspector's --strict lint) over listed tool schemas. */
type Json = Record<string, unknown>;
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Input objects whose fields are deliberately not listed: a send's `payload` is compared with the
 * stored preview, rcs_validate's `content` is checked by the validator (problems come back as
 * valid:false), a template's RCS content likewise. Everything else is closed.
 */
export const FREE_FORM = new Set(['rcs_send:payload', 'rcs_send_batch:payload', 'sms_send:payload', 'rcs_validate:content', 'create_template:content', 'update_template:content']);

export interface Finding {
  path: string;
  problem: string;
}

/** The rules of issue #16 and of the MCP Inspector's --strict lint, over one listed schema. */
export function lint(schema: Json, tool: string, input: boolean): Finding[] {
  const out: Finding[] = [];
  const defs = isJson(schema.$defs) ? schema.$defs : {};
  const visit = (node: unknown, path: string, prop: string | null, keyword: string) => {
    if (typeof node === 'boolean') {
      if (!['additionalProperties', 'unevaluatedProperties'].includes(keyword)) out.push({ path, problem: 'boolean schema' });
      return;
    }
    if (!isJson(node)) return out.push({ path, problem: 'not a schema' }) && undefined;
    if (Array.isArray(node.type)) out.push({ path, problem: 'type array (use anyOf)' });
    const constrains = Object.keys(node).some((k) => !['description', 'title', 'default', 'examples'].includes(k));
    if (!constrains) out.push({ path, problem: 'untyped schema' });
    if (typeof node.$ref === 'string') {
      if (!node.$ref.startsWith('#/$defs/') || !(node.$ref.slice(8) in defs)) out.push({ path, problem: `unresolved $ref ${node.$ref}` });
    }
    if (input && prop !== null) {
      const target = typeof node.$ref === 'string' ? defs[node.$ref.slice(8)] : undefined;
      const described = typeof node.description === 'string' || (isJson(target) && typeof target.description === 'string');
      if (!described) out.push({ path, problem: 'property without description' });
    }
    if (input && node.type === 'object') {
      const free = FREE_FORM.has(`${tool}:${path.replace(/^properties\./, '').replace(/\.anyOf\[\d+\]$/, '')}`);
      if (free) {
        if (node.properties !== undefined || node.additionalProperties !== true) out.push({ path, problem: 'free-form object must say additionalProperties: true' });
      } else if (node.additionalProperties !== false) out.push({ path, problem: 'input object without additionalProperties: false' });
    }
    if (isJson(node.properties)) for (const [k, v] of Object.entries(node.properties)) visit(v, path ? `${path}.properties.${k}` : `properties.${k}`, k, 'properties');
    for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) if (Array.isArray(node[k])) (node[k] as unknown[]).forEach((b, i) => visit(b, `${path}.${k}[${i}]`, null, k));
    for (const k of ['items', 'additionalProperties', 'not', 'contains', 'propertyNames'] as const) if (k in node) visit(node[k], `${path}.${k}`, null, k);
  };
  visit(schema, '', null, '');
  for (const [name, def] of Object.entries(defs)) visit(def, `$defs.${name}`, null, '$defs');
  return out;
}

