import { z } from 'zod';
import { IDEMPOTENT_REPLAYED_HEADER, operationIdOf, type RouteRegistry } from './http/route.js';
import { IDEMPOTENCY_HEADER } from './idempotency/key.js';
import { SchemaComponents } from './openapi-components.js';
// Named (ErrorResponse), so every error answer refers to one component and a generated client has one type for it.
import { ErrorResponseSchema as ErrorResponse } from './error-fields.js';

/** How routes with `approvalBound` refuse OAuth tokens and keys whose sends need approval. */
const APPROVAL_BOUND_403 = {
  send: '; or the credential’s sends need approval (APPROVAL_REQUIRED): OAuth tokens and keys marked "sends need approval" send through /api/rcs/previews/* instead',
  secret: '; or the credential’s sends need approval (OAuth tokens, keys marked "sends need approval"), and such credentials never see signing secrets',
  audit: '; or the credential’s sends need approval (OAuth tokens, keys marked "sends need approval"): the approval history is for people and automation keys',
  'automated-send': '; or the credential’s sends need approval (APPROVAL_REQUIRED): a form sends its confirmation SMS without a person approving it, so OAuth tokens and keys marked "sends need approval" cannot create or change forms',
  'consent-decision': '; or the credential’s sends need approval (OAuth tokens, keys marked "sends need approval"): whether a reply was a request to stop is a person’s decision',
} as const;

const IDEMPOTENCY_KEY_PARAMETER = {
  name: IDEMPOTENCY_HEADER,
  in: 'header',
  required: false,
  description:
    'A unique value per intended operation (e.g. a UUID), 1–255 printable ASCII characters. Repeating the request with the same key and the same body within 24 h returns the first response (with Idempotent-Replayed: true) and does nothing again; the same key with another body is 422 IDEMPOTENCY_MISMATCH. Keys are scoped to the account. Errors raised before anything was done (validation, 5xx) are not stored: fix the request and retry with the same key.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

const REPLAYED_HEADER_DOC = { description: 'true when this is the stored response of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } };

/** OpenAPI 3.1 document built from the routes actually mounted and their zod schemas. */
export function buildOpenApi(registry: RouteRegistry, serverUrl: string, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components = new SchemaComponents();
  const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => components.of(schema, io);
  for (const route of registry.routes) {
    const { method, path, spec } = route;
    const parameters: unknown[] = [];
    const params = spec.params ? (jsonSchema(spec.params, 'input') as { properties?: Record<string, unknown> }).properties : undefined;
    for (const m of path.matchAll(/\{([^}]+)\}/g)) parameters.push({ name: m[1], in: 'path', required: true, schema: params?.[m[1]!] ?? { type: 'string' } });
    if (spec.query) {
      const qs = jsonSchema(spec.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(qs.properties ?? {})) {
        parameters.push({ name, in: 'query', required: (qs.required ?? []).includes(name), schema });
      }
    }
    if (spec.idempotent) parameters.push(IDEMPOTENCY_KEY_PARAMETER);
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      if (r.mediaTypes) {
        const content = Object.fromEntries(r.mediaTypes.map((type) => [type, { schema: type.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' } }]));
        responses[status] = { description: r.description, content };
        continue;
      }
      const schema = r.schema ?? (Number(status) >= 400 ? ErrorResponse : undefined);
      responses[status] = { description: r.description, ...(schema ? { content: { 'application/json': { schema: jsonSchema(schema, 'output') } } } : {}) };
    }
    // Any body can be broken JSON or the wrong shape, any path or query parameter malformed: a 400 in the one error shape.
    if (spec.body ?? spec.bodyDoc ?? spec.query ?? spec.params) {
      responses['400'] ??= { description: 'The request is malformed: a body that is not JSON or not of the schema, or a bad parameter', content: { 'application/json': { schema: jsonSchema(ErrorResponse, 'output') } } };
    }
    if (spec.body ?? spec.bodyDoc) {
      const errorContent = { 'application/json': { schema: jsonSchema(ErrorResponse, 'output') } };
      responses['413'] ??= { description: 'PAYLOAD_TOO_LARGE: the body is larger than 2 MB', content: errorContent };
      responses['415'] ??= { description: 'UNSUPPORTED_MEDIA_TYPE: the body is not UTF-8', content: errorContent };
    }
    if (spec.idempotent) {
      for (const [status, r] of Object.entries(responses)) {
        if (Number(status) < 300) responses[status] = { ...(r as object), headers: { [IDEMPOTENT_REPLAYED_HEADER]: REPLAYED_HEADER_DOC } };
      }
      const errorContent = { 'application/json': { schema: jsonSchema(ErrorResponse, 'output') } };
      const conflict = 'IDEMPOTENCY_IN_PROGRESS: a request with this Idempotency-Key is still running (retry after Retry-After seconds with the same key); IDEMPOTENCY_RESPONSE_LOST: it was carried out but its response was lost in a crash (look the result up, do not resend)';
      const prior = responses['409'] as { description?: string } | undefined;
      responses['409'] = { description: prior?.description ? `${prior.description}; or ${conflict}` : conflict, content: errorContent };
      responses['422'] ??= { description: 'IDEMPOTENCY_MISMATCH: this Idempotency-Key was used for a different request (method, path or body)', content: errorContent };
    }
    if (spec.auth !== 'public') {
      responses['401'] ??= { description: 'Missing or invalid credentials', content: { 'application/json': { schema: jsonSchema(ErrorResponse, 'output') } } };
      const refusal = spec.approvalBound ? APPROVAL_BOUND_403[spec.approvalBound] : '';
      if (spec.auth !== 'authenticated') responses['403'] ??= { description: `The key lacks ${spec.auth}${refusal}`, content: { 'application/json': { schema: jsonSchema(ErrorResponse, 'output') } } };
    }
    // Any operation can fail unexpectedly or be asked while the process is still starting (spec §7 names 500 for the sends).
    const serverError = { 'application/json': { schema: jsonSchema(ErrorResponse, 'output') } };
    responses['500'] ??= { description: 'INTERNAL: an unexpected failure, logged with the request id named in the message', content: serverError };
    responses['503'] ??= { description: 'SERVICE_UNAVAILABLE: the server is starting; retry after Retry-After seconds', content: serverError };
    (paths[path] ??= {})[method] = {
      operationId: operationIdOf(route),
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
    info: { title: 'RCS & SMS messaging server', version, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
    servers: [{ url: serverUrl }],
    components: {
      schemas: components.schemas,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    paths,
  };
}
