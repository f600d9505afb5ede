import { z } from 'zod';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { AppError } from '../platform/errors.js';
import { parseOrThrow } from '../platform/validation.js';
import { milliToCredits } from '../billing/pricing.js';
import { MESSAGE_STATUSES } from './records.js';
import type { StatsResponseSchema } from './schemas.js';

const DAY = 86_400_000;
export const STATS_PERIODS = { today: 1, '7d': 7, '30d': 30, '90d': 90 } as const;

const DateParam = z.string().max(40).refine((s) => !Number.isNaN(Date.parse(s)), { message: 'must be an ISO 8601 date-time' });

/** GET /stats query: a period, or a custom range that overrides it. */
export const StatsQuerySchema = z.strictObject({
  period: z.enum(Object.keys(STATS_PERIODS) as [keyof typeof STATS_PERIODS]).default('7d').describe('today (since midnight UTC), 7d, 30d or 90d'),
  startDate: DateParam.optional(),
  endDate: DateParam.optional(),
});

export interface StatsDeps {
  db: Db;
  clock: Clock;
}

/** Counts by status and channel and credits spent, over a time range (spec §4.1 /stats). */
export class StatsService {
  constructor(private readonly d: StatsDeps) {}

  async stats(accountId: string, rawQuery: unknown): Promise<z.output<typeof StatsResponseSchema>> {
    const q = parseOrThrow(StatsQuerySchema, rawQuery, 'Query');
    const now = this.d.clock.now();
    let start: number;
    let end = now;
    if (q.startDate || q.endDate) {
      end = q.endDate ? Date.parse(q.endDate) : now;
      start = q.startDate ? Date.parse(q.startDate) : end - 7 * DAY;
      if (start > end) throw new AppError('VALIDATION_ERROR', 'startDate must not be after endDate', { details: [{ path: 'startDate', code: 'invalid_range', message: 'startDate is after endDate' }] });
    } else if (q.period === 'today') {
      start = now - (now % DAY);
    } else {
      start = now - STATS_PERIODS[q.period] * DAY;
    }
    const rows = await this.d.db
      .selectFrom('messages')
      .select((eb) => ['type', 'status', 'direction', 'method', 'fallback_used', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('credits_cost_milli').as('credits')])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', start)
      .where('created_at', '<=', end)
      .groupBy(['type', 'status', 'direction', 'method', 'fallback_used'])
      .execute();
    const byStatus: Record<string, number> = Object.fromEntries(MESSAGE_STATUSES.map((s) => [s, 0]));
    const byType = { RCS: 0, SMS: 0 };
    const deliveredBy = { RCS: 0, SMS: 0 };
    let total = 0;
    let inbound = 0;
    let fallbacks = 0;
    let credits = 0;
    for (const r of rows) {
      const n = Number(r.n);
      total += n;
      byStatus[r.status] = (byStatus[r.status] ?? 0) + n;
      byType[r.type] += n;
      if (r.direction === 'INBOUND') inbound += n;
      if (r.fallback_used === 1) fallbacks += n;
      if (r.method) deliveredBy[r.method] += n;
      credits += Number(r.credits ?? 0);
    }
    const reached = (byStatus.SENT ?? 0) + (byStatus.DELIVERED ?? 0) + (byStatus.READ ?? 0);
    return {
      success: true as const,
      range: { startDate: new Date(start).toISOString(), endDate: new Date(end).toISOString(), period: q.startDate || q.endDate ? 'custom' : q.period },
      totals: {
        messages: total,
        outbound: total - inbound,
        inbound,
        byStatus,
        byType,
        sentByMethod: deliveredBy,
        fallbackUsed: fallbacks,
        deliveryRate: reached === 0 ? 0 : Math.round((((byStatus.DELIVERED ?? 0) + (byStatus.READ ?? 0)) / reached) * 1000) / 10,
        readRate: reached === 0 ? 0 : Math.round(((byStatus.READ ?? 0) / reached) * 1000) / 10,
      },
      creditsSpent: milliToCredits(credits),
    };
  }
}
