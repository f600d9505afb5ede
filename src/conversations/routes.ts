import type { ConversationsService } from './service.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import {
  BillingPreviewRequestSchema,
  BillingPreviewResponseSchema,
  ConversationListQuerySchema,
  ConversationListResponseSchema,
  ConversationPhoneParamsSchema,
  ConversationStatusQuerySchema,
  ConversationStatusResponseSchema,
  RateLimitResponseSchema,
} from './schemas.js';

const errors = { 400: { description: 'Validation error (details name the paths)' } };

/** Conversations under {base_url} (spec §4.1, §3.3). Thin: ConversationsService holds the rules. */
export function conversationsRoutes({ conversations }: { conversations: ConversationsService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/conversations',
      operationId: 'listConversations',
      summary: 'Conversation windows (ACTIVE or EXPIRED, derived now), newest activity first',
      tags: ['Conversations'],
      auth: 'messages:read',
      query: ConversationListQuerySchema,
      responses: { 200: { description: 'Page of conversations', schema: ConversationListResponseSchema }, ...errors },
      handler: ({ principal, query }) => conversations.list(principal.accountId, query),
    }),
    defineRoute({
      method: 'post',
      path: '/conversations/billing-preview',
      operationId: 'previewConversationBilling',
      summary: 'Which numbers a message sent now would be charged for (open window: free). Read-only.',
      description: 'Up to 1000 numbers. Unreadable numbers get reason ERROR_CHECKING and count as chargeable. Pass sendernameId to get exactly what a send through that sender would cost.',
      tags: ['Conversations'],
      auth: 'messages:read',
      body: BillingPreviewRequestSchema,
      responses: { 200: { description: 'Free and chargeable numbers', schema: BillingPreviewResponseSchema }, ...errors },
      handler: ({ principal, body }) => conversations.billingPreview(principal.accountId, body),
    }),
    defineRoute({
      method: 'get',
      path: '/conversations/:phoneNumber/status',
      operationId: 'getConversationStatus',
      summary: 'Whether a conversation window is open to the number now, and its times',
      tags: ['Conversations'],
      auth: 'messages:read',
      params: ConversationPhoneParamsSchema,
      query: ConversationStatusQuerySchema.pick({ sendernameId: true }),
      responses: { 200: { description: 'Conversation status', schema: ConversationStatusResponseSchema }, ...errors },
      handler: ({ principal, params, query }) => conversations.status(principal.accountId, params.phoneNumber, { sendernameId: query.sendernameId }),
    }),
    defineRoute({
      method: 'get',
      path: '/conversations/:phoneNumber/rate-limit',
      operationId: 'getConversationRateLimit',
      summary: 'The per-recipient throttle for the number: used, remaining, when it frees',
      tags: ['Conversations'],
      auth: 'messages:read',
      params: ConversationPhoneParamsSchema,
      responses: { 200: { description: 'Rate-limit state', schema: RateLimitResponseSchema }, ...errors },
      handler: ({ principal, params }) => conversations.rateLimit(principal.accountId, params.phoneNumber),
    }),
  ];
}
