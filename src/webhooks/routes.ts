import { z } from 'zod';
import type { WebhooksService } from './service.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { cursorListSchema, dataResponseSchema, ok } from '../platform/pagination.js';
import {
  CreateWebhookSchema,
  DeliveriesQuerySchema,
  DeliverySchema,
  RotateSecretSchema,
  TestResultSchema,
  UpdateWebhookSchema,
  WebhookSchema,
  WebhookSecretSchema,
  WebhookWithSecretSchema,
} from './schemas.js';

const TAGS = ['Webhooks'];
const IdParams = z.object({ id: z.string() });
const DeliveryParams = z.object({ id: z.string(), deliveryId: z.string() });
const notFound = { description: 'Unknown webhook (or another account’s)' };

/**
 * REST adapter of the webhook endpoints (spec §5.5, §6; docs/webhooks.md), under {base_url}.
 * Reading needs messages:read; changing, testing, redelivering, revealing and rotating the secret
 * need webhooks:manage (a key that can read a secret could forge events to the customer's
 * receiver, one that can change the URL could redirect the account's events). A credential whose
 * sends need approval never sees a secret (approvalBound: 'secret').
 */
export function webhooksRoutes({ webhooks }: { webhooks: WebhooksService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhooks',
      summary: 'List the account’s webhook endpoints with their health',
      tags: TAGS,
      auth: 'messages:read',
      responses: { 200: { description: '{data, pagination}', schema: cursorListSchema(WebhookSchema) } },
      handler: ({ principal }) => webhooks.list(principal.accountId),
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhook',
      summary: 'Create a webhook endpoint; the answer carries its signing secret',
      tags: TAGS,
      auth: 'webhooks:manage',
      approvalBound: 'secret',
      body: CreateWebhookSchema,
      status: 201,
      responses: {
        201: { description: 'Created, with `secret`', schema: dataResponseSchema(WebhookWithSecretSchema) },
        400: { description: 'Invalid URL (not https, private address) or events' },
        409: { description: 'A webhook with this URL exists' },
      },
      handler: async ({ body, principal }) => ok(await webhooks.create(principal.accountId, body)),
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/:id',
      operationId: 'getWebhook',
      summary: 'Get a webhook endpoint',
      tags: TAGS,
      auth: 'messages:read',
      params: IdParams,
      responses: { 200: { description: 'The webhook', schema: dataResponseSchema(WebhookSchema) }, 400: { description: 'Malformed id' }, 404: notFound },
      handler: async ({ params, principal }) => ok(await webhooks.get(principal.accountId, params.id)),
    }),
    defineRoute({
      method: 'put',
      path: '/webhooks/:id',
      operationId: 'updateWebhook',
      summary: 'Change URL, events, description or enabled (partial)',
      tags: TAGS,
      auth: 'webhooks:manage',
      params: IdParams,
      body: UpdateWebhookSchema,
      responses: { 200: { description: 'Updated', schema: dataResponseSchema(WebhookSchema) }, 400: { description: 'Invalid' }, 404: notFound, 409: { description: 'URL used by another webhook' } },
      handler: async ({ params, body, principal }) => ok(await webhooks.update(principal.accountId, params.id, body)),
    }),
    defineRoute({
      method: 'delete',
      path: '/webhooks/:id',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint, its queued deliveries and its log',
      tags: TAGS,
      auth: 'webhooks:manage',
      params: IdParams,
      responses: {
        200: { description: 'Deleted', schema: dataResponseSchema(z.object({ id: z.string(), deleted: z.literal(true), droppedPendingDeliveries: z.number().int() })) },
        400: { description: 'Malformed id' },
        404: notFound,
      },
      handler: async ({ params, principal }) => ok(await webhooks.delete(principal.accountId, params.id)),
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/:id/secret',
      operationId: 'getWebhookSecret',
      summary: 'Reveal the signing secret (and the previous one during a rotation)',
      tags: TAGS,
      auth: 'webhooks:manage',
      approvalBound: 'secret',
      params: IdParams,
      responses: { 200: { description: 'The secret', schema: dataResponseSchema(WebhookSecretSchema) }, 404: notFound },
      handler: async ({ res, params, principal }) => {
        res.setHeader('Cache-Control', 'no-store');
        return ok(await webhooks.revealSecret(principal.accountId, params.id));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:id/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret; the old one keeps signing beside the new one for overlapHours',
      tags: TAGS,
      auth: 'webhooks:manage',
      approvalBound: 'secret',
      params: IdParams,
      body: RotateSecretSchema,
      responses: { 200: { description: 'The new secret and the previous one with its expiry', schema: dataResponseSchema(WebhookSecretSchema) }, 404: notFound },
      handler: async ({ res, params, body, principal }) => {
        res.setHeader('Cache-Control', 'no-store');
        return ok(await webhooks.rotateSecret(principal.accountId, params.id, body));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:id/test',
      operationId: 'testWebhook',
      summary: 'Send a signed webhook_test event now and report the receiver’s answer',
      tags: TAGS,
      auth: 'webhooks:manage',
      params: IdParams,
      responses: { 200: { description: 'The attempt (delivered or not)', schema: dataResponseSchema(TestResultSchema) }, 404: notFound },
      handler: async ({ params, principal }) => ok(await webhooks.test(principal.accountId, params.id)),
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'The delivery log: deliveries newest first, each with its attempts',
      tags: TAGS,
      auth: 'messages:read',
      params: IdParams,
      query: DeliveriesQuerySchema,
      responses: { 200: { description: '{data, pagination}', schema: cursorListSchema(DeliverySchema) }, 400: { description: 'Bad query or cursor' }, 404: notFound },
      handler: ({ params, query, principal }) => webhooks.deliveries(principal.accountId, params.id, query),
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
      operationId: 'redeliverWebhookDelivery',
      summary: 'Post a delivery’s event again now (same event id and body, new signature)',
      tags: TAGS,
      auth: 'webhooks:manage',
      params: DeliveryParams,
      responses: { 200: { description: 'The attempt', schema: dataResponseSchema(TestResultSchema) }, 404: { description: 'Unknown webhook or delivery' }, 409: { description: 'An attempt is in progress' } },
      handler: async ({ params, principal }) => ok(await webhooks.redeliver(principal.accountId, params.id, params.deliveryId)),
    }),
  ];
}
