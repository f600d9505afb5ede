import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../context.js';
import type { Principal } from '../platform/permissions.js';
import { AppError } from '../platform/errors.js';
import { zodDetails } from '../platform/validation.js';
import { API_VERSION_STRING } from './version.js';
import { listedTools, selectTools, type ToolFilter } from './catalog.js';
import { isCallerError, toolError } from './tool-errors.js';

export const SERVER_INSTRUCTIONS = [
  'RCS & SMS messaging. Every send goes: validate (rcs_validate) → preview (rcs_preview or sms_preview) →',
  'the user approves on the preview share_url when approval_required → send (rcs_send, rcs_send_batch or sms_send)',
  'with the preview_id and exactly the previewed payload. You cannot approve a preview yourself.',
  'rcs_workflow_guide explains each task; list_sendernames gives sender ids.',
].join(' ');

/**
 * One low-level MCP server per HTTP request (stateless Streamable HTTP: any instance can answer
 * any request). The tool list is precomputed per filter; calls go through the tool registry.
 */
// The SDK builds an Ajv instance per Server unless given one; per request that cost more than the
// tool call itself. We never ask the client to validate anything, so one shared instance serves all.
const sharedValidator = new AjvJsonSchemaValidator();

export function buildMcpServer(app: AppContext, principal: Principal, filter: ToolFilter): Server {
  const server = new Server({ name: 'rcs-sms-mcp-server', title: 'RCS & SMS messaging', version: API_VERSION_STRING }, { capabilities: { tools: { listChanged: false } }, instructions: SERVER_INSTRUCTIONS, jsonSchemaValidator: sharedValidator });
  const tools = new Map(selectTools(filter).map((t) => [t.name, t]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listedTools(filter) }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = tools.get(request.params.name);
    if (!tool) {
      return toolError(new AppError('NOT_FOUND', `Unknown tool "${request.params.name}" (or not in the toolsets this connection serves)`), 'Call tools/list to see the tools available on this connection.');
    }
    const missing = tool.permissions.filter((p) => !principal.permissions.has(p));
    if (missing.length > 0) {
      return toolError(new AppError('FORBIDDEN', `This connection lacks the permission ${missing.join(', ')} needed by ${tool.name}`, { extra: { requiredPermissions: missing } }));
    }
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const details = zodDetails(parsed.error);
      return toolError(new AppError('VALIDATION_ERROR', `Invalid arguments for ${tool.name}: ${details[0]?.path ? `${details[0].path}: ` : ''}${details[0]?.message ?? ''}`, { details }));
    }
    try {
      const result = (await tool.run({ app, principal }, parsed.data)) as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (err) {
      if (isCallerError(err)) return toolError(err);
      app.logger.error({ err, tool: tool.name, accountId: principal.accountId }, 'tool failed');
      throw err;
    }
  });
  return server;
}
