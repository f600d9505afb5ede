import { z } from 'zod';
import { JobsQuerySchema } from '../src/messaging/jobs-service.js';
import { JobSchema } from '../src/messaging/schemas.js';
import { PagePaginationSchema } from '../src/platform/pagination.js';
import { DELETE, READ, defineTool } from './types.js';

const JobId = z.string().max(64).describe('Of a batch or scheduled send.');

export const rcsBatchStatus = defineTool({
  name: 'rcs_batch_status',
  title: 'Job progress',
  description: 'Progress of a batch or scheduled job: status, counts per outcome, and numbers refused at accept time with reasons.',
  toolset: 'jobs',
  permissions: ['messages:read'],
  input: z.strictObject({ jobId: JobId }),
  output: z.object({ success: z.literal(true), job: JobSchema }),
  annotations: READ,
  uses: ['jobs'],
  run: async ({ jobs, principal }, input) => ({ success: true as const, job: await jobs.status(principal.accountId, input.jobId) }),
});

export const rcsBatchCancel = defineTool({
  name: 'rcs_batch_cancel',
  title: 'Cancel a job',
  description:
    'Cancels and refunds what is not yet sent of a batch or scheduled send (a finished job: nothingLeftToCancel). Confirm with the user first.',
  toolset: 'jobs',
  permissions: ['messages:write'],
  input: z.strictObject({ jobId: JobId }),
  output: z.object({
    success: z.literal(true),
    jobId: z.string(),
    cancelledMessages: z.number().int(),
    creditsRefunded: z.number(),
    nothingLeftToCancel: z.boolean().describe('true when no unsent message was left: the job had finished or was cancelled before; nothing changed.'),
    message: z.string().describe('What happened, in a sentence for the user.'),
    job: JobSchema,
  }),
  annotations: DELETE,
  uses: ['jobs'],
  run: async ({ jobs, principal }, input) => {
    const r = await jobs.cancel(principal.accountId, input.jobId);
    const nothing = r.cancelledMessages === 0;
    const message = nothing
      ? `Nothing was left to cancel: the job is ${r.job.status} (${r.job.progress.sent} sent, ${r.job.progress.cancelled} cancelled before); nothing changed and nothing was refunded.`
      : `Cancelled ${r.cancelledMessages} unsent message${r.cancelledMessages === 1 ? '' : 's'} and refunded ${r.creditsRefunded} credits; messages already sent stay sent.`;
    return { ...r, nothingLeftToCancel: nothing, message };
  },
});

export const rcsJobs = defineTool({
  name: 'rcs_jobs',
  title: 'List jobs',
  description: 'Batch and scheduled jobs, newest first, by status, type and creation date; page-based.',
  toolset: 'jobs',
  permissions: ['messages:read'],
  input: z.strictObject({
    ...JobsQuerySchema.shape,
    status: JobsQuerySchema.shape.status.describe('Omit for all.'),
    type: JobsQuerySchema.shape.type.describe('batch or scheduled single send; omit for both.'),
    page: JobsQuerySchema.shape.page.describe('Page number.'),
    limit: JobsQuerySchema.shape.limit.describe('Jobs per page.'),
  }),
  output: z.object({ data: z.array(JobSchema), pagination: PagePaginationSchema }),
  annotations: READ,
  uses: ['jobs'],
  run: ({ jobs, principal }, input) => jobs.list(principal.accountId, input),
});

export const jobsTools = [rcsBatchStatus, rcsBatchCancel, rcsJobs];
