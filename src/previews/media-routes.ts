import { Router, type Response } from 'express';
import { requireLogin } from '../accounts/session-middleware.js';
import type { Config } from '../config.js';
import { isAppError } from '../platform/errors.js';
import { isSampleUrl } from '../sandbox/samples.js';
import type { PreviewMediaFetcher } from './media-fetch.js';
import type { PreviewsService } from './service.js';
import { shareMediaUrls } from './share-media.js';
import { hostOf } from '../../preview-pages/phone/media-list.js';
import { loggedIn } from '../platform/http/logged-in.js';

const SLUG_RE = /^[A-Za-z0-9_-]{10,64}$/;

/** Nothing in a proxied answer may run, be sniffed into something else, or be shared by caches. */
function lockDown(res: Response, cache: string): void {
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', cache);
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

function answer(res: Response, status: number, text: string): void {
  lockDown(res, 'no-store');
  res.status(status).type('text/plain; charset=utf-8').send(text);
}

/**
 * GET /preview/<slug>/media/<n>: the n-th media URL stored in the preview (share-media.ts),
 * fetched by this server (media-fetch.ts) so the share page never makes the person's browser
 * contact a host the assistant chose. Only a logged-in person of the owning account; another
 * account's slug, an unknown one and an index past the list are a 404. A URL the server will not
 * or cannot show answers 502 with the reason as text: the page's <img> then shows its alt text,
 * which names the host.
 */
export function previewMediaRoutes({ previews, previewMedia, config }: { previews: PreviewsService; previewMedia: PreviewMediaFetcher; config: Pick<Config, 'publicUrl'> }): Router {
  const router = Router();
  router.get('/preview/:slug/media/:n', requireLogin, async (req, res) => {
    const slug = String(req.params.slug);
    const n = String(req.params.n);
    if (!SLUG_RE.test(slug) || !/^(0|[1-9][0-9]{0,2})$/.test(n)) return answer(res, 404, 'Not found');
    const s = loggedIn(req);
    let url: string | undefined;
    try {
      url = shareMediaUrls(await previews.bySlug(s.accountId, slug))[Number(n)];
    } catch (err) {
      if (isAppError(err) && err.code === 'NOT_FOUND') return answer(res, 404, 'Not found');
      throw err;
    }
    if (url === undefined) return answer(res, 404, 'Not found');
    // This server's own samples are served by this server; the page links them directly.
    if (isSampleUrl(url, config.publicUrl)) return res.redirect(303, new URL(url).pathname);
    const result = await previewMedia.fetch(url);
    if (!result.ok) return answer(res, 502, `Not loaded from ${hostOf(url)}: ${result.reason}.`);
    lockDown(res, 'private, max-age=300');
    res.status(200).type(result.contentType).setHeader('Content-Length', String(result.body.length));
    res.end(result.body);
  });
  return router;
}
