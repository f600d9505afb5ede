import { z } from 'zod';
import type { SendService } from './send-service.js';
import { defineRoute, reply, type RouteSpec } from '../platform/http/route.js';
import { pageListSchema } from '../platform/pagination.js';
import { JobsQuerySchema, type JobsService } from './jobs-service.js';
import {
  BatchResponseSchema,
  CancelBatchResponseSchema,
  JobSchema,
  QueueStatusResponseSchema,
  RECIPIENT_THROTTLED,
  ScheduledSendResponseSchema,
  SendBatchRequestSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  SendSmsRequestSchema,
  SendSmsResponseSchema,
  StatsResponseSchema,
} from './schemas.js';
import { StatsQuerySchema, type StatsService } from './stats-service.js';
import { parseSendBody } from './prepare.js';
import { spenderOf } from '../billing/budgets.js';

const JobIdParams = z.object({ jobId: z.string() });
const errors = { 400: { description: 'Validation error (details name the paths)' }, 403: { description: 'Missing permission, approval required, or BUDGET_EXCEEDED: a limit of the credential (credits per day of the account time zone, recipients per send)' }, 404: { description: 'Not found' } };

/** Sending, jobs, queue and stats under {base_url} (spec §4.1). Thin: the services hold the rules. */
export function messagingRoutes({ send, jobs, stats }: { send: SendService; jobs: JobsService; stats: StatsService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/send',
      operationId: 'sendMessage',
      idempotent: true,
      summary: 'Send one RCS message (immediately or scheduled), with optional SMS fallback',
      tags: ['Messaging'],
      auth: 'messages:write',
      approvalBound: 'send',
      bodyDoc: SendMessageRequestSchema,
      responses: { 200: { description: 'Sent, queued or scheduled', schema: z.union([SendMessageResponseSchema, ScheduledSendResponseSchema]) }, ...errors, 429: RECIPIENT_THROTTLED },
      handler: ({ principal, body }) => send.send(principal.accountId, parseSendBody(SendMessageRequestSchema, body), { spender: spenderOf(principal) }),
    }),
    defineRoute({
      method: 'post',
      path: '/send-batch',
      operationId: 'sendBatch',
      idempotent: true,
      summary: 'Send one RCS message to up to 10,000 recipients as a background job',
      tags: ['Messaging'],
      auth: 'messages:write',
      approvalBound: 'send',
      bodyDoc: SendBatchRequestSchema,
      responses: { 200: { description: 'Scheduled: scheduleAt was given, or quiet hours held back every recipient', schema: BatchResponseSchema }, 202: { description: 'Queued for background processing', schema: BatchResponseSchema }, 400: errors[400], 403: errors[403] },
      handler: async ({ principal, body }) => {
        const result = await send.sendBatch(principal.accountId, parseSendBody(SendBatchRequestSchema, body), { spender: spenderOf(principal) });
        return reply(result.scheduled ? 200 : 202, result);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/send-sms',
      operationId: 'sendSms',
      idempotent: true,
      summary: 'Send a standalone SMS, billed per segment after merge fields are filled in',
      tags: ['Messaging'],
      auth: 'messages:write',
      approvalBound: 'send',
      bodyDoc: SendSmsRequestSchema,
      responses: { 200: { description: 'Sent, queued or scheduled', schema: z.union([SendSmsResponseSchema, ScheduledSendResponseSchema]) }, ...errors, 429: RECIPIENT_THROTTLED },
      handler: ({ principal, body }) => send.sendSms(principal.accountId, parseSendBody(SendSmsRequestSchema, body), { spender: spenderOf(principal) }),
    }),
    defineRoute({
      method: 'get',
      path: '/batch/:jobId/status',
      operationId: 'getBatchStatus',
      summary: 'Progress of a batch or scheduled job',
      tags: ['Jobs'],
      auth: 'messages:read',
      params: JobIdParams,
      responses: { 200: { description: 'Job', schema: z.object({ success: z.literal(true), job: JobSchema }) }, ...errors },
      handler: async ({ principal, params }) => ({ success: true, job: await jobs.status(principal.accountId, params.jobId) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/batch/:jobId',
      operationId: 'cancelBatch',
      summary: 'Cancel a pending or in-progress job; only unsent messages are affected',
      tags: ['Jobs'],
      auth: 'messages:write',
      params: JobIdParams,
      responses: { 200: { description: 'Cancelled (or nothing left to cancel)', schema: CancelBatchResponseSchema }, ...errors },
      handler: ({ principal, params }) => jobs.cancel(principal.accountId, params.jobId),
    }),
    defineRoute({
      method: 'get',
      path: '/jobs',
      operationId: 'listJobs',
      summary: 'Batch and scheduled jobs, newest first',
      tags: ['Jobs'],
      auth: 'messages:read',
      query: JobsQuerySchema,
      responses: { 200: { description: 'Page of jobs', schema: pageListSchema(JobSchema) }, 400: errors[400] },
      handler: ({ principal, query }) => jobs.list(principal.accountId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/queue/status',
      operationId: 'getQueueStatus',
      summary: 'What is still queued or scheduled for this account',
      tags: ['Jobs'],
      auth: 'messages:read',
      responses: { 200: { description: 'Queue status', schema: QueueStatusResponseSchema } },
      handler: ({ principal }) => jobs.queueStatus(principal.accountId),
    }),
    defineRoute({
      method: 'get',
      path: '/stats',
      operationId: 'getMessageStats',
      summary: 'Message counts by status and channel, and credits spent',
      tags: ['Messaging'],
      auth: 'messages:read',
      query: StatsQuerySchema,
      responses: { 200: { description: 'Statistics', schema: StatsResponseSchema }, 400: errors[400] },
      handler: ({ principal, query }) => stats.stats(principal.accountId, query),
    }),
  ];
}
