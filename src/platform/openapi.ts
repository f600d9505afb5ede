import { z } from 'zod';
import type { RouteRegistry } from './http/route.js';

const ErrorResponse = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() })).optional(),
  }),
});

/** How routes with `approvalBound` refuse OAuth tokens and keys whose sends need approval. */
const APPROVAL_BOUND_403 = {
  send: '; or the credential’s sends need approval (APPROVAL_REQUIRED): OAuth tokens and keys marked "sends need approval" send through /api/rcs/previews/* instead',
  secret: '; or the credential’s sends need approval (OAuth tokens, keys marked "sends need approval"), and such credentials never see signing secrets',
} as const;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  try {
    return z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
  } catch {
    return {};
  }
}

/** OpenAPI 3.1 document built from the routes actually mounted and their zod schemas. */
export function buildOpenApi(registry: RouteRegistry, serverUrl: string, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path, spec } of registry.routes) {
    const parameters: unknown[] = [];
    for (const m of path.matchAll(/\{([^}]+)\}/g)) parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
    if (spec.query) {
      const qs = jsonSchema(spec.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(qs.properties ?? {})) {
        parameters.push({ name, in: 'query', required: (qs.required ?? []).includes(name), schema });
      }
    }
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      const schema = r.schema ?? (Number(status) >= 400 ? ErrorResponse : undefined);
      responses[status] = { description: r.description, ...(schema ? { content: { 'application/json': { schema: jsonSchema(schema, 'output') } } } : {}) };
    }
    if (spec.auth !== 'public') {
      responses['401'] ??= { description: 'Missing or invalid credentials', content: { 'application/json': { schema: jsonSchema(ErrorResponse, 'output') } } };
      const refusal = spec.approvalBound ? APPROVAL_BOUND_403[spec.approvalBound] : '';
      if (spec.auth !== 'authenticated') responses['403'] ??= { description: `The key lacks ${spec.auth}${refusal}`, content: { 'application/json': { schema: jsonSchema(ErrorResponse, 'output') } } };
    }
    (paths[path] ??= {})[method] = {
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: spec.tags,
      ...(parameters.length ? { parameters } : {}),
      ...(spec.body ?? spec.bodyDoc ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema((spec.body ?? spec.bodyDoc)!, 'input') } } } } : {}),
      responses,
      security: spec.auth === 'public' ? [] : [{ apiKey: [] }, { bearer: [] }],
      ...(spec.auth !== 'public' && spec.auth !== 'authenticated' ? { 'x-required-permission': spec.auth } : {}),
      ...(spec.approvalBound ? { 'x-refuses-approval-bound': spec.approvalBound } : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'RCS & SMS messaging server', version },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    paths,
  };
}
