import createClient from 'openapi-fetch';
import { expect } from 'vitest';
// Generated at test time from the live /openapi.json by openapi-typescript (test/api/openapi-client.test.ts):
// this file is type-checked against it there, which is why tsconfig.json leaves this folder out.
import type { components, paths } from './schema.js';

type ErrorResponse = components['schemas']['ErrorResponse'];

/** How a generated client's caller reads a refusal: one typed shape for every 4xx. */
const codeOf = (error?: ErrorResponse): string | undefined => error?.error.code;

/**
 * A dozen routes called the way a new integrator would, through `openapi-fetch` typed by the
 * generated `paths`: no casts, no hand-written types. A document that loses a route, a field or a
 * response shape makes this file fail to compile (or an assertion below fail).
 */
export async function exerciseGeneratedClient(opts: { baseUrl: string; apiKey: string; rcsSender: string; phone: string }): Promise<void> {
  const client = createClient<paths>({ baseUrl: opts.baseUrl, headers: { 'X-API-Key': opts.apiKey } });

  const health = await client.GET('/api/rcs/health');
  expect(health.data?.status).toBe('healthy');

  // Contacts CRUD.
  const created = await client.POST('/api/v1/contacts', { body: { phone: opts.phone, firstName: 'Ada', lastName: 'Lovelace' } });
  expect(created.response.status).toBe(201);
  const contactId: string = created.data!.data.id;
  expect(created.data!.data.firstName).toBe('Ada');

  const read = await client.GET('/api/v1/contacts/{id}', { params: { path: { id: contactId } } });
  expect(read.data?.data.lastName).toBe('Lovelace');

  const updated = await client.PUT('/api/v1/contacts/{id}', { params: { path: { id: contactId } }, body: { firstName: 'Augusta' } });
  expect(updated.data?.data.firstName).toBe('Augusta');

  const list = await client.GET('/api/v1/contacts', { params: { query: { limit: 10, sort: 'createdAt', order: 'desc' } } });
  expect(list.data?.data.map((c) => c.id)).toContain(contactId);
  expect(list.data?.pagination.limit).toBe(10);

  // Groups.
  const group = await client.POST('/api/v1/groups', { body: { name: 'Generated client group' } });
  const groupId: string = group.data!.data.id;
  const added = await client.POST('/api/v1/groups/{id}/contacts', { params: { path: { id: groupId } }, body: { contactIds: [contactId] } });
  expect(added.response.status).toBe(200);
  const groupRead = await client.GET('/api/v1/groups/{id}', { params: { path: { id: groupId } } });
  expect(groupRead.data?.data.contactCount).toBe(1);

  // Templates.
  const template = await client.POST('/api/v1/templates', { body: { name: 'Generated client template', type: 'SMS', content: 'Hello {{contact_first_name}}' } });
  expect(template.response.status).toBe(201);
  const templates = await client.GET('/api/v1/templates', { params: { query: { type: 'SMS' } } });
  expect(templates.data?.data.map((x) => x.id)).toContain(template.data!.data.id);

  // Validate, then send with an Idempotency-Key: the repeat is the stored first answer.
  const validation = await client.POST('/api/rcs/validate', { body: { messageType: 'text', content: { text: 'Hello from a generated client' } } });
  expect(validation.data?.valid).toBe(true);
  expect(validation.data?.errors).toEqual([]);

  const send = () =>
    client.POST('/api/rcs/send', {
      params: { header: { 'Idempotency-Key': `generated-client-${contactId}` } },
      body: { phoneNumber: opts.phone, messageType: 'text', content: { text: 'Hello from a generated client' }, sendernameId: opts.rcsSender },
    });
  const first = await send();
  expect(first.response.status).toBe(200);
  const again = await send();
  expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
  const firstId = first.data && 'messageRecordId' in first.data ? first.data.messageRecordId : undefined;
  expect(firstId).toMatch(/^msg_/);
  expect(again.data && 'messageRecordId' in again.data ? again.data.messageRecordId : undefined).toBe(firstId);

  const log = await client.GET('/api/messages/log', { params: { query: { limit: 20 } } });
  expect(log.data?.messages.map((m) => m.id)).toContain(firstId);

  // Refusals through the typed error shape: a 404 and a 400.
  const missing = await client.GET('/api/v1/contacts/{id}', { params: { path: { id: 'ct_01JAAAAAAAAAAAAAAAAAAAAAAA' } } });
  expect(missing.response.status).toBe(404);
  expect(missing.data).toBeUndefined();
  expect(codeOf(missing.error)).toBe('NOT_FOUND');
  const invalid = await client.POST('/api/v1/contacts', { body: { phone: 'not a number' } });
  expect(invalid.response.status).toBe(400);
  expect(invalid.error?.success).toBe(false);
  expect(invalid.error?.error.details?.[0]?.path).toBe('phone');

  // An error's extra fields are typed (issue #42): the conflict names the contact that has the phone, the
  // code is one of the closed set.
  const duplicate = await client.POST('/api/v1/contacts', { body: { phone: opts.phone } });
  expect(duplicate.response.status).toBe(409);
  const existing: string | undefined = duplicate.error?.error.existingContactId;
  expect(existing).toBe(contactId);
  expect(codeOf(duplicate.error)).toBe('CONFLICT');

  // A CSV export is documented as text/csv: read as text.
  const csv = await client.GET('/api/v1/consent/export', { parseAs: 'text' });
  expect(csv.response.headers.get('content-type')).toMatch(/^text\/csv/);
  expect(typeof csv.data).toBe('string');

  // Answers that had no documented body now have one.
  const queue = await client.GET('/api/rcs/queue/status');
  const dueNow: number | undefined = queue.data?.queue.dueNow;
  expect(typeof dueNow).toBe('number');

  const removed = await client.DELETE('/api/v1/contacts/{id}', { params: { path: { id: contactId } } });
  expect(removed.data?.data.deleted).toBe(true);
}

/** Never called: the generated types hold the document's rules, so these calls must not compile. */
export async function callsTheTypesRefuse(client: ReturnType<typeof createClient<paths>>): Promise<void> {
  // @ts-expect-error phone is required to create a contact
  await client.POST('/api/v1/contacts', { body: { firstName: 'No phone' } });
  // @ts-expect-error a template's type is SMS or RCS
  await client.POST('/api/v1/templates', { body: { name: 'x', type: 'EMAIL', content: 'x' } });
  // @ts-expect-error there is no such route
  await client.GET('/api/v1/no-such-route');
  // @ts-expect-error the path parameter is required
  await client.GET('/api/v1/contacts/{id}', {});
  // @ts-expect-error an error's code is one of the closed set
  const code: ErrorResponse['error']['code'] = 'NOT_A_CODE';
  expect(code).toBeDefined();
}
