import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operationIdOf, RouteRegistry, type RegisteredRoute } from '../../src/platform/http/route.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
let registered: RegisteredRoute[] = [];

beforeAll(async () => {
  // Capture the registry the app builds, so the test follows every route that exists, now and later.
  const add = RouteRegistry.prototype.add;
  const spy = vi.spyOn(RouteRegistry.prototype, 'add').mockImplementation(function (this: RouteRegistry, base, spec) {
    add.call(this, base, spec);
    registered = this.routes;
  });
  try {
    t = await startTestServer();
  } finally {
    spy.mockRestore();
  }
});
afterAll(async () => {
  await t.close();
});

interface Operation {
  operationId?: string;
  summary: string;
  tags: string[];
  parameters?: Array<{ name: string; in: string; required: boolean; schema: Record<string, unknown> }>;
  requestBody?: { content: { 'application/json': { schema: Record<string, any> } } };
  responses: Record<string, { content?: { 'application/json': { schema: Record<string, any> } } }>;
  'x-required-permission'?: string;
}

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 and lists every registered route with its method', async () => {
    const r = await t.api('GET', '/openapi.json', undefined, { key: null });
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    expect(registered.length).toBeGreaterThan(40);
    for (const route of registered) {
      const op = r.body.paths[route.path]?.[route.method] as Operation | undefined;
      expect(op, `${route.method.toUpperCase()} ${route.path}`).toBeDefined();
      expect(op!.summary).toBe(route.spec.summary);
      if (route.spec.body) expect(op!.requestBody, `${route.method} ${route.path} body`).toBeDefined();
      for (const m of route.path.matchAll(/\{([^}]+)\}/g)) {
        expect(op!.parameters?.some((p) => p.in === 'path' && p.name === m[1])).toBe(true);
      }
    }
    const documented = Object.entries(r.body.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    expect(documented.sort()).toEqual(registered.map((x) => `${x.method} ${x.path}`).sort());
  });

  it('covers every address-book and template route of spec §4.4–4.6', async () => {
    const r = await t.api('GET', '/openapi.json', undefined, { key: null });
    const expected = [
      'get /api/v1/contacts', 'post /api/v1/contacts', 'get /api/v1/contacts/count', 'get /api/v1/contacts/{id}', 'put /api/v1/contacts/{id}',
      'delete /api/v1/contacts/{id}', 'post /api/v1/contacts/bulk', 'patch /api/v1/contacts/bulk/disable', 'patch /api/v1/contacts/bulk/enable',
      'get /api/v1/contacts/fields', 'post /api/v1/contacts/fields', 'get /api/v1/contacts/fields/{fieldId}', 'put /api/v1/contacts/fields/{fieldId}',
      'delete /api/v1/contacts/fields/{fieldId}', 'get /api/v1/contacts/{id}/fields', 'put /api/v1/contacts/{id}/fields',
      'put /api/v1/contacts/{id}/fields/{fieldId}', 'delete /api/v1/contacts/{id}/fields/{fieldId}',
      'get /api/v1/groups', 'post /api/v1/groups', 'get /api/v1/groups/{id}', 'put /api/v1/groups/{id}', 'delete /api/v1/groups/{id}',
      'post /api/v1/groups/{id}/contacts', 'delete /api/v1/groups/{id}/contacts',
      'get /api/v1/templates', 'post /api/v1/templates', 'get /api/v1/templates/{id}', 'put /api/v1/templates/{id}', 'delete /api/v1/templates/{id}',
      'get /api/v1/templates/groups', 'post /api/v1/templates/groups', 'put /api/v1/templates/groups/{id}', 'delete /api/v1/templates/groups/{id}',
      'post /api/v1/templates/groups/assign',
    ];
    for (const e of expected) {
      const [method, path] = e.split(' ') as [string, string];
      expect(r.body.paths[path]?.[method], e).toBeDefined();
    }
  });

  it('carries request body schemas, query parameters, permissions and response shapes from the zod schemas', async () => {
    const { body } = await t.api('GET', '/openapi.json', undefined, { key: null });
    const op = (path: string, method: string) => body.paths[path][method] as Operation;
    const bodyOf = (path: string, method: string) => op(path, method).requestBody!.content['application/json'].schema;

    const createContact = bodyOf('/api/v1/contacts', 'post');
    expect(createContact.required).toEqual(['phone']);
    expect(createContact.properties.groups.items.pattern).toContain('grp_');
    expect(createContact.additionalProperties).toBe(false);

    const bulk = bodyOf('/api/v1/contacts/bulk', 'post');
    expect(bulk.properties.contacts.maxItems).toBe(1000);
    expect(bodyOf('/api/v1/contacts/bulk/disable', 'patch').properties.reason.maxLength).toBe(500);
    expect(bodyOf('/api/v1/groups/{id}/contacts', 'post').properties.contactIds.maxItems).toBe(10000);
    expect(bodyOf('/api/v1/templates/groups', 'post').properties.name.maxLength).toBe(100);
    const createTemplate = bodyOf('/api/v1/templates', 'post');
    expect(createTemplate.properties.type.enum).toEqual(['SMS', 'RCS']);
    expect(createTemplate.properties.context.enum).toEqual(['event', 'flow', 'general']);
    expect(bodyOf('/api/v1/contacts/fields', 'post').properties.tag.pattern).toBe('^[A-Za-z0-9_]+$');

    const list = op('/api/v1/contacts', 'get');
    const sort = list.parameters!.find((p) => p.name === 'sort')!;
    expect(sort.schema.enum).toEqual(['createdAt', 'updatedAt', 'firstName', 'lastName', 'email', 'phone']);
    expect(list.parameters!.find((p) => p.name === 'limit')!.schema).toMatchObject({ minimum: 1, maximum: 200 });
    expect(list['x-required-permission']).toBe('contacts:read');
    const listSchema = list.responses['200']!.content!['application/json'].schema;
    expect(Object.keys(listSchema.properties)).toEqual(['data', 'pagination']);
    expect(Object.keys(listSchema.properties.pagination.properties)).toEqual(['nextCursor', 'hasNext', 'limit', 'count']);
    const tplList = op('/api/v1/templates', 'get').responses['200']!.content!['application/json'].schema;
    expect(Object.keys(tplList.properties.pagination.properties)).toEqual(['page', 'limit', 'total', 'totalPages']);
    const single = op('/api/v1/contacts/{id}', 'get').responses['200']!.content!['application/json'].schema;
    expect(Object.keys(single.properties)).toEqual(['success', 'data']);
    expect(op('/api/v1/contacts/{id}', 'get').responses['404']).toBeDefined();
    expect(op('/api/v1/contacts/fields/{fieldId}', 'delete')['x-required-permission']).toBe('custom-fields:write');
    expect(op('/api/v1/groups/{id}', 'put')['x-required-permission']).toBe('groups:write');
    expect(op('/api/v1/templates/groups/assign', 'post')['x-required-permission']).toBe('templates:write');
  });

  it('gives every operation a unique camelCase operationId, the method name of generated clients', async () => {
    const r = await t.api('GET', '/openapi.json', undefined, { key: null });
    const ids: string[] = [];
    for (const [path, ops] of Object.entries(r.body.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
        ids.push(op.operationId!);
      }
    }
    expect(ids.length).toBe(registered.length);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    // Every route mounted today names its operation itself; the derived fallback is for routes that do not.
    expect(registered.filter((x) => !x.spec.operationId).map((x) => `${x.method} ${x.path}`)).toEqual([]);

    const idOf = (path: string, method: string): string | undefined => (r.body.paths[path]?.[method] as Operation | undefined)?.operationId;
    expect(idOf('/api/rcs/send', 'post')).toBe('sendMessage');
    expect(idOf('/api/rcs/send-batch', 'post')).toBe('sendBatch');
    expect(idOf('/api/rcs/send-sms', 'post')).toBe('sendSms');
    expect(idOf('/api/rcs/batch/{jobId}/status', 'get')).toBe('getBatchStatus');
    expect(idOf('/api/v1/contacts', 'get')).toBe('listContacts');
    expect(idOf('/api/rcs/previews/send', 'post')).toBe('createPreviewSend');
  });

  it('derives a deterministic operationId from method and path when a route names none', () => {
    const route = (method: RegisteredRoute['method'], path: string, operationId?: string): RegisteredRoute => ({
      method,
      path,
      spec: { method, path, operationId, summary: 's', tags: [], auth: 'public', responses: {}, handler: () => null },
    });
    expect(operationIdOf(route('get', '/api/v1/contacts/{id}'))).toBe('getContactsById');
    expect(operationIdOf(route('post', '/api/rcs/webhooks/{id}/deliveries/{deliveryId}/redeliver'))).toBe('postWebhooksByIdDeliveriesByDeliveryIdRedeliver');
    expect(operationIdOf(route('patch', '/api/v1/contacts/bulk/disable'))).toBe('patchContactsBulkDisable');
    expect(operationIdOf(route('post', '/api/rcs/send-sms'))).toBe('postSendSms');
    expect(operationIdOf(route('get', '/api/messages/log'))).toBe('getMessagesLog');
    expect(operationIdOf(route('get', '/api/rcs/health', 'getHealth'))).toBe('getHealth');
  });
});
