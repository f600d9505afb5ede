import { Router } from 'express';
import { h } from 'preact';
import type { Config } from '../config.js';
import type { Clock } from '../platform/clock.js';
import { sendPage } from '../platform/http/pages.js';
import { SandboxPage } from './sandbox-page.js';
import { sampleSrc } from './samples.js';
import { SANDBOX_MERGE_VALUES, SHARE_PAGE_PATH, type SandboxService } from './service.js';

/** Sender shown in sandbox phone mockups (there is no account, so no sender). */
export const SANDBOX_SENDER_NAME = SANDBOX_MERGE_VALUES.company_name ?? 'Sandbox';

/**
 * GET /sandbox/p/:slug — the share page of a sandbox preview: public, no session, no script.
 * Page views are not rate limited (the JSON endpoint is); an unknown or expired slug is a 404 page.
 */
export function sandboxPages({ sandbox, config, clock }: { sandbox: SandboxService; config: Pick<Config, 'publicUrl'>; clock: Clock }): Router {
  const router = Router();
  router.get(`${SHARE_PAGE_PATH}/:slug`, async (req, res) => {
    const preview = await sandbox.getPreview(String(req.params.slug));
    const publicUrl = config.publicUrl;
    res.setHeader('X-Robots-Tag', 'noindex, nofollow');
    sendPage(res, h(SandboxPage, { preview, now: clock.now(), senderName: SANDBOX_SENDER_NAME, mediaSrc: (url: string) => sampleSrc(url, publicUrl) }));
  });
  return router;
}
