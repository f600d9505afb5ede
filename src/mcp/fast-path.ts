import type { Request } from 'express';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from './protocol-versions.js';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import type { ToolDef } from '../../tools/types.js';
import type { McpDeps } from './deps.js';
import { isRecord } from '../platform/guards.js';
import type { Principal } from '../platform/permissions.js';
import { servedTools, type ToolFilter } from './catalog.js';
import { toolSchemas, type ParsedInput } from './sdk-schemas.js';
import { SERVER_INFO } from './server.js';
import { callTool } from './tool-call.js';

/**
 * The one request assistants send all the time — a lone tools/call — answered without the SDK's
 * protocol machinery, because that machinery cannot meet the speed bar: bench/mcp.ts measures a
 * stock createMcpHandler server with a trivial tool far below 60 % of a bare express echo, and our
 * SDK path alongside it (figures in docs/decisions.md). Only a request the SDK certainly accepts as
 * is takes this path, and it gets exactly the SDK's answer (test/mcp/fast-path.test.ts compares
 * them byte for byte, both eras): the same tool registration data (sdk-schemas.ts), the same
 * runTool, the same result shape. Everything else — initialize, server/discover, tools/list,
 * batches, unusual params or headers, retries carrying input responses, clients that declared URL
 * elicitation (a send may answer input_required), unknown tools — goes to the SDK (routes.ts).
 */
export interface FastCall {
  id: string | number;
  tool: ToolDef;
  args: unknown;
  era: 'legacy' | 'modern';
  /** The connection's tools: a tool error's nextStep names only these. */
  served: ReadonlyMap<string, ToolDef>;
}

const ENVELOPE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const CALL_KEYS = new Set(['name', 'arguments', '_meta']);
const LEGACY_META = new Set(['progressToken']);
const MODERN_META = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY, 'progressToken']);
const CLIENT_INFO_KEYS = new Set(['name', 'version', 'title']);
const LEGACY_VERSIONS = new Set(LEGACY_PROTOCOL_VERSIONS);
const MODERN_VERSION = MODERN_PROTOCOL_VERSION;

const onlyKeys = (o: Record<string, unknown>, allowed: ReadonlySet<string>) => {
  for (const k in o) if (!allowed.has(k)) return false;
  return true;
};
const isToken = (v: unknown) => v === undefined || typeof v === 'string' || Number.isSafeInteger(v);
const header = (req: Request, name: string) => {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
};

/** The envelope of a modern request the fast path can take, checked as the SDK checks it (only the plain cases). */
function plainEnvelope(meta: Record<string, unknown>): boolean {
  if (!onlyKeys(meta, MODERN_META) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_VERSION || !isToken(meta.progressToken)) return false;
  const info = meta[CLIENT_INFO_META_KEY];
  if (info !== undefined && !(isRecord(info) && onlyKeys(info, CLIENT_INFO_KEYS) && typeof info.name === 'string' && typeof info.version === 'string' && (info.title === undefined || typeof info.title === 'string'))) return false;
  const caps = meta[CLIENT_CAPABILITIES_META_KEY];
  if (!isRecord(caps)) return false;
  for (const k in caps) if (!isRecord(caps[k])) return false;
  // A client that can be asked for approval in the protocol may get input_required: the SDK's.
  return !(isRecord(caps.elicitation) && caps.elicitation.url !== undefined);
}

/** The lone tools/call of this request the fast path answers, or null. */
export function fastCall(req: Request, filter: ToolFilter): FastCall | null {
  const body = req.body as unknown;
  if (!isRecord(body) || !onlyKeys(body, ENVELOPE_KEYS) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return null;
  const id = body.id;
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return null;
  const accept = header(req, 'accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return null;
  if ((header(req, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json') return null;
  const params = body.params;
  if (!isRecord(params) || !onlyKeys(params, CALL_KEYS) || typeof params.name !== 'string') return null;
  const args = params.arguments;
  // A "__proto__" key is copied differently by the SDK's record schema: left to the SDK.
  if (args !== undefined && (!isRecord(args) || Object.hasOwn(args, '__proto__'))) return null;
  const meta = params._meta;
  if (meta !== undefined && !isRecord(meta)) return null;
  const version = header(req, 'mcp-protocol-version');
  let era: FastCall['era'];
  if (meta !== undefined && PROTOCOL_VERSION_META_KEY in meta) {
    if (version !== MODERN_VERSION || header(req, 'mcp-method') !== 'tools/call' || header(req, 'mcp-name') !== params.name || !plainEnvelope(meta)) return null;
    era = 'modern';
  } else {
    if ((version !== undefined && !LEGACY_VERSIONS.has(version)) || req.headers['mcp-method'] !== undefined || req.headers['mcp-name'] !== undefined) return null;
    if (meta !== undefined && (!onlyKeys(meta, LEGACY_META) || !isToken(meta.progressToken))) return null;
    era = 'legacy';
  }
  const served = servedTools(filter);
  const tool = served.get(params.name);
  return tool ? { id: id as string | number, tool, args, era, served } : null;
}

const SERVER_META = JSON.stringify({ [SERVER_INFO_META_KEY]: SERVER_INFO });

/** The JSON-RPC answer, laid out as the SDK lays it out ({result, jsonrpc, id}; 2026 results end with resultType and the server's identity). */
export async function answerFast(app: McpDeps, principal: Principal, call: FastCall): Promise<string> {
  const parsed = (await toolSchemas(call.tool).input['~standard'].validate(call.args ?? {})) as { value: ParsedInput };
  const { result } = await callTool(app, principal, call.tool, parsed.value, call.served);
  let text = JSON.stringify(result);
  if (call.era === 'modern') text = `${text.slice(0, -1)},"resultType":"complete","_meta":${SERVER_META}}`;
  return `{"result":${text},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`;
}
