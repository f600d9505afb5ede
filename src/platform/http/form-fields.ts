import type { Request } from 'express';

/*
 * Fields of a urlencoded HTML form post (server-rendered pages: console, login, consent, opt-in forms). A missing or
 * repeated-when-one-expected field reads as '' rather than throwing: the page then shows its own message.
 */

/** One text field; '' when missing or not a single string. */
export function field(req: Request, name: string): string {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
}

/** A field that may repeat (checkboxes, multi-selects): every string value, in order. */
export function fieldList(req: Request, name: string): string[] {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
