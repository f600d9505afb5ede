import { z } from 'zod';
import type { LogService } from './log-service.js';
import { CursorPaginationSchema } from '../platform/pagination.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { LogQuerySchema } from './log-service.js';
import { MessageContentSchema, MessageLogRecordSchema } from './records.js';
import { CancelScheduledResponseSchema } from './schemas.js';

const IdParams = z.object({ id: z.string() });

/** The message log under {messages_url} (spec §4.3). */
export function logRoutes({ log }: { log: LogService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/log',
      operationId: 'listMessageLog',
      summary: 'Message history, newest first (default last 7 days, at most 31)',
      tags: ['Message log'],
      auth: 'messages:read',
      query: LogQuerySchema,
      responses: { 200: { description: 'Page of messages', schema: z.object({ messages: z.array(MessageLogRecordSchema), pagination: CursorPaginationSchema }) }, 400: { description: 'Bad dates, range or cursor' } },
      handler: ({ principal, req }) => log.list(principal.accountId, req.query),
    }),
    defineRoute({
      method: 'get',
      path: '/:id/content',
      operationId: 'getMessageContent',
      summary: 'The full content of one message',
      tags: ['Message log'],
      auth: 'messages:read',
      params: IdParams,
      responses: { 200: { description: 'Message content', schema: MessageContentSchema }, 400: { description: 'Invalid id' }, 404: { description: 'Not found' } },
      handler: ({ principal, params }) => log.content(principal.accountId, params.id),
    }),
    defineRoute({
      method: 'delete',
      path: '/:id',
      operationId: 'cancelScheduledMessage',
      summary: 'Cancel one scheduled message (the record is removed and refunded)',
      tags: ['Message log'],
      auth: 'messages:write',
      params: IdParams,
      responses: { 200: { description: 'Cancelled', schema: CancelScheduledResponseSchema }, 400: { description: 'Invalid id' }, 404: { description: 'Not found, not scheduled, or not yours' } },
      handler: ({ principal, params }) => log.cancelScheduled(principal.accountId, params.id),
    }),
  ];
}
