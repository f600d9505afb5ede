import { z } from 'zod';
import { JobsQuerySchema } from '../src/messaging/jobs-service.js';
import { JobSchema } from '../src/messaging/schemas.js';
import { CursorPaginationSchema, PagePaginationSchema, pagePagination } from '../src/platform/pagination.js';
import { INBOX_STATES } from '../src/previews/audit.js';
import { InboxItemSchema } from '../src/previews/inbox-schemas.js';
import { DELETE, READ, defineTool, pagePaging } from './types.js';

interface InboxPage {
  previews: { data: readonly unknown[]; pagination: { nextCursor: string | null } };
}

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
  title: 'List jobs and previews',
  description:
    'Batch and scheduled jobs, newest first, by status, type and creation date; page-based. With `previews`: your previews in that state instead (waiting = the user has not approved yet), newest first, with share_url; cursor-paged.',
  toolset: 'jobs',
  permissions: ['messages:read'],
  input: z.strictObject({
    ...JobsQuerySchema.shape,
    status: JobsQuerySchema.shape.status.describe('Omit for all.'),
    type: JobsQuerySchema.shape.type.describe('batch or scheduled single send; omit for both.'),
    page: JobsQuerySchema.shape.page.describe('Page number.'),
    limit: JobsQuerySchema.shape.limit.describe('Jobs (or previews) per page.'),
    previews: z.enum(INBOX_STATES).optional().describe('List previews in this state instead of jobs.'),
    previewsCursor: z.string().max(2048).optional().describe('previews.pagination.nextCursor.'),
  }),
  output: z.object({
    data: z.array(JobSchema),
    pagination: PagePaginationSchema,
    previews: z.object({ data: z.array(InboxItemSchema), pagination: CursorPaginationSchema }).optional().describe('With `previews` (data is then empty).'),
  }),
  annotations: READ,
  // With `previews` the page is the inbox's, continued by previewsCursor; otherwise numbered pages of jobs.
  paging: (input) =>
    input.previews === undefined
      ? pagePaging()
      : {
          by: 'cursor',
          items: (r) => (r as unknown as InboxPage).previews.data,
          cursorArg: 'previewsCursor',
          nextCursor: (r) => (r as unknown as InboxPage).previews.pagination.nextCursor,
        },
  uses: ['jobs', 'previews'],
  run: async ({ jobs, previews, principal }, input) => {
    const { previews: state, previewsCursor, ...query } = input;
    if (state === undefined) return jobs.list(principal.accountId, query);
    const list = await previews.inbox(principal.accountId, { status: state, limit: query.limit, cursor: previewsCursor });
    return { data: [], pagination: pagePagination(1, query.limit, 0), previews: list };
  },
});

export const jobsTools = [rcsBatchStatus, rcsBatchCancel, rcsJobs];
