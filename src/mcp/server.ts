import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../context.js';
import type { Principal } from '../platform/permissions.js';
import { zodDetails } from '../platform/validation.js';
import { API_VERSION_STRING } from './version.js';
import { listedTools, servedTools, type ToolFilter } from './catalog.js';
import { callTool } from './tool-call.js';

export const SERVER_INSTRUCTIONS = [
  'RCS & SMS messaging. Every send goes: validate (rcs_validate) → preview (rcs_preview or sms_preview) →',
  'the user approves on the preview share_url when approval_required → send (rcs_send, rcs_send_batch or sms_send)',
  'with the preview_id and exactly the previewed payload. You cannot approve a preview yourself.',
  'rcs_workflow_guide explains each task; list_sendernames gives sender ids.',
].join(' ');

/**
 * One low-level MCP server per HTTP request (stateless Streamable HTTP: any instance can answer
 * any request). Only what the direct path (direct.ts) does not take comes here: initialize, ping,
 * batches, malformed params, unknown methods. The tool list is precomputed per filter; calls go
 * through callTool, as on the direct path.
 */
// The SDK builds an Ajv instance per Server unless given one; per request that cost more than the
// tool call itself. We never ask the client to validate anything, so one shared instance serves all.
const sharedValidator = new AjvJsonSchemaValidator();

export function buildMcpServer(app: AppContext, principal: Principal, filter: ToolFilter): Server {
  const server = new Server({ name: 'rcs-sms-mcp-server', title: 'RCS & SMS messaging', version: API_VERSION_STRING }, { capabilities: { tools: { listChanged: false } }, instructions: SERVER_INSTRUCTIONS, jsonSchemaValidator: sharedValidator });
  const tools = servedTools(filter);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listedTools(filter) }));
  // tools/call is the fallback handler, not a registered one: for a registered handler the SDK
  // parses the params first and answers a malformed call (arguments not an object, no name) with
  // -32603 Internal error and the whole zod dump as message. This answers -32602 Invalid params
  // with the bad paths; arguments that fail a tool's own input schema stay tool errors (callTool).
  server.fallbackRequestHandler = async (request: JSONRPCRequest): Promise<CallToolResult> => {
    if (request.method !== 'tools/call') throw rpcError(ErrorCode.MethodNotFound, 'Method not found');
    const parsed = CallToolRequestSchema.safeParse(request);
    if (!parsed.success) throw rpcError(ErrorCode.InvalidParams, invalidParamsMessage(parsed.error));
    return (await callTool(app, principal, tools, parsed.data.params.name, parsed.data.params.arguments)).result;
  };
  return server;
}

/** What the SDK's Protocol turns into a JSON-RPC error as is (an McpError would prefix its message with "MCP error -326xx: "). */
const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });

/** "Invalid params: params.arguments: expected an object, got array" — the paths, no validation dump. */
function invalidParamsMessage(error: Parameters<typeof zodDetails>[0]): string {
  const details = zodDetails(error);
  const shown = details.slice(0, 3).map((d) => `${d.path || 'params'}: ${d.message.replace(/^Invalid input: /, '').replace('expected record', 'expected an object')}`);
  return `Invalid params: ${shown.join('; ')}${details.length > shown.length ? ` (and ${details.length - shown.length} more)` : ''}`;
}
