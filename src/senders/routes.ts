import { z } from 'zod';
import type { SendersService } from './service.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { SendernameSchema, SenderTypeSchema } from './schemas.js';

/** GET {base_url}/senders (spec §4.1, §2.6). */
export function sendersRoutes({ senders }: { senders: SendersService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/senders',
      operationId: 'listSenders',
      summary: 'Sender identities (SMS and RCS) of the account',
      tags: ['Senders'],
      auth: 'authenticated',
      query: z.strictObject({ type: z.preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), SenderTypeSchema).optional() }),
      responses: { 200: { description: 'Senders', schema: z.object({ success: z.literal(true), count: z.number().int(), sendernames: z.array(SendernameSchema) }) }, 400: { description: 'Unknown type' } },
      handler: async ({ principal, query }) => {
        const sendernames = await senders.list(principal.accountId, query.type);
        return { success: true, count: sendernames.length, sendernames };
      },
    }),
  ];
}
