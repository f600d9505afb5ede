import type { Response } from 'express';
import { createContext, h, type VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** Values a middleware put in `res.locals.page` for every page of a section (the console's approval count). */
export interface PageLocalValues {
  approvalsWaiting?: number;
}

export const PageLocals = createContext<PageLocalValues>({});

/** Renders a page component. Preact escapes every string it renders: no raw HTML goes out. */
export function sendPage<P>(res: Response, page: VNode<P>, status = 200): void {
  res.status(status).type('html').setHeader('Cache-Control', 'no-store');
  const locals = (res.locals as { page?: PageLocalValues }).page ?? {};
  res.send(`<!doctype html>${renderToString(h(PageLocals.Provider, { value: locals }, page as VNode))}`);
}
