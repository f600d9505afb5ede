import { z } from 'zod';
import type { Clock } from '../platform/clock.js';
import { toIso } from '../platform/clock.js';
import { inTransaction, type Db } from '../platform/db/database.js';
import { parseJson } from '../platform/db/sql.js';
import type { JobsTable } from './tables.js';
import { AppError } from '../platform/errors.js';
import { assertId } from '../platform/ids.js';
import { pagePagination, type PagedList } from '../platform/pagination.js';
import { parseOrThrow } from '../platform/validation.js';
import { cancelScheduledMessages } from './log-service.js';
import { milliToCredits } from '../billing/pricing.js';
import { JobStatusSchema, type QueueStatusResponseSchema, type Job, type JobStatus, type RejectedRecipient } from './schemas.js';

const DateParam = z.string().max(40).refine((s) => !Number.isNaN(Date.parse(s)), { message: 'must be an ISO 8601 date-time' });

/** GET /jobs query (spec §4.1). */
export const JobsQuerySchema = z.strictObject({
  status: JobStatusSchema.optional(),
  type: z.enum(['batch', 'scheduled']).optional(),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  startDate: DateParam.optional().describe('Jobs created at or after'),
  endDate: DateParam.optional().describe('Jobs created at or before'),
});

interface Counts {
  n: number;
  pending: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  /** What the job's messages cost now (refunds and fallback re-pricing included), 1/1000. */
  credits: number;
}

export interface JobsDeps {
  db: Db;
  clock: Clock;
}

/** Batch and scheduled jobs (spec §3.4): progress derived from their messages, cancellation. */
export class JobsService {
  constructor(private readonly d: JobsDeps) {}

  private async counts(jobIds: string[]): Promise<Map<string, Counts>> {
    const out = new Map<string, Counts>();
    for (let i = 0; i < jobIds.length; i += 500) {
      const rows = await this.d.db
        .selectFrom('messages')
        .select((eb) => [
          'job_id',
          eb.fn.countAll<number>().as('n'),
          eb.fn.sum<number>('pending').as('pending'),
          eb.fn.sum<number>(eb.case().when('status', 'in', ['SENT', 'DELIVERED', 'READ']).then(1).else(0).end()).as('sent'),
          eb.fn.sum<number>(eb.case().when('status', 'in', ['DELIVERED', 'READ']).then(1).else(0).end()).as('delivered'),
          eb.fn.sum<number>(eb.case().when('status', '=', 'READ').then(1).else(0).end()).as('read'),
          eb.fn.sum<number>(eb.case().when('status', 'in', ['FAILED', 'BLOCKED', 'REJECTED']).then(1).else(0).end()).as('failed'),
          eb.fn.sum<number>('credits_cost_milli').as('credits'),
        ])
        .where('job_id', 'in', jobIds.slice(i, i + 500))
        .groupBy('job_id')
        .execute();
      for (const r of rows) out.set(r.job_id!, { n: Number(r.n), pending: Number(r.pending), sent: Number(r.sent), delivered: Number(r.delivered), read: Number(r.read), failed: Number(r.failed), credits: Number(r.credits ?? 0) });
    }
    return out;
  }

  private toJob(job: JobsTable, c: Counts | undefined, now: number): Job {
    const counts = c ?? { n: 0, pending: 0, sent: 0, delivered: 0, read: 0, failed: 0, credits: 0 };
    const done = counts.sent + counts.failed;
    let status: JobStatus;
    // Cancelled as a job, or every message of it cancelled one by one (DELETE /api/messages/{id}).
    if (job.cancelled_at !== null || (counts.n === 0 && job.cancelled_count > 0)) status = 'cancelled';
    else if (counts.pending > 0 && job.scheduled_at !== null && job.scheduled_at > now && done === 0) status = 'scheduled';
    else if (counts.pending > 0) status = 'processing';
    else if (counts.n > 0 && counts.failed === counts.n) status = 'failed';
    else status = 'completed';
    const denominator = counts.n + job.cancelled_count;
    return {
      jobId: job.id,
      type: job.kind,
      channel: job.type,
      status,
      campaignName: job.campaign_name,
      sendernameId: job.sendername_id,
      messageType: job.message_type,
      createdAt: toIso(job.created_at)!,
      scheduledAt: toIso(job.scheduled_at),
      cancelledAt: toIso(job.cancelled_at),
      batchSize: job.batch_size,
      delayMs: job.delay_ms,
      progress: {
        total: job.total,
        pending: counts.pending,
        sent: counts.sent,
        delivered: counts.delivered,
        read: counts.read,
        failed: counts.failed,
        cancelled: job.cancelled_count,
        percent: denominator === 0 ? 100 : Math.round(((done + job.cancelled_count) / denominator) * 1000) / 10,
      },
      rejected: parseJson<RejectedRecipient[]>(job.rejected, []),
      // Derived from the messages like the status: refunds (failed, cancelled) and SMS fallback
      // re-pricing are included; jobs.credits_milli keeps what was debited at accept time.
      creditsCharged: milliToCredits(counts.credits),
    };
  }

  private async row(accountId: string, jobId: string): Promise<JobsTable> {
    assertId('job', jobId, 'jobId');
    const job = await this.d.db.selectFrom('jobs').selectAll().where('id', '=', jobId).where('account_id', '=', accountId).executeTakeFirst();
    if (!job) throw new AppError('NOT_FOUND', 'Job not found');
    return job;
  }

  async status(accountId: string, jobId: string): Promise<Job> {
    const job = await this.row(accountId, jobId);
    return this.toJob(job, (await this.counts([job.id])).get(job.id), this.d.clock.now());
  }

  /**
   * Cancels what has not been sent yet (spec §3.4): unsent messages are removed and refunded;
   * sent ones are untouched. Cancelling a finished or already cancelled job changes nothing and
   * still answers 200 with the job (idempotent).
   */
  async cancel(accountId: string, jobId: string): Promise<{ success: true; jobId: string; cancelledMessages: number; creditsRefunded: number; job: Job }> {
    const job = await this.row(accountId, jobId);
    const now = this.d.clock.now();
    const result = await inTransaction(this.d.db, async (tx) => {
      const r = await cancelScheduledMessages(tx, accountId, { jobId: job.id }, now, ['SCHEDULED', 'SENDING']);
      const pendingLeft = await tx.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('job_id', '=', job.id).where('pending', '=', 1).executeTakeFirstOrThrow();
      if ((r.count > 0 || Number(pendingLeft.n) > 0) && job.cancelled_at === null) {
        await tx.updateTable('jobs').set({ cancelled_at: now }).where('id', '=', job.id).execute();
      }
      return r;
    });
    return { success: true, jobId: job.id, cancelledMessages: result.count, creditsRefunded: milliToCredits(result.credits), job: await this.status(accountId, jobId) };
  }

  async list(accountId: string, rawQuery: unknown): Promise<PagedList<Job>> {
    const q = parseOrThrow(JobsQuerySchema, rawQuery, 'Query');
    let qb = this.d.db.selectFrom('jobs').selectAll().where('account_id', '=', accountId);
    if (q.type) qb = qb.where('kind', '=', q.type);
    if (q.startDate) qb = qb.where('created_at', '>=', Date.parse(q.startDate));
    if (q.endDate) qb = qb.where('created_at', '<=', Date.parse(q.endDate));
    // Status is derived from the messages, so it is filtered after counting. An account's job list
    // is small compared with its messages; docs/decisions.md notes the trade-off.
    const rows = await qb.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    const counts = await this.counts(rows.map((r) => r.id));
    const now = this.d.clock.now();
    let jobs = rows.map((r) => this.toJob(r, counts.get(r.id), now));
    if (q.status) jobs = jobs.filter((j) => j.status === q.status);
    const start = (q.page - 1) * q.limit;
    return { data: jobs.slice(start, start + q.limit), pagination: pagePagination(q.page, q.limit, jobs.length) };
  }

  /** GET /queue/status: what the dispatcher still has to do for this account. */
  async queueStatus(accountId: string): Promise<z.output<typeof QueueStatusResponseSchema>> {
    const now = this.d.clock.now();
    const r = await this.d.db
      .selectFrom('messages')
      .select((eb) => [
        eb.fn.sum<number>(eb.case().when('due_at', '<=', now).then(1).else(0).end()).as('due'),
        eb.fn.sum<number>(eb.case().when('due_at', '>', now).then(1).else(0).end()).as('later'),
        eb.fn.sum<number>(eb.case().when('lease_until', '>', now).then(1).else(0).end()).as('in_flight'),
        eb.fn.min<number>('due_at').as('next_due'),
      ])
      .where('account_id', '=', accountId)
      .where('pending', '=', 1)
      .executeTakeFirst();
    const jobs = await this.list(accountId, { limit: 100 });
    const pendingJobs = jobs.data.filter((j) => j.status === 'processing' || j.status === 'scheduled');
    return {
      success: true as const,
      queue: {
        dueNow: Number(r?.due ?? 0),
        scheduledLater: Number(r?.later ?? 0),
        inFlight: Number(r?.in_flight ?? 0),
        nextDueAt: r?.next_due ? toIso(Number(r.next_due)) : null,
      },
      pendingJobs: pendingJobs.map((j) => ({ jobId: j.jobId, type: j.type, status: j.status, scheduledAt: j.scheduledAt, pending: j.progress.pending, total: j.progress.total })),
      timestamp: new Date(now).toISOString(),
    };
  }
}
