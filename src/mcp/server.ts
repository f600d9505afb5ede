import { McpServer, type AuthInfo, type CallToolResult, type InputRequiredResult, type McpRequestContext, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { ToolDef } from '../../tools/types.js';
import type { McpDeps } from './deps.js';
import type { Principal } from '../platform/permissions.js';
import { approvalRound, approvalStateCodec, DECLINED_NEXT_STEP, type ApprovalState } from './approval.js';
import { toolError } from './tool-errors.js';
import { listedAnnotations, selectTools, servedTools, type ToolFilter } from './catalog.js';
import { toolSchemas, type ParsedInput } from './sdk-schemas.js';
import { callTool, forbidden } from './tool-call.js';
import { API_VERSION_STRING } from './version.js';
import { registerPreviewApp } from './apps/index.js';

export const SERVER_INSTRUCTIONS = [
  'RCS & SMS messaging. Every send goes: validate (rcs_validate) → preview (rcs_preview or sms_preview) →',
  'the user approves on the preview share_url when approval_required → send (rcs_send, rcs_send_batch or sms_send)',
  'with the preview_id (the previewed payload is sent; pass no other). You cannot approve a preview yourself.',
  'rcs_workflow_guide explains each task; list_sendernames gives sender ids.',
].join(' ');

// The SDK builds a validator (Ajv engines) per server unless given one, and the factory builds a
// server per request: one shared instance (stateless, it only compiles and caches schemas).
const sharedValidator = new AjvJsonSchemaValidator();

export const SERVER_INFO = { name: 'rcs-sms-mcp-server', title: 'RCS & SMS messaging', version: API_VERSION_STRING };

/**
 * How long a client may reuse tools/list and server/discover (2026-07-28 cache hints). The list
 * depends on the credential (its permissions) and the connection's filters, so only the client
 * that asked may cache it; it changes only with a deployment.
 */
// Lists depend on the credential (its permissions pick the tools), so caches keep them per caller.
const PRIVATE_5_MIN = { ttlMs: 300_000, cacheScope: 'private' as const };
const CACHE_HINTS = { 'tools/list': PRIVATE_5_MIN, 'server/discover': PRIVATE_5_MIN, 'resources/list': PRIVATE_5_MIN, 'resources/read': PRIVATE_5_MIN };

/** What routes.ts hands the factory for one request, as the SDK's pass-through authInfo.extra. */
export interface McpCaller {
  principal: Principal;
  filter: ToolFilter;
  /** The tool a lone tools/call request names; the instance then registers only that tool. */
  calledTool?: string;
  accountId: string;
}

export function callerOf(authInfo: AuthInfo | undefined): McpCaller {
  const caller = authInfo?.extra as McpCaller | undefined;
  if (!caller?.principal) throw new Error('MCP request without a resolved principal (routes.ts must run first)');
  return caller;
}

/** The tools a filter and a principal list, in catalog order: only those whose permissions it holds. */
function permittedTools(principal: Principal, filter: ToolFilter): ToolDef[] {
  return selectTools(filter).filter((t) => forbidden(t, principal) === null);
}

/**
 * The per-request server factory for createMcpHandler: a fresh McpServer (stateless, both eras)
 * with the caller's tools registered with their Standard Schemas (sdk-schemas.ts, built once per
 * tool). tools/list shows the tools of the filter whose permissions the principal holds, in
 * catalog order. A lone tools/call registers only the tool it names — the instance answers
 * nothing else — and a tool of the filter the principal lacks a permission of is then registered
 * to answer FORBIDDEN naming the permission, so the assistant learns what to ask the person for.
 */
export function mcpServerFactory(app: McpDeps): (ctx: McpRequestContext) => McpServer {
  let codec: RequestStateCodec<ApprovalState> | null = null;
  return ({ era, authInfo }) => {
    const { principal, filter, calledTool } = callerOf(authInfo);
    const stateCodec = (codec ??= approvalStateCodec(app));
    const server = new McpServer(SERVER_INFO, {
      // A stateless server never sends list_changed notifications: neither list is said to change.
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions: SERVER_INSTRUCTIONS,
      cacheHints: CACHE_HINTS,
      requestState: { verify: (state, ctx) => stateCodec.verify(state, ctx) },
      jsonSchemaValidator: sharedValidator,
    });
    let tools: ToolDef[];
    if (calledTool !== undefined) {
      const tool = selectTools(filter).find((t) => t.name === calledTool);
      tools = tool ? [tool] : [];
    } else {
      tools = permittedTools(principal, filter);
    }
    const served = servedTools(filter);
    for (const tool of tools) register(server, app, principal, tool, served, era, stateCodec);
    registerPreviewApp(server);
    return server;
  };
}

function register(server: McpServer, app: McpDeps, principal: Principal, tool: ToolDef, served: ReadonlyMap<string, ToolDef>, era: 'legacy' | 'modern', codec: RequestStateCodec<ApprovalState>): void {
  const schemas = toolSchemas(tool);
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: schemas.input,
      outputSchema: schemas.output,
      // Listed as catalog.ts lists them (the lean tools/list: hints that differ from MCP's defaults, _meta only where a tool has one).
      annotations: listedAnnotations(tool.annotations),
      ...(tool.meta ? { _meta: { ...tool.meta } } : {}),
    },
    async (input: ParsedInput, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
      const outcome = await callTool(app, principal, tool, input, served);
      if (!outcome.error) return outcome.result;
      const previewId = input.ok ? input.data.preview_id : undefined;
      const round = await approvalRound(codec, era, ctx, tool.name, previewId, outcome);
      if (round === 'declined') return toolError(outcome.error, { tool, served, nextStep: DECLINED_NEXT_STEP });
      return round ?? outcome.result;
    },
  );
}

