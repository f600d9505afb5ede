import type { InteractionsService } from './interactions-service.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { InteractionListResponseSchema, InteractionsQuerySchema } from './schemas.js';

/** GET {base_url}/interactions: the REST twin of list_rcs_interactions (spec §4.7). */
export function interactionsRoutes({ interactions }: { interactions: InteractionsService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/interactions',
      operationId: 'listInteractions',
      summary: 'Chip/button taps and replies, newest first (filters: campaign, phone, type, date range)',
      tags: ['Conversations'],
      auth: 'messages:read',
      query: InteractionsQuerySchema,
      responses: { 200: { description: 'Page of interactions', schema: InteractionListResponseSchema }, 400: { description: 'Validation error or bad cursor' } },
      handler: ({ principal, query }) => interactions.list(principal.accountId, query),
    }),
  ];
}
