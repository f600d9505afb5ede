/**
 * Cursor and page pagination shared by every list (DESIGN §4).
 *
 * Cursor lists are keyset-paginated on (sort value, id): the cursor carries the last row's sort
 * value and id, and the next page is every row strictly after that pair in the list's order. A
 * walk therefore visits each row at most once even while rows are inserted or deleted, and rows
 * present for the whole walk are visited exactly once (as long as their sort value does not
 * change during the walk). Cursors are opaque base64url JSON; they also name the list, sort and
 * order they were made for, so a cursor cannot be replayed against another list or ordering. A
 * cursor that does not decode, or was made for something else, is a 400 INVALID_CURSOR.
 *
 * Page lists (templates, spec §4.6) use page/limit and report the total.
 */
import { sql, type Expression, type SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import { AppError } from './errors.js';

export type SortOrder = 'asc' | 'desc';
export type SortValue = string | number;

/** What a cursor was made for: the list (e.g. 'contacts', 'messages'), its sort key and order. */
export interface CursorScope {
  kind: string;
  sort: string;
  order: SortOrder;
}

/** The position a cursor points after: the last row's sort value and id. */
export interface CursorPosition {
  value: SortValue;
  id: string;
}

export interface CursorPagination {
  /** Pass as `cursor` to get the next page; null on the last page. */
  nextCursor: string | null;
  hasNext: boolean;
  limit: number;
  /** Number of items on this page. */
  count: number;
}

export interface CursorPage<T> {
  data: T[];
  pagination: CursorPagination;
}

export interface PagePagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export interface PagedList<T> {
  data: T[];
  pagination: PagePagination;
}

const MAX_CURSOR_LENGTH = 2048;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function invalidCursor(reason: string): AppError {
  return new AppError('INVALID_CURSOR', `Invalid cursor: ${reason}. Use pagination.nextCursor from the previous page unchanged, or omit cursor to start again.`, {
    details: [{ path: 'cursor', code: 'invalid_cursor', message: reason }],
  });
}

export function encodeCursor(scope: CursorScope, position: CursorPosition): string {
  const payload = { k: scope.kind, s: scope.sort, o: scope.order, v: position.value, i: position.id };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** Decodes a cursor made by encodeCursor for the same scope; anything else is 400 INVALID_CURSOR. */
export function decodeCursor(cursor: string, scope: CursorScope): CursorPosition {
  if (typeof cursor !== 'string' || cursor.length === 0) throw invalidCursor('empty');
  if (cursor.length > MAX_CURSOR_LENGTH) throw invalidCursor('too long');
  if (!BASE64URL.test(cursor)) throw invalidCursor('not base64url');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('does not decode');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw invalidCursor('does not decode');
  const p = payload as Record<string, unknown>;
  if (p.k !== scope.kind) throw invalidCursor('made for another list');
  if (p.s !== scope.sort || p.o !== scope.order) throw invalidCursor(`made for another sort/order (this request sorts by ${scope.sort} ${scope.order})`);
  const value = p.v;
  if (!(typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))) throw invalidCursor('bad position');
  if (typeof p.i !== 'string' || p.i.length === 0 || p.i.length > 200) throw invalidCursor('bad position');
  return { value, id: p.i };
}

/** Query fields `limit` and `cursor` of a cursor list, for the list's zod query schema. */
export function cursorQueryFields(opts: { defaultLimit: number; maxLimit: number }) {
  return {
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(opts.maxLimit)
      .default(opts.defaultLimit)
      .describe('Page size.'),
    cursor: z.string().max(MAX_CURSOR_LENGTH).optional().describe('From pagination.nextCursor.'),
  };
}

/** Query fields `page` and `limit` of a page list. */
export function pageQueryFields(opts: { defaultLimit: number; maxLimit: number }) {
  return {
    page: z.coerce.number().int().min(1).max(1_000_000).default(1).describe('Page number.'),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(opts.maxLimit)
      .default(opts.defaultLimit)
      .describe('Page size.'),
  };
}

export const CursorPaginationSchema = z.object({
  nextCursor: z.string().nullable().describe('Cursor of the next page; null on the last page.'),
  hasNext: z.boolean(),
  limit: z.number().int(),
  count: z.number().int().describe('Items on this page.'),
});

export const PagePaginationSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int().describe('Items matching the filters, over all pages.'),
  totalPages: z.number().int(),
});

/** `{data: Item[], pagination}` of a cursor list, for OpenAPI. */
export const cursorListSchema = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), pagination: CursorPaginationSchema });
/** `{data: Item[], pagination}` of a page list, for OpenAPI. */
export const pageListSchema = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), pagination: PagePaginationSchema });

export interface KeysetOptions {
  scope: CursorScope;
  /**
   * SQL expression the list is ordered by. It must never be NULL (wrap nullable columns in
   * coalesce). Its value is selected from the database for the cursor, so any expression works.
   */
  sortExpr: Expression<unknown>;
  /** The row id column, e.g. sql.ref('contacts.id'); the tie-breaker of equal sort values. */
  idExpr: Expression<unknown>;
  /** Name the row id is selected under (default 'id'). */
  idKey?: string;
  limit: number;
  cursor?: string | undefined;
}

const SORT_KEY = '__sort_key';

/**
 * Runs `qb` (filters already applied, no order/limit) as one page of a keyset walk and returns
 * the rows with the cursor pagination object.
 */
export async function keysetPage<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  opts: KeysetOptions,
): Promise<{ rows: O[]; pagination: CursorPagination }> {
  const { scope, sortExpr, idExpr, limit } = opts;
  const idKey = opts.idKey ?? 'id';
  let q = qb.select(sql`${sortExpr}`.as(SORT_KEY)) as unknown as SelectQueryBuilder<DB, TB, O & Record<typeof SORT_KEY, SortValue>>;
  if (opts.cursor !== undefined) {
    const after = decodeCursor(opts.cursor, scope);
    const op = sql.raw(scope.order === 'asc' ? '>' : '<');
    q = q.where(sql<boolean>`(${sortExpr} ${op} ${after.value} or (${sortExpr} = ${after.value} and ${idExpr} ${op} ${after.id}))`);
  }
  const rows = await q.orderBy(sortExpr, scope.order).orderBy(idExpr, scope.order).limit(limit + 1).execute();
  const hasNext = rows.length > limit;
  const page = hasNext ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1] as (Record<string, unknown> & Record<typeof SORT_KEY, SortValue>) | undefined;
  let nextCursor: string | null = null;
  if (hasNext && last) {
    const raw = last[SORT_KEY];
    const value: SortValue = typeof raw === 'number' ? raw : typeof raw === 'bigint' ? Number(raw) : String(raw);
    nextCursor = encodeCursor(scope, { value, id: String(last[idKey]) });
  }
  const out = page.map((r) => {
    const copy = { ...(r as Record<string, unknown>) };
    delete copy[SORT_KEY];
    return copy as O;
  });
  return { rows: out, pagination: { nextCursor, hasNext, limit, count: out.length } };
}

/** The pagination object of a page list. */
export function pagePagination(page: number, limit: number, total: number): PagePagination {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}

/** A single-page cursor result (lists that bypass pagination, such as the exact phone lookup). */
export function singlePage<T>(data: T[], limit: number): CursorPage<T> {
  return { data, pagination: { nextCursor: null, hasNext: false, limit, count: data.length } };
}

// ---- response envelopes (docs/decisions.md "Response shapes") ----------------------------------

/** A single resource: `{success: true, data}`. */
export interface DataResponse<T> {
  success: true;
  data: T;
}
export const ok = <T>(data: T): DataResponse<T> => ({ success: true, data });
/** `{success: true, data: Item}`, for OpenAPI. */
export const dataResponseSchema = <T extends z.ZodType>(item: T) => z.object({ success: z.literal(true), data: item });
