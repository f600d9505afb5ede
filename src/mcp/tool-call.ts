import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDef } from '../../tools/types.js';
import type { AppContext } from '../context.js';
import { AppError } from '../platform/errors.js';
import type { Principal } from '../platform/permissions.js';
import { zodDetails } from '../platform/validation.js';
import { outputMismatch } from './output-check.js';
import { isCallerError, toolError } from './tool-errors.js';

/**
 * A tools/call result. On success `json` is the result serialised once: the text block (which the
 * MCP specification asks for, for clients that ignore structuredContent) and structuredContent
 * carry exactly this JSON, so the direct path (direct.ts) writes it into the answer as is.
 */
export interface ToolCallAnswer {
  result: CallToolResult;
  json?: string;
}

/**
 * One tools/call, the same for the direct path and the SDK's Server: the tool must be served by
 * this connection's filter, the principal must hold its permissions (checked on every call), the
 * arguments must match its input schema. Caller mistakes become tool errors; anything else is
 * logged and thrown, and the caller answers a JSON-RPC error.
 */
export async function callTool(app: AppContext, principal: Principal, tools: ReadonlyMap<string, ToolDef>, name: string, args: unknown): Promise<ToolCallAnswer> {
  const tool = tools.get(name);
  if (!tool) {
    return { result: toolError(new AppError('NOT_FOUND', `Unknown tool "${name}" (or not in the toolsets this connection serves)`), 'Call tools/list to see the tools available on this connection.') };
  }
  const missing = tool.permissions.filter((p) => !principal.permissions.has(p));
  if (missing.length > 0) {
    return { result: toolError(new AppError('FORBIDDEN', `This connection lacks the permission ${missing.join(', ')} needed by ${tool.name}`, { extra: { requiredPermissions: missing } })) };
  }
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) {
    const details = zodDetails(parsed.error);
    return { result: toolError(new AppError('VALIDATION_ERROR', `Invalid arguments for ${tool.name}: ${details[0]?.path ? `${details[0].path}: ` : ''}${details[0]?.message ?? ''}`, { details })) };
  }
  try {
    const structured = (await tool.run({ app, principal }, parsed.data));
    // A result its own outputSchema forbids is our bug; clients that check (the SDK's Client does)
    // would throw on it, so it never leaves the server: logged here, a plain INTERNAL tool error there.
    const mismatch = outputMismatch(tool, structured);
    if (mismatch !== undefined) {
      app.logger.error({ tool: tool.name, accountId: principal.accountId, mismatch }, 'tool result does not match its outputSchema');
      return { result: toolError(new AppError('INTERNAL', `${tool.name} failed on the server; nothing about your arguments is wrong.`), tool.annotations.readOnlyHint ? 'This is a server bug, reported in its log. Tell the user; a retry gives the same answer.' : 'This is a server bug, reported in its log. The action may have been carried out: check (rcs_message_log, rcs_jobs or the list tools) before calling again, and tell the user.') };
    }
    const json = JSON.stringify(structured);
    return { result: { content: [{ type: 'text', text: json }], structuredContent: structured }, json };
  } catch (err) {
    if (isCallerError(err)) return { result: toolError(err) };
    app.logger.error({ err, tool: tool.name, accountId: principal.accountId }, 'tool failed');
    throw err;
  }
}
