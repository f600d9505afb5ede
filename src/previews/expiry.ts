import { PollingLoop } from '../platform/polling-loop.js';
import { EXPIRY_ROUND, type PreviewsService } from './service.js';

/** How often an instance looks for previews that expired (preview.expired is raised within this). */
export const PREVIEW_EXPIRY_INTERVAL_MS = 15_000;

/**
 * The expiry loop of previews: every instance runs it; each expired preview is marked once by a
 * conditional update (PreviewsService.noticeExpired), so preview.expired is raised once however
 * many instances look. A full round goes again at once.
 */
export function startPreviewExpiry(previews: Pick<PreviewsService, 'noticeExpired'>, onError: (err: unknown) => void, intervalMs = PREVIEW_EXPIRY_INTERVAL_MS): PollingLoop {
  const loop = new PollingLoop(async () => ((await previews.noticeExpired()) >= EXPIRY_ROUND ? 0 : intervalMs), onError, intervalMs);
  loop.start();
  return loop;
}
