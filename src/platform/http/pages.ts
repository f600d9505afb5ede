import type { Response } from 'express';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** Renders a page component. Preact escapes every string it renders: no raw HTML goes out. */
export function sendPage<P>(res: Response, page: VNode<P>, status = 200): void {
  res.status(status).type('html').setHeader('Cache-Control', 'no-store');
  res.send(`<!doctype html>${renderToString(page as VNode)}`);
}
