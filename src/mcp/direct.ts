import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../context.js';
import type { Principal } from '../platform/permissions.js';
import { listedToolsJson, servedTools, type ToolFilter } from './catalog.js';
import { callTool } from './tool-call.js';
import { isRecord } from '../platform/guards.js';

/**
 * The two methods assistants call all the time, tools/call and tools/list, answered without the
 * SDK's Protocol. Per request the SDK parses each message against four zod schemas (three of them
 * failing type guards, which is the expensive case), the tools/call params twice and the result
 * once, and builds an AbortController; with a Server per request that cost about as much as the
 * database read of list_sendernames itself (bench/mcp.ts). Only a single request whose envelope
 * and params the SDK's schemas certainly accept takes this path, so it answers exactly what the
 * SDK would; anything else — initialize, ping, notifications, batches, task-augmented calls,
 * malformed or unusual params — goes to the SDK's Server (server.ts), whose answers and errors
 * stay the SDK's.
 */

/** A request the direct path answers. */
export type DirectRequest = { id: RequestId; method: 'tools/call'; name: string; args: unknown } | { id: RequestId; method: 'tools/list' };

const ENVELOPE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const CALL_KEYS = new Set(['name', 'arguments', '_meta']);
const LIST_KEYS = new Set(['cursor', '_meta']);
const PROGRESS_ONLY = new Set(['progressToken']);

const onlyKeys = (o: Record<string, unknown>, allowed: ReadonlySet<string>) => {
  for (const k in o) if (!allowed.has(k)) return false;
  return true;
};

/** `_meta` as the SDK's RequestMetaSchema accepts it, limited to what we can ignore: a progress token (we send no progress). */
const metaOk = (meta: unknown) => {
  if (meta === undefined) return true;
  if (!isRecord(meta) || !onlyKeys(meta, PROGRESS_ONLY)) return false;
  const token = meta.progressToken;
  return token === undefined || typeof token === 'string' || Number.isSafeInteger(token);
};

/** The direct request in a POST body (one message, already checked as a JSON-RPC envelope), or null. */
export function directRequest(messages: readonly JSONRPCMessage[], batch: boolean): DirectRequest | null {
  if (batch || messages.length !== 1) return null;
  const m = messages[0] as Record<string, unknown>;
  const id = m.id;
  if (!(typeof id === 'string' || Number.isSafeInteger(id)) || !onlyKeys(m, ENVELOPE_KEYS)) return null;
  const params = m.params;
  if (m.method === 'tools/call') {
    if (!isRecord(params) || !onlyKeys(params, CALL_KEYS) || typeof params.name !== 'string' || !metaOk(params._meta)) return null;
    const args = params.arguments;
    // A "__proto__" key is copied differently by the SDK's record schema: left to the SDK.
    if (args !== undefined && (!isRecord(args) || Object.hasOwn(args, '__proto__'))) return null;
    return { id: id as RequestId, method: 'tools/call', name: params.name, args };
  }
  if (m.method === 'tools/list') {
    if (params !== undefined && (!isRecord(params) || !onlyKeys(params, LIST_KEYS) || !(params.cursor === undefined || typeof params.cursor === 'string') || !metaOk(params._meta))) return null;
    return { id: id as RequestId, method: 'tools/list' };
  }
  return null;
}

/**
 * The JSON text of the answer, laid out as the SDK lays out its answers ({result, jsonrpc, id}).
 * A tool's result JSON is written into the answer twice as is — as the text block's string and as
 * structuredContent — instead of serialising the result object a second time.
 */
export async function answerDirect(app: AppContext, principal: Principal, filter: ToolFilter, req: DirectRequest): Promise<string> {
  const tail = `,"jsonrpc":"2.0","id":${JSON.stringify(req.id)}}`;
  if (req.method === 'tools/list') return `{"result":{"tools":${listedToolsJson(filter)}}${tail}`;
  let answer;
  try {
    answer = await callTool(app, principal, servedTools(filter), req.name, req.args);
  } catch (err) {
    return JSON.stringify(rpcErrorAnswer(req.id, err));
  }
  if (answer.json === undefined) return `{"result":${JSON.stringify(answer.result)}${tail}`;
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(answer.json)}}],"structuredContent":${answer.json}}${tail}`;
}

/** What the SDK's Protocol answers when a handler throws: the error's integer code or -32603, its message, its data. */
function rpcErrorAnswer(id: RequestId, err: unknown) {
  const e = (err ?? {}) as { code?: unknown; message?: string; data?: unknown };
  return {
    jsonrpc: '2.0' as const,
    id,
    error: { code: Number.isSafeInteger(e.code) ? (e.code as number) : -32603, message: e.message ?? 'Internal error', ...(e.data !== undefined && { data: e.data }) },
  };
}
