import type { Paging, ToolDef } from '../../tools/types.js';

/**
 * How big one tool result may be. An assistant reads every byte of a result into its context, and
 * a page of 50 contacts with long custom fields, or 100 jobs, runs to 50–100 KB: most of a small
 * context window, for a list the assistant usually skims. 16 KB (issue #30) is a page of a few
 * dozen ordinary items, so a page of the default size fits unless the items are unusually large.
 */
export const RESULT_BUDGET_BYTES = 16 * 1024;

/** Bytes kept free for the page note and for the shorter `limit` echoed in the pagination. */
const NOTE_ROOM = 512;

/** A result over the budget, re-read as a smaller page, with the sentence telling how to get the rest. */
export interface FittedResult {
  structured: Record<string, unknown>;
  /** `structured` as JSON: the result's text block, serialised once for both the size check and the answer. */
  text: string;
  /** For the assistant, as a second text block after the JSON; absent when the result fitted. */
  note?: string;
}

type Rerun = (input: Record<string, unknown>) => Promise<Record<string, unknown>>;

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * Keeps a list tool's result within RESULT_BUDGET_BYTES by asking its service for a smaller page,
 * never by cutting the answer it gave: the service then computes the next cursor or page itself,
 * so "the rest" is exactly the following items, none skipped or repeated. Only read-only tools
 * declare `paging`, so asking again changes nothing. A result of a tool without paging (one
 * resource, a write's report) is returned whole.
 */
export async function fitResult(tool: ToolDef, input: Record<string, unknown>, first: Record<string, unknown>, rerun: Rerun): Promise<FittedResult> {
  let result = first;
  let text = JSON.stringify(first);
  const paging = tool.paging?.(input);
  const over = () => Buffer.byteLength(text, 'utf8') > RESULT_BUDGET_BYTES;
  if (!paging || !over()) return { structured: result, text };
  const askedLimit = Number(input[paging.limitArg ?? 'limit'] ?? paging.items(first).length);
  let request = input;
  // A second pass only when the items grew between the two reads (a contact edited meanwhile).
  for (let pass = 0; pass < 3 && over(); pass++) {
    const fits = itemsThatFit(result, paging);
    if (fits >= paging.items(result).length) break;
    request = smallerPage(request, paging, fits);
    result = await rerun(request);
    text = JSON.stringify(result);
  }
  return { structured: result, text, note: pageNote(tool.name, paging, request, result, askedLimit) };
}

/** How many leading items of the result fit in the budget with the rest of the result (at least one). */
function itemsThatFit(result: Record<string, unknown>, paging: Paging): number {
  const sizes = paging.items(result).map((item) => bytesOf(item) + 1);
  let used = bytesOf(result) - sizes.reduce((sum, size) => sum + size, 0) + NOTE_ROOM;
  let n = 0;
  for (const size of sizes) {
    used += size;
    if (used > RESULT_BUDGET_BYTES) break;
    n++;
  }
  return Math.max(1, n);
}

/**
 * The same request for `fits` items. A cursor or offset list starts where it did with a smaller
 * limit; a page list must keep its first item at the same offset, so the new page size divides it.
 */
function smallerPage(input: Record<string, unknown>, paging: Paging, fits: number): Record<string, unknown> {
  const limitArg = paging.limitArg ?? 'limit';
  if (paging.by !== 'page') return { ...input, [limitArg]: fits };
  const page = Number(input.page ?? 1);
  const offset = (page - 1) * Number(input[limitArg]);
  let size = fits;
  while (offset % size !== 0) size--;
  return { ...input, page: offset / size + 1, [limitArg]: size };
}

function pageNote(tool: string, paging: Paging, request: Record<string, unknown>, result: Record<string, unknown>, askedLimit: number): string {
  const limitArg = paging.limitArg ?? 'limit';
  const limit = Number(request[limitArg]);
  const got = paging.items(result).length;
  const head = `Only ${got} of up to ${askedLimit} items fit in one result of ${RESULT_BUDGET_BYTES / 1024} KB, so this page was read with ${limitArg}: ${limit}.`;
  if (paging.by === 'cursor') {
    const next = paging.nextCursor(result);
    return next === null ? `${head} These are the last ones.` : `${head} For the next ones, call ${tool} again with the same arguments, ${limitArg}: ${limit} and ${paging.cursorArg}: ${JSON.stringify(next)}.`;
  }
  if (paging.by === 'offset') {
    const next = Number(request.offset ?? 0) + got;
    return paging.hasMore(result) ? `${head} For the next ones, call ${tool} again with the same arguments, offset: ${next} and ${limitArg}: ${limit}.` : `${head} These are the last ones.`;
  }
  const page = Number(request.page);
  return paging.hasNextPage(result)
    ? `${head} For the next ones, call ${tool} again with the same arguments, page: ${page + 1} and ${limitArg}: ${limit}.`
    : `${head} These are the last ones.`;
}
