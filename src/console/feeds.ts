import type { JobsService } from '../messaging/jobs-service.js';
import type { LogService } from '../messaging/log-service.js';
import type { PreviewsService } from '../previews/service.js';
import type { SendersService } from '../senders/service.js';
import { toIso } from '../platform/clock.js';
import type { ConsoleSources } from './sources.js';

/** The console's data from the previews and messaging areas (see sources.ts). */
export function consoleFeeds({ previews, log, jobs, senders }: { previews: PreviewsService; log: LogService; jobs: JobsService; senders: SendersService }): ConsoleSources {
  return {
    approvalsWaiting: (accountId) => previews.countWaiting(accountId),
    pendingPreviews: async (accountId) =>
      (await previews.listOpen(accountId, 20)).map((row) => {
        const r = previews.toResult(row);
        const p = r.payload as { campaignName?: string; content?: { text?: string; title?: string }; message?: string };
        const summary = p.campaignName ?? p.message ?? p.content?.text ?? p.content?.title ?? r.kind;
        return {
          id: r.preview_id,
          channel: r.kind === 'sms' ? ('SMS' as const) : ('RCS' as const),
          summary: summary.length > 80 ? `${summary.slice(0, 77)}…` : summary,
          recipients: r.recipients.accepted,
          shareUrl: r.share_url,
          createdAt: toIso(row.created_at)!,
          expiresAt: r.expires_at,
        };
      }),
    recentMessages: async (accountId) => {
      const page = await log.list(accountId, { limit: 10 });
      const names = new Map((await senders.list(accountId)).map((s) => [s.id, s.name]));
      return page.messages.map((m) => ({ id: m.id, channel: m.type, to: m.phoneNumber, status: m.status, senderName: names.get(m.sendernameId), createdAt: m.createdAt, approvedBy: m.approvedBy, approvedAt: m.approvedAt }));
    },
    batchJobs: async (accountId) =>
      (await jobs.list(accountId, { limit: 10 })).data.map((j) => ({
        id: j.jobId,
        campaignName: j.campaignName ?? undefined,
        status: j.status,
        total: j.progress.total,
        processed: j.progress.sent + j.progress.failed,
        failed: j.progress.failed,
        createdAt: j.createdAt,
      })),
  };
}
