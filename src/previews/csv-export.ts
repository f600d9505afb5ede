import type { Response } from 'express';
import type { PreviewsService } from './service.js';

/**
 * Streams the account's approval history as CSV (REST and the console share it): written as it is
 * read, 500 records at a time, so a long history does not sit in memory.
 */
export async function sendApprovalsCsv(res: Response, previews: Pick<PreviewsService, 'approvalsCsv'>, accountId: string, now = Date.now()): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="approvals-${new Date(now).toISOString().slice(0, 10)}.csv"`);
  res.setHeader('Cache-Control', 'no-store');
  for await (const chunk of previews.approvalsCsv(accountId)) {
    if (res.destroyed) return;
    if (!res.write(chunk)) await new Promise<void>((resolve) => (res.once('drain', resolve), res.once('close', resolve)));
  }
  res.end();
}
